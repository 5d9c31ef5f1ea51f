/**
 * vLLM's all-reduce dispatch on a stack's setup, for each link a group of GPUs may have (the
 * record's interconnect; else the stack's setup where the part can have it; else every
 * interconnect the part can have), and each message's choice on those links: the shared core of
 * `allReducePathFinding`, `ncclAllReduceUse` and `vllmDispatchedAllReduce`.
 *
 * @module
 */
import {
  type InterconnectFacts,
  interconnectFacts,
  interconnectsOf,
  isInterconnect,
  type LinkedGpu,
  linksClause,
  type StackProfile,
  type VllmAllReduceChoice,
  vllmAllReducePath,
  vllmPaddedTokens,
} from "../kernels/mod.ts";

/** The GPU part a split runs on, as the dispatch reads it (a `GpuProfile` is one). */
export interface DispatchGpu extends LinkedGpu {
  /** The device's compute capability, e.g. `8.0`. */
  readonly computeCapability: string;
}

/** One distinct message of a record's passes, with the dispatch's choice on each link. */
export interface _Message {
  /** The message, where its links come from and (one link) the rule. */
  readonly message: string;
  /** The choice on each link the dispatch considers. */
  readonly choices: readonly VllmAllReduceChoice[];
  /** The path, or the paths with their links. */
  readonly runs: string;
  /** Why the links leave its path open, or null when every link takes one path. */
  readonly open: string | null;
}

/**
 * Each distinct message of a record's passes (launch rows as the stack's CUDA graphs pad them,
 * times the hidden size, in BF16) with the dispatch's choice on each link and a description.
 */
export function* _messages(
  stack: StackProfile,
  dispatch: _Dispatch,
  o: { readonly size: number; readonly hidden: number; readonly passRows: readonly number[] },
): Generator<_Message> {
  const sizes = stack.operators?.cudaGraphs?.captureSizes;
  for (const rows of new Set(o.passRows)) {
    const launch = sizes === undefined ? rows : vllmPaddedTokens(rows, sizes);
    const what = `a message of ${launch * o.hidden * 2} bytes (${launch} row${
      launch === 1 ? "" : "s"
    }) on ${o.size} ranks`;
    yield _onLinks(stack, dispatch, { what, messageBytes: launch * o.hidden * 2 });
  }
}

/** The dispatch's choice for one message on each link, and a description. */
export function _onLinks(
  stack: StackProfile,
  dispatch: _Dispatch,
  o: { readonly what: string; readonly messageBytes: number },
): _Message {
  const choices = dispatch.links.map((l) => l.choose(o.messageBytes));
  const byPath = new Map<string, string[]>();
  choices.forEach((c, i) => {
    byPath.set(c.path, [...(byPath.get(c.path) ?? []), dispatch.links[i]!.name]);
  });
  const paths = [...byPath].map(([path, links]) => `${path} on ${links.join(", ")}`);
  return {
    message: choices.length === 1
      ? `${o.what} ${dispatch.where} (${choices[0]!.rule})`
      : `${o.what} ${dispatch.where}`,
    choices,
    runs: byPath.size === 1 ? choices[0]!.path : paths.join(" or "),
    open: byPath.size === 1 ? null : `the path stack '${stack.id}' takes for ${o.what} ` +
      `depends on how the GPUs are linked (${paths.join("; ")}; ${dispatch.clause})`,
  };
}

/** vLLM's dispatch on a stack's setup, for each link the group may have. */
export interface _Dispatch {
  /** The links considered, each with the dispatch on it. */
  readonly links: readonly {
    /** The interconnect, or `the stack's setup`. */
    readonly name: string;
    /** The dispatch's choice for a message of that many bytes on this link. */
    readonly choose: (messageBytes: number) => VllmAllReduceChoice;
  }[];
  /** Where the links come from, as a reason says it. */
  readonly where: string;
  /** The part's link facts, as a reason says them. */
  readonly clause: string;
}

/**
 * vLLM's dispatch on a stack's setup and a group's links: the record's interconnect where it
 * states one; else the stack's, where the part (one form) can have it; else every interconnect
 * the part can have. Null when the stack states no setup or the interconnect is not one the
 * dispatch is modelled on.
 */
export function _dispatchOf(
  stack: StackProfile,
  o: {
    readonly gpu: DispatchGpu;
    readonly worldSize: number;
    readonly interconnect?: string | undefined;
  },
): _Dispatch | null {
  const setup = stack.operators?.allReduceSetup;
  if (setup === undefined) return null;
  const stated = o.interconnect;
  if (stated !== undefined && !isInterconnect(stated)) return null;
  const on = (links: InterconnectFacts) => (messageBytes: number) =>
    vllmAllReducePath({
      worldSize: o.worldSize,
      messageBytes,
      deviceCapability: o.gpu.computeCapability,
      fullyConnected: links.fullyConnected,
      multicast: links.multicast,
      customAllReduce: setup.customAllReduce && links.p2p,
      useTorchSymmMem: setup.torchSymmMem,
      useNcclSymmMem: setup.ncclSymmMem,
      ...(setup.customAllReduceAlgo === undefined
        ? {}
        : { customAllReduceAlgo: setup.customAllReduceAlgo }),
    });
  const clause = linksClause(o.gpu);
  if (stated !== undefined) {
    return {
      links: [{ name: stated, choose: on(interconnectFacts(stated)) }],
      where: `on the record's interconnect '${stated}'`,
      clause,
    };
  }
  // The stack's setup names what its GPUs are assumed to be: NVSwitch with multicast, every pair
  // NVLink-connected, or neither (P2P assumed, as vLLM's own P2P test would pass).
  const assumed = setup.multicast ? "nvswitch" : setup.fullyConnected ? "nvlink" : "pcie-p2p";
  const possible = interconnectsOf(o.gpu, o.worldSize);
  if (o.gpu.links?.nvlink.length === 1 && possible.includes(assumed)) {
    const links = { fullyConnected: setup.fullyConnected, p2p: true, multicast: setup.multicast };
    return {
      links: [{ name: "the stack's setup", choose: on(links) }],
      where: `as stack '${stack.id}' states its GPUs linked`,
      clause,
    };
  }
  return {
    links: possible.map((i) => ({ name: i, choose: on(interconnectFacts(i)) })),
    where: `on any links '${o.gpu.id}' GPUs can have (${possible.join(", ")}: ` +
      `${clause})`,
    clause,
  };
}
