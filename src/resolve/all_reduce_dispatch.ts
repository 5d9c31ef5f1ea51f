/**
 * Whether the all-reduce a record names is the one its stack's dispatch takes for the record's
 * messages: vLLM's `CudaCommunicator.all_reduce` picks the custom all-reduce (one or two stages),
 * symmetric memory or NCCL from the message size, the world size, the device and the
 * environment (`vllmAllReducePath`). A stack that states that environment
 * (`operators.allReduceSetup`) lets the verifier recompute the path of every message the record
 * implies (each pass's launch rows times the hidden size, in BF16) and FAIL a record that names
 * another; where the record names none (two ranks, where every implementation gives the same
 * bits) or the stack states no setup, nothing is checked. How the GPUs are linked is the record's
 * `interconnect` where it states one (`interconnectFacts`: NVLink, P2P, multicast); where it
 * states none, the stack's setup where the GPU part can have it (its profile's `links`, one form),
 * else every interconnect the part can have (`interconnectsOf`: PCIe only on an L40S, whose P2P
 * is not known; any on an A100, which comes as SXM4 module or PCIe card). A named all-reduce that
 * no such interconnect takes FAILs; one that some take and others not leaves the path open (the
 * verifier reports it once the bits are compared, never hiding a FAIL). An interconnect the
 * verifier does not know leaves the path unchecked (the caller reports it:
 * `unknownInterconnect`). A record may instead state `vllm-dispatch` (each message took the
 * dispatch's path for its size, NCCL as its `nccl` settings say): `vllmDispatchedAllReduce` then
 * resolves each message's implementation for the replay, and a message the dispatch sends to NCCL
 * with no NCCL settings stated, or whose path the links leave open, FAILs (no replay exists;
 * at two ranks, where every path adds once and rounds once, any path the links allow replays it).
 *
 * @module
 */
import {
  allReducePathOf,
  type ClaimedAllReduce,
  type ClaimedNcclAllReduce,
  INTERCONNECTS,
  isInterconnect,
  isModelledAllReduceKind,
  type StackProfile,
  VLLM_DISPATCH,
} from "../kernels/mod.ts";
import { ForwardUnsupported, type TensorParallel } from "../model/mod.ts";
import { _dispatchOf, _messages, _onLinks, type DispatchGpu } from "./_dispatch_on_links.ts";

export type { DispatchGpu };

/** The messages a split's all-reduces carry, as the dispatch reads them. */
export interface AllReduceMessages {
  /** The GPU part: its compute capability and how it links to its peers. */
  readonly gpu: DispatchGpu;
  /** The split: its rank count and all-reduce are all that is read. */
  readonly parallel: Pick<TensorParallel, "size" | "allReduce"> | undefined;
  /** The hidden size (elements a row's message holds). */
  readonly hidden: number;
  /** Each pass's token count (unpadded: the stack's capture sizes pad it). */
  readonly passRows: readonly number[];
  /** The interconnect the record states. */
  readonly interconnect?: string | undefined;
}

/**
 * What the dispatch says of a named all-reduce: a `contradiction` (no link the group can have
 * takes it for some message; or a `vllm-dispatch` with a message NCCL takes without settings, or
 * whose path the links leave open), or `open` (the path depends on links the record does not
 * state: some take it, others not).
 */
export interface AllReducePathFinding {
  /** `contradiction`: the record FAILs; `open`: the path is not checked. */
  readonly kind: "contradiction" | "open";
  /** One line: the message, the path on each link and what to state. */
  readonly reason: string;
}

/**
 * The contradiction between a named all-reduce and the stack's dispatch, or the path the
 * record's unstated links leave open, if any; a contradiction in any message comes before an
 * open path in another.
 *
 * @param stack the stack (its `allReduceSetup` and CUDA-graph capture sizes)
 * @param o the GPU part, the split, the hidden size, each pass's token count (unpadded: the
 *   stack's capture sizes pad it), whether the record named its all-reduce and the interconnect
 *   it states
 * @returns null when consistent or not checkable, else the finding
 * @example
 * ```ts ignore
 * const f = allReducePathFinding(stack, { gpu: profile, parallel, hidden, passRows: [15], named: true });
 * ```
 */
export function allReducePathFinding(
  stack: StackProfile,
  o: AllReduceMessages & {
    readonly named: boolean;
    /** Who named the all-reduce, as the reason says it (default `record`; a CLI flag). */
    readonly subject?: string;
  },
): AllReducePathFinding | null {
  const tp = o.parallel;
  if (tp === undefined || !o.named) return null;
  const dispatch = _dispatchOf(stack, { ...o, worldSize: tp.size });
  if (dispatch === null) return null;
  const claimed = tp.allReduce;
  const subject = o.subject ?? "record";
  const contradiction = (reason: string) => ({ kind: "contradiction", reason }) as const;
  let open: string | null = null;
  for (const m of _messages(stack, dispatch, { ...o, size: tp.size })) {
    if (claimed.kind === VLLM_DISPATCH) {
      // At two ranks every path adds once and rounds once: the links need not be known.
      if (m.open !== null && tp.size === 2) continue;
      if (m.open !== null) {
        return contradiction(
          `${subject} states all-reduce '${VLLM_DISPATCH}' and no interconnect: ${m.open}, so ` +
            "no replay follows the record; state the interconnect",
        );
      }
      if (m.runs === "nccl" && claimed.nccl === undefined) {
        return contradiction(
          `${subject} states all-reduce '${VLLM_DISPATCH}' without NCCL settings, but stack ` +
            `'${stack.id}' sends ${m.message} to NCCL`,
        );
      }
      continue;
    }
    const want = allReducePathOf(claimed.kind);
    const taken = m.choices.filter((c) => c.path === want).length;
    if (taken === 0) {
      return contradiction(
        `${subject} names all-reduce '${claimed.kind}', but stack '${stack.id}' runs ${m.runs} ` +
          `for ${m.message}; state '${VLLM_DISPATCH}' to have each message's path recomputed`,
      );
    }
    if (taken < m.choices.length) {
      open ??= `${subject} names all-reduce '${claimed.kind}' and no interconnect: ${m.open}; ` +
        "state the interconnect";
    }
  }
  return open === null ? null : { kind: "open", reason: open };
}

