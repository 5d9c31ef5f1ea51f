/**
 * Whether the all-reduce a record names is the one its stack's dispatch takes for the record's
 * messages: vLLM's `CudaCommunicator.all_reduce` picks the custom all-reduce (one or two stages),
 * symmetric memory or NCCL from the message size, the world size, the device and the
 * environment (`vllmAllReducePath`). A stack that states that environment
 * (`operators.allReduceSetup`) lets the verifier recompute the path of every message the record
 * implies (each pass's launch rows times the hidden size, in BF16) and FAIL a record that names
 * another; where the record names none (two ranks, where every implementation gives the same
 * bits) or the stack states no setup, nothing is checked. How the GPUs are linked is the record's
 * `interconnect` where it states one (`interconnectFacts`: NVLink, P2P, multicast), else the
 * stack's; an interconnect the verifier does not know leaves the path unchecked (the caller
 * reports it: `unknownInterconnect`). A record may instead state `vllm-dispatch` (each message
 * took the dispatch's path for its size, NCCL as its `nccl` settings say):
 * `vllmDispatchedAllReduce` then resolves each message's implementation for the replay, and a
 * message the dispatch sends to NCCL with no NCCL settings stated FAILs.
 *
 * @module
 */
import {
  allReducePathOf,
  type ClaimedAllReduce,
  type ClaimedNcclAllReduce,
  interconnectFacts,
  INTERCONNECTS,
  isInterconnect,
  isModelledAllReduceKind,
  type StackProfile,
  VLLM_DISPATCH,
  type VllmAllReduceChoice,
  vllmAllReducePath,
  vllmPaddedTokens,
} from "../kernels/mod.ts";
import { ForwardUnsupported, type TensorParallel } from "../model/mod.ts";

