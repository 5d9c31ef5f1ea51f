/**
 * The tensor-parallel split a pass runs with on a stack, resolved once for the verifier (a
 * record's claim), the simulated prover (a scenario's topology) and the CLI (`--tp`): the stack's
 * layout, and the all-reduce checked against what the layout's collective library runs. At two
 * ranks every implementation adds once and rounds once, so an absent all-reduce stands for the
 * layout's first.
 *
 * @module
 */
import {
  type ClaimedAllReduce,
  claimedAllReduceUnsupported,
  INTERCONNECTS,
  type StackProfile,
  tensorParallelLayout,
  VLLM_DISPATCH,
  vllmExpertParallelContradiction,
} from "../kernels/mod.ts";
import {
  type DispatchGpu,
  unknownInterconnect,
  vllmDispatchedAllReduce,
} from "./all_reduce_dispatch.ts";
import { type DecoderConfig, splitContradiction, type TensorParallel } from "../model/mod.ts";

/** The split, or why it cannot run: not modelled, or contradicting the stack or itself. */
export type TensorParallelResolution =
  | { readonly ok: true; readonly parallel: TensorParallel | undefined }
  | { readonly ok: false; readonly kind: "unmodelled" | "contradiction"; readonly reason: string };

/**
 * Resolves a topology on a stack.
 *
 * @param stack the stack profile
 * @param o tensor-, expert- and data-parallel sizes (`dp` default 1), the all-reduce, if named,
 *   and for a recorded `vllm-dispatch` the GPU part (its compute capability and links) and the
 *   record's interconnect (`links`), which decide each message's path
 * @returns the split (undefined for one rank), or the reason: an expert-parallel size vLLM never
 *   runs with (`vllmExpertParallelContradiction`, for every model) is a contradiction, decided
 *   before anything is said to be unmodelled. The verifier's `_claimedWorld` runs the same check
 *   on every record before any branch resolves its split, so in an audit it cannot fire here; it
 *   serves the other callers (`claims append`, `model forward`, `model classes`, the simulated
 *   prover's scenarios)
 * @example
 * ```ts ignore
 * const r = tensorParallelOf(stack, { tp: 2, ep: 1 });
 * ```
 */