/**
 * Where a split's all-reduces go through NCCL: its named NCCL ring or tree, or under a recorded
 * `vllm-dispatch` the first message the stack's dispatch may send to NCCL (each pass's launch
 * rows times the hidden size, as {@link allReducePathFinding} reads them).
 *
 * @param stack the stack (its `allReduceSetup` and CUDA-graph capture sizes)
 * @param o the GPU part, the split, the hidden size, each pass's token count and the record's
 *   interconnect
 * @returns what NCCL reduces, for a message, or null when NCCL reduces none of the split's
 *   messages (another implementation, one rank, or a dispatch that cannot be resolved)
 * @example
 * ```ts ignore
 * ncclAllReduceUse(stack, { gpu: profile, parallel, hidden: 256, passRows: [16] });
 * ```
 */
export function ncclAllReduceUse(
  stack: StackProfile,
  o: AllReduceMessages,
): string | null {
  const tp = o.parallel;
  if (tp === undefined) return null;
  const kind = tp.allReduce.kind;
  if (kind === "nccl-ring" || kind === "nccl-tree") {
    return `the all-reduce '${kind}' on ${tp.size} ranks`;
  }
  const dispatch = kind === VLLM_DISPATCH ? _dispatchOf(stack, { ...o, worldSize: tp.size }) : null;
  if (dispatch === null) return null;
  for (const m of _messages(stack, dispatch, { ...o, size: tp.size })) {
    if (m.choices.some((c) => c.path === "nccl")) {
      return `stack '${stack.id}' sends ${m.message} to NCCL`;
    }
  }
  return null;
}

/**
 * The all-reduce of each message under a recorded `vllm-dispatch`: the path vLLM's dispatch takes
 * for the message's size on the stack's setup and the record's links (where the record states
 * none, as {@link allReducePathFinding} reads them), with the record's NCCL settings for the NCCL
 * path.
 *
 * @param stack the stack (its `allReduceSetup`)
 * @param o the group size, the GPU part, the record's interconnect and NCCL settings
 * @returns the implementation of a message of `count` BF16 elements (it throws
 *   `ForwardUnsupported` for a path that is not modelled, NCCL without settings, or a path the
 *   links leave open), or why none can be resolved (the stack states no setup; an interconnect
 *   the dispatch is not modelled on)
 * @example
 * ```ts ignore
 * const per = vllmDispatchedAllReduce(stack, { worldSize: 4, gpu: profile, interconnect: "nvlink" });
 * if (typeof per !== "string") per(64 * 4096).kind; // "vllm-custom-1stage"
 * ```
 */
export function vllmDispatchedAllReduce(
  stack: StackProfile,
  o: {
    readonly worldSize: number;
    readonly gpu: DispatchGpu;
    readonly interconnect?: string | undefined;
    readonly nccl?: ClaimedNcclAllReduce | undefined;
  },
): ((count: number) => ClaimedAllReduce) | string {
  if (stack.operators?.allReduceSetup === undefined) {
    return `stack '${stack.id}' states no all-reduce setup: '${VLLM_DISPATCH}' cannot be resolved`;
  }
  const dispatch = _dispatchOf(stack, o);
  if (dispatch === null) return unknownInterconnect(o.interconnect)!;
  return (count: number) => {
    const m = _onLinks(stack, dispatch, {
      what: `a message of ${count * 2} bytes on ${o.worldSize} ranks`,
      messageBytes: count * 2,
    });
    // At two ranks every path adds once and rounds once: any path the links allow replays it.
    const choice = m.open === null
      ? m.choices[0]!
      : o.worldSize === 2
      ? m.choices.find((c) => c.unmodelled === null && (c.path !== "nccl" || o.nccl !== undefined))
      : undefined;
    if (choice === undefined) throw new ForwardUnsupported(`${m.open}; state the interconnect`);
    if (choice.unmodelled !== null) throw new ForwardUnsupported(choice.unmodelled);
    if (choice.path === "nccl") {
      if (o.nccl === undefined) {
        throw new ForwardUnsupported(
          `the dispatch sends ${count * 2} bytes to NCCL and the record states no NCCL settings`,
        );
      }
      return o.nccl;
    }
    if (!isModelledAllReduceKind(choice.path)) {
      throw new ForwardUnsupported(`the all-reduce path '${choice.path}' is not modelled`);
    }
    return { kind: choice.path } as ClaimedAllReduce;
  };
}

/**
 * Why a record's stated interconnect leaves its all-reduce path unchecked, or null when it states
 * none or one the verifier knows.
 *
 * @param interconnect the record's `parallelism.interconnect`
 * @returns the reason, or null
 * @example
 * ```ts
 * import { unknownInterconnect } from "./all_reduce_dispatch.ts";
 * if (unknownInterconnect("pcie") !== null || unknownInterconnect("infiniband") === null) throw new Error();
 * ```
 */
export function unknownInterconnect(interconnect: string | undefined): string | null {
  if (interconnect === undefined || isInterconnect(interconnect)) return null;
  return `interconnect '${interconnect}' is not one the all-reduce dispatch is modelled on ` +
    `(${INTERCONNECTS.join(", ")}): the all-reduce path was not checked`;
}
