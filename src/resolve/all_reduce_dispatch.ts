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
 * reports it: `unknownInterconnect`).
 *
 * @module
 */
import {
  allReducePathOf,
  interconnectFacts,
  INTERCONNECTS,
  isInterconnect,
  type StackProfile,
  vllmAllReducePath,
  vllmPaddedTokens,
} from "../kernels/mod.ts";
import type { TensorParallel } from "../model/mod.ts";

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
  o: {
    readonly deviceCapability: string;
    readonly parallel: TensorParallel | undefined;
    readonly hidden: number;
    readonly passRows: readonly number[];
    readonly named: boolean;
    readonly interconnect?: string | undefined;
  },
): string | null {
  const setup = stack.operators?.allReduceSetup;
  const tp = o.parallel;
  if (setup === undefined || tp === undefined || !o.named) return null;
  const stated = o.interconnect;
  if (stated !== undefined && !isInterconnect(stated)) return null;
  const links = stated === undefined
    ? { fullyConnected: setup.fullyConnected, p2p: true, multicast: setup.multicast }
    : interconnectFacts(stated);
  const where = stated === undefined
    ? `as stack '${stack.id}' states its GPUs linked`
    : `on the record's interconnect '${stated}'`;
  const claimed = allReducePathOf(tp.allReduce.kind);
  const sizes = stack.operators?.cudaGraphs?.captureSizes;
  for (const rows of new Set(o.passRows)) {
    const launch = sizes === undefined ? rows : vllmPaddedTokens(rows, sizes);
    const messageBytes = launch * o.hidden * 2;
    const choice = vllmAllReducePath({
      worldSize: tp.size,
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
    });
    if (choice.path !== claimed) {
      return `record names all-reduce '${tp.allReduce.kind}', but stack '${stack.id}' runs ` +
        `${choice.path} for a message of ${messageBytes} bytes (${launch} rows) on ${tp.size} ` +
        `ranks ${where} (${choice.rule})`;
    }
  }
  return null;
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