export function tensorParallelOf(
  stack: StackProfile,
  o: {
    readonly tp: number;
    readonly ep: number;
    readonly dp?: number;
    readonly allReduce?: ClaimedAllReduce | undefined;
    readonly links?: {
      readonly gpu: DispatchGpu;
      readonly interconnect?: string | undefined;
    } | undefined;
  },
): TensorParallelResolution {
  const unmodelled = (reason: string) => ({ ok: false, kind: "unmodelled", reason }) as const;
  const contradiction = (reason: string) => ({ ok: false, kind: "contradiction", reason }) as const;
  const epRun = vllmExpertParallelContradiction(stack, { tp: o.tp, dp: o.dp ?? 1, ep: o.ep });
  if (epRun !== null) return contradiction(epRun);
  if (o.tp === 1) {
    if (o.allReduce !== undefined) return contradiction("an all-reduce is named with tp=1");
    return o.ep === 1
      ? { ok: true, parallel: undefined }
      : unmodelled(`expert parallelism (ep=${o.ep}) is not modelled`);
  }
  const id = stack.operators?.tensorParallel;
  if (id === undefined) {
    return unmodelled(
      `stack '${stack.id}' declares no tensor-parallel layout: tp=${o.tp} is not modelled for it`,
    );
  }
  const layout = tensorParallelLayout(id);
  // An expert-parallel split that is not modelled is said only once the record's contradictions
  // with its stack are ruled out: it must not stand in for a FAIL.
  let epGap: string | null = null;
  if (o.ep !== 1) {
    if (layout.expertParallel !== null) epGap = `ep=${o.ep}: ${layout.expertParallel}`;
    else if (o.ep !== o.tp) {
      epGap = `ep=${o.ep} with tp=${o.tp}: experts split over other ranks than the ` +
        "tensor-parallel group (across data-parallel ranks, all-to-all dispatch) are not " +
        "modelled; ep = tp is";
    }
  }
  const resolved = (parallel: TensorParallel): TensorParallelResolution =>
    epGap === null ? { ok: true, parallel } : unmodelled(epGap);
  const ep = o.ep !== 1 ? { expertParallel: true } : {};
  if (o.allReduce === undefined) {
    if (o.tp !== 2) {
      return contradiction(
        `tp=${o.tp} without an all-reduce (only at tp=2 do all implementations agree)`,
      );
    }
    // Any implementation gives two ranks' sum the same bits; NCCL's ring takes every message
    // (vLLM's custom kernel needs 16-byte packs and sends the others to NCCL).
    const kind = (layout.allReduce as readonly string[]).includes("nccl-ring")
      ? "nccl-ring"
      : layout.allReduce[0]!;
    return resolved({ size: 2, layout, allReduce: _twoRanks(kind), ...ep });
  }
  if (o.allReduce.kind === VLLM_DISPATCH) {
    // The dispatch picks among the layout's implementations message by message.
    if (!(layout.allReduce as readonly string[]).includes("vllm-custom-1stage")) {
      return contradiction(
        `stack '${stack.id}' (layout '${layout.id}') does not run vLLM's all-reduce dispatch: ` +
          `name ${layout.allReduce.join(" or ")}`,
      );
    }
    if (o.links === undefined) {
      return unmodelled(`'${VLLM_DISPATCH}' needs the device to resolve each message's path`);
    }
    // The links decide every message's path: a record on links the dispatch is not modelled on
    // describes no computation that can be replayed, and must not stand in for a FAIL.
    const links = o.links.interconnect;
    if (links !== undefined && unknownInterconnect(links) !== null) {
      return contradiction(
        `'${VLLM_DISPATCH}' is stated on interconnect '${links}', on which no message's path ` +
          `can be recomputed (${INTERCONNECTS.join(", ")})`,
      );
    }
    const per = vllmDispatchedAllReduce(stack, {
      worldSize: o.tp,
      gpu: o.links.gpu,
      interconnect: o.links.interconnect,
      nccl: o.allReduce.nccl,
    });
    if (typeof per === "string") return unmodelled(per);
    return resolved({ size: o.tp, layout, allReduce: o.allReduce, messageAllReduce: per, ...ep });
  }
  // An all-reduce kind no layout models (NCCL's NVLS) may still be what the library ran.
  const why = claimedAllReduceUnsupported(o.allReduce);
  if (why !== null) return unmodelled(why);
  if (!(layout.allReduce as readonly string[]).includes(o.allReduce.kind)) {
    return contradiction(
      `stack '${stack.id}' (layout '${layout.id}') all-reduces with ` +
        `${layout.allReduce.join(" or ")}, not '${o.allReduce.kind}'`,
    );
  }
  return resolved({ size: o.tp, layout, allReduce: o.allReduce, ...ep });
}

/**
 * Why the stack's tensor-parallel layout can never split this checkpoint over `tp` ranks
 * (`splitContradiction`: the engine refuses it at start-up), or null (one rank, a stack without
 * a layout, or a split that can run). The verifier FAILs such a record; `claims append`,
 * `model forward` and `model classes` refuse it.
 *
 * @param stack the stack profile
 * @param o the rank count, the expert-parallel and data-parallel degrees (default 1) and the
 *   checkpoint's config
 * @returns the reason (one line), or null
 * @example
 * ```ts ignore
 * const why = stackSplitContradiction(stack, { tp: 3, config: ckpt.config });
 * ```
 */
export function stackSplitContradiction(
  stack: StackProfile,
  o: {
    readonly tp: number;
    readonly ep?: number;
    readonly dp?: number;
    readonly config: DecoderConfig;
  },
): string | null {
  const id = stack.operators?.tensorParallel;
  const ep = o.ep ?? 1, dp = o.dp ?? 1;
  if (id === undefined || (o.tp === 1 && ep === 1 && dp === 1)) return null;
  return splitContradiction(o.config, { size: o.tp, layout: tensorParallelLayout(id), ep, dp });
}

function _twoRanks(kind: string): ClaimedAllReduce {
  if (kind === "nccl-tree") return { kind, protocol: "simple", trees: [{ down: [[1], []] }] };
  if (kind === "nccl-ring") {
    return { kind, protocol: "simple", chunkBytes: 1 << 21, rings: [[0, 1]] };
  }
  return { kind } as ClaimedAllReduce;
}
