/**
 * The one place a driver learns which operator implementations a stack runs (`stackOperators`):
 * the attention backend for that driver (from `attentionBackend`), the norms' and reductions'
 * kernel trees (from the PyTorch release, `reduceStackForTorch`), the activation, the MoE experts
 * (from `moeExpertsUnsupported`) and the batch layout; or, for the first operator that is not
 * modelled, why. The prefill forward, the serving replay and the block claims read it instead of
 * each checking ids.
 *
 * @module
 */
import type { Fa2Build, Fa2SplitRange } from "./attention/mod.ts";
import {
  attentionBackend,
  type AttentionBackendId,
  type AttentionDriver,
} from "./attention_backend.ts";
import { type LayerKernels, layerKernels } from "./layer_kernels.ts";
import { type MoeExpertsId, moeExpertsUnsupported } from "./moe_experts.ts";
import { type ReduceStack, reduceStackForTorch } from "./reduce/mod.ts";
import type { StackProfile } from "./stack_profile.ts";

/** The operator implementations a driver runs under a stack. */
export interface StackOperators {
  /** `torch.__version__` (softmax and reduce kernels). */
  readonly torch: string;
  /**
   * The attention backend and its FA2 build (null: HF's eager attention); null when the caller
   * runs no attention (an FFN block claim).
   */
  readonly attention: {
    readonly id: AttentionBackendId;
    readonly build: Fa2Build | null;
    /** PyTorch SDPA: its bundled FA2 is reached only without a mask. */
    readonly sdpa: boolean;
    /** K and V come from a paged cache (vLLM): FA2's split kernel always runs. */
    readonly paged: boolean;
    /** What fixes each split's key blocks (`fa2BlocksPerSplit`; vLLM's FA2: `sequence`). */
    readonly splitRange: Fa2SplitRange;
  } | null;
  /** RMSNorm, QK-norm and router reductions: PyTorch's reduce kernel of this release. */
  readonly reduceStack: ReduceStack;
  /** The kernels of the layer's norms, RoPE and activation, and its projections' shape. */
  readonly layer: LayerKernels;
  /**
   * The CUDA-graph capture sizes a pass's non-attention kernels are padded to (piecewise graphs:
   * GEMM M, norm launches and all-reduce messages follow the padded token count); null when
   * every pass runs at its own size.
   */
  readonly captureSizes: readonly number[] | null;
  /**
   * Uniform decode batches up to the largest capture size replay a full CUDA graph
   * (FULL_AND_PIECEWISE, vLLM 0.11's default mode): such passes are not modelled
   * ({@link FULL_GRAPH_DECODE_REASON}); every other pass runs piecewise.
   */
  readonly fullGraphDecode: boolean;
  /** How MoE experts run (modelled), when the model has experts. */
  readonly experts?: MoeExpertsId;
  /** How a batch becomes GEMM rows. */
  readonly batching: "pad-to-longest" | "flatten";
}

/**
 * Why a pass that replayed a full CUDA graph cannot be emulated: the attention launch (FA2's
 * split count and grid, from the shapes the metadata builder gave at capture) is fixed when the
 * graph is captured, which is not modelled.
 */
export const FULL_GRAPH_DECODE_REASON: string =
  "under cudagraph_mode FULL_AND_PIECEWISE (vLLM 0.11's " +
  "default) a uniform decode batch up to the largest capture size replays a full CUDA graph whose " +
  "attention launch was fixed at capture, which is not modelled; run with cudagraph_mode " +
  "PIECEWISE or --enforce-eager";

/**
 * Whether a pass replayed a full CUDA graph: every entry decodes one token (a uniform decode
 * batch) and its tokens fit the largest capture size.
 *
 * @param ops the stack's operators
 * @param queries each entry's new tokens
 * @returns true when the pass ran in a full graph
 * @example
 * ```ts
 * import { fullGraphPass } from "./stack_operators.ts";
 * const ops = { fullGraphDecode: true, captureSizes: [1, 2, 4, 8] };
 * if (!fullGraphPass(ops, [1, 1]) || fullGraphPass(ops, [1, 3])) throw new Error();
 * if (fullGraphPass(ops, Array(9).fill(1))) throw new Error(); // above 8: no graph
 * ```
 */
export function fullGraphPass(
  ops: Pick<StackOperators, "fullGraphDecode" | "captureSizes">,
  queries: readonly number[],
): boolean {
  const sizes = ops.captureSizes;
  if (!ops.fullGraphDecode || sizes === null || queries.length === 0) return false;
  return queries.every((q) => q === 1) && queries.length <= sizes[sizes.length - 1]!;
}

/** The operators, or why the stack cannot be emulated in this driver. */
export type StackOperatorsSupport =
  | { readonly supported: true; readonly ops: StackOperators }
  | { readonly supported: false; readonly reason: string };

/**
 * Resolves a stack's operators for a driver.
 *
 * @param stack the stack profile
 * @param o the driver (`prefill`, `serving`, `block`), whether the model has MoE experts, and
 *   whether the caller runs attention (default true; an FFN block claim does not)
 * @returns the operators, or the reason
 * @example
 * ```ts
 * import { stackOperators } from "./stack_operators.ts";
 * import { parseStackProfile } from "./stack_profile.ts";
 * const stack = parseStackProfile({
 *   schema: "bitaudit.stack-profile/v1", id: "s", name: "S", components: {},
 *   gemm: { kernelSource: "recipe" }, sources: [],
 *   operators: { torch: "2.8.0", attention: "cudnn-sdpa" },
 * });
 * const r = stackOperators(stack, { driver: "prefill", moe: false });
 * if (r.supported || !r.reason.includes("cudnn-sdpa")) throw new Error();
 * ```
 */
export function stackOperators(
  stack: StackProfile,
  o: { readonly driver: AttentionDriver; readonly moe: boolean; readonly attention?: boolean },
): StackOperatorsSupport {
  const no = (reason: string) => ({ supported: false, reason }) as const;
  const ops = stack.operators;
  if (ops === undefined) return no(`stack '${stack.id}' declares no operators section`);
  const backend = o.attention === false ? null : attentionBackend(ops.attention, o.driver);
  if (backend !== null && !backend.modelled) {
    return no(`attention backend '${backend.id}': ${backend.reason}`);
  }
  const layer = layerKernels(ops.layerKernels ?? "torch");
  if (!layer.modelled) return no(`layer kernels '${ops.layerKernels}': ${layer.reason}`);
  const graphs = ops.cudaGraphs;
  let experts: MoeExpertsId | undefined;
  if (o.moe) {
    if (ops.experts === undefined) {
      return no(`stack '${stack.id}' names no MoE experts implementation`);
    }
    const why = moeExpertsUnsupported(ops.experts);
    if (why !== null) return no(why);
    experts = ops.experts;
  }
  return {
    supported: true,
    ops: {
      torch: ops.torch,
      attention: backend === null ? null : {
        id: backend.id,
        build: backend.build,
        sdpa: backend.id === "fa2-pytorch-bundled",
        paged: backend.paged,
        splitRange: backend.splitRange,
      },
      reduceStack: reduceStackForTorch(ops.torch),
      layer: layer.kernels,
      captureSizes: graphs === undefined ? null : graphs.captureSizes,
      fullGraphDecode: graphs?.mode === "full-and-piecewise",
      ...(experts === undefined ? {} : { experts }),
      batching: ops.batching ?? "pad-to-longest",
    },
  };
}
