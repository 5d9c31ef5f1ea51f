/**
 * MoE expert implementations a software stack can run, as data: which one this emulator models
 * and, for the others, why not (spec `stack_pytorch_hf.md` §1.7).
 *
 * @module
 */

/** Expert implementations a stack profile can name. */
export const MOE_EXPERTS_IDS = [
  "hf-loop-index-add",
  "hf-batched-mm",
  "hf-grouped-mm",
  "fused-moe",
  "vllm-fused-moe",
] as const;
Object.freeze(MOE_EXPERTS_IDS);

/** One of {@link MOE_EXPERTS_IDS}. */
export type MoeExpertsId = typeof MOE_EXPERTS_IDS[number];

const _UNMODELLED: Readonly<Record<string, string>> = Object.freeze({
  "hf-batched-mm": "HF 5.x batched_mm experts (per-pair GEMVs and a BF16 sum over the top-k " +
    "dimension whose Reduce.cuh configuration is not pinned) are not modelled",
  "hf-grouped-mm": "HF 5.x grouped_mm experts run CUTLASS grouped GEMMs whose tiling is not " +
    "modelled",
  "fused-moe": "fused grouped-GEMM MoE kernels other than vLLM 0.11's Triton fused_moe (SGLang, " +
    "CUTLASS, DeepGEMM, FlashInfer) are not modelled",
});

/**
 * Tells whether an expert implementation is modelled: `hf-loop-index-add` is HF 4.5x's
 * `Qwen3MoeSparseMoeBlock` (ModuleList experts visited in ascending id, three GEMMs each with M =
 * routed tokens, BF16 `index_add_` with one rounding per add); `vllm-fused-moe` is vLLM 0.11's
 * Triton `fused_moe` with its CUDA `topk_softmax` and `moe_sum` (sm_8x, top-k 2 to 15: the block
 * refuses the rest with the reason).
 *
 * @param id implementation name from a stack profile
 * @returns null when modelled, else the reason
 * @example
 * ```ts
 * import { moeExpertsUnsupported } from "./moe_experts.ts";
 * if (moeExpertsUnsupported("hf-loop-index-add") !== null) throw new Error();
 * if (!moeExpertsUnsupported("fused-moe")!.includes("fused")) throw new Error();
 * if (moeExpertsUnsupported("vllm-fused-moe") !== null) throw new Error();
 * ```
 */
export function moeExpertsUnsupported(id: MoeExpertsId): string | null {
  return _UNMODELLED[id] ?? null;
}