/** The messages a split's all-reduces carry, as the dispatch reads them. */
export interface AllReduceMessages {
  /** The device's compute capability, e.g. `8.0`. */
  readonly deviceCapability: string;
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
 * The contradiction between a named all-reduce and the stack's dispatch, if any.
 *
 * @param stack the stack (its `allReduceSetup` and CUDA-graph capture sizes)
 * @param o the device's compute capability, the split, the hidden size, each pass's token count
 *   (unpadded: the stack's capture sizes pad it), whether the record named its all-reduce and the
 *   interconnect it states
 * @returns null when consistent or not checkable, else the reason
 * @example
 * ```ts ignore
 * const why = allReduceDispatchMismatch(stack, { deviceCapability: "8.0", parallel, hidden, passRows: [15], named: true });
 * ```
 */
export function allReduceDispatchMismatch(
  stack: StackProfile,
  o: AllReduceMessages & {
    readonly named: boolean;
    /** Who named the all-reduce, as the reason says it (default `record`; a CLI flag). */
    readonly subject?: string;
  },
): string | null {
  const tp = o.parallel;
  const dispatch = _dispatchOf(stack, o);
  if (dispatch === null || tp === undefined || !o.named) return null;
  const claimed = tp.allReduce;
  const subject = o.subject ?? "record";
  for (const { choice, message } of _messages(stack, dispatch, { ...o, size: tp.size })) {
    if (claimed.kind === VLLM_DISPATCH) {
      if (choice.path === "nccl" && claimed.nccl === undefined) {
        return `${subject} states all-reduce '${VLLM_DISPATCH}' without NCCL settings, but stack ` +
          `'${stack.id}' sends ${message} to NCCL`;
      }
      continue;
    }
    if (choice.path !== allReducePathOf(claimed.kind)) {
      return `${subject} names all-reduce '${claimed.kind}', but stack '${stack.id}' runs ` +
        `${choice.path} for ${message}; state '${VLLM_DISPATCH}' to have each message's path ` +
        "recomputed";
    }
  }
  return null;
}

/**
 * Where a split's all-reduces go through NCCL: its named NCCL ring or tree, or under a recorded
 * `vllm-dispatch` the first message the stack's dispatch sends to NCCL (each pass's launch rows
 * times the hidden size, as {@link allReduceDispatchMismatch} reads them).
 *
 * @param stack the stack (its `allReduceSetup` and CUDA-graph capture sizes)
 * @param o the device's compute capability, the split, the hidden size, each pass's token count
 *   and the record's interconnect
 * @returns what NCCL reduces, for a message, or null when NCCL reduces none of the split's
 *   messages (another implementation, one rank, or a dispatch that cannot be resolved)
 * @example
 * ```ts ignore
 * ncclAllReduceUse(stack, { deviceCapability: "8.0", parallel, hidden: 256, passRows: [16] });
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
  const dispatch = kind === VLLM_DISPATCH ? _dispatchOf(stack, o) : null;
  if (dispatch === null) return null;
  for (const { choice, message } of _messages(stack, dispatch, { ...o, size: tp.size })) {
    if (choice.path === "nccl") return `stack '${stack.id}' sends ${message} to NCCL`;
  }
  return null;
}

/**
 * Each distinct message of a record's passes (launch rows as the stack's CUDA graphs pad them,
 * times the hidden size, in BF16) with the dispatch's choice for it and a description.
 */
function* _messages(
  stack: StackProfile,
  dispatch: NonNullable<ReturnType<typeof _dispatchOf>>,
  o: { readonly size: number; readonly hidden: number; readonly passRows: readonly number[] },
): Generator<{ choice: VllmAllReduceChoice; message: string }> {
  const sizes = stack.operators?.cudaGraphs?.captureSizes;
  for (const rows of new Set(o.passRows)) {
    const launch = sizes === undefined ? rows : vllmPaddedTokens(rows, sizes);
    const messageBytes = launch * o.hidden * 2;
    const choice = dispatch.choose(o.size, messageBytes);
    const message = `a message of ${messageBytes} bytes (${launch} row${
      launch === 1 ? "" : "s"
    }) on ${o.size} ranks ${dispatch.where} (${choice.rule})`;
    yield { choice, message };
  }
}

/**
 * The all-reduce of each message under a recorded `vllm-dispatch`: the path vLLM's dispatch takes
 * for the message's size on the stack's setup and the record's links (the stack's where the
 * record states none), with the record's NCCL settings for the NCCL path.
 *
 * @param stack the stack (its `allReduceSetup`)
 * @param o the group size, the device's compute capability, the record's interconnect and NCCL
 *   settings
 * @returns the implementation of a message of `count` BF16 elements (it throws
 *   `ForwardUnsupported` for a path that is not modelled, or NCCL without settings), or why none
 *   can be resolved (the stack states no setup; an interconnect the dispatch is not modelled on)
 * @example
 * ```ts ignore
 * const per = vllmDispatchedAllReduce(stack, { worldSize: 4, deviceCapability: "8.0" });
 * if (typeof per !== "string") per(64 * 4096).kind; // "vllm-custom-1stage"
 * ```
 */
export function vllmDispatchedAllReduce(
  stack: StackProfile,
  o: {
    readonly worldSize: number;
    readonly deviceCapability: string;
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
    const choice = dispatch.choose(o.worldSize, count * 2);
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
 * vLLM's dispatch on a stack's setup and a group's links: the record's interconnect where it
 * states one, else the stack's; null when the stack states no setup or the interconnect is not
 * one the dispatch is modelled on.
 */
function _dispatchOf(
  stack: StackProfile,
  o: { readonly deviceCapability: string; readonly interconnect?: string | undefined },
): {
  readonly choose: (worldSize: number, messageBytes: number) => VllmAllReduceChoice;
  readonly where: string;
} | null {
  const setup = stack.operators?.allReduceSetup;
  if (setup === undefined) return null;
  const stated = o.interconnect;
  if (stated !== undefined && !isInterconnect(stated)) return null;
  const links = stated === undefined
    ? { fullyConnected: setup.fullyConnected, p2p: true, multicast: setup.multicast }
    : interconnectFacts(stated);
  return {
    where: stated === undefined
      ? `as stack '${stack.id}' states its GPUs linked`
      : `on the record's interconnect '${stated}'`,
    choose: (worldSize, messageBytes) =>
      vllmAllReducePath({
        worldSize,
        messageBytes,
        deviceCapability: o.deviceCapability,
        fullyConnected: links.fullyConnected,
        multicast: links.multicast,
        customAllReduce: setup.customAllReduce && links.p2p,
        useTorchSymmMem: setup.torchSymmMem,
        useNcclSymmMem: setup.ncclSymmMem,
        ...(setup.customAllReduceAlgo === undefined
          ? {}
          : { customAllReduceAlgo: setup.customAllReduceAlgo }),
      }),
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
