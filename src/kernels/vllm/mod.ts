/**
 * vLLM's CUDA custom ops (what `--enforce-eager` or `custom_ops=["all"]` runs instead of
 * Inductor-generated Triton kernels) as pure functions over bit patterns, each following the vLLM
 * source at commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main): RMSNorm
 * (`rms_norm`, `fused_add_rms_norm` with CUB's block reduction), `silu_and_mul`, and the rotary
 * embedding (the GPU-built cos/sin cache with libdevice `powf`, and the CUDA apply), the MoE
 * router (`topk_softmax`) and combine (`moe_sum`). Evidence for
 * all of them: derived from source only.
 *
 * @example
 * ```ts
 * import { vllmCosSinCache, vllmFusedAddRmsNorm, vllmRopeInvFreq, vllmRotaryEmbedding } from "./mod.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * const mufu = createSfu({ mode: "ieee", ftz: true });
 * const h = new Uint16Array(8).fill(0x3f80);
 * const norm = vllmFusedAddRmsNorm(h, { residual: h, rows: 1, hidden: 8, weight: h, mufu });
 * const cache = vllmCosSinCache(vllmRopeInvFreq(8, { base: 10000, mufu }), [0]);
 * const q = vllmRotaryEmbedding(norm.output, { cache, heads: 1, headSize: 8 });
 * if (q[0] !== norm.output[0]) throw new Error(); // position 0 rotates by nothing
 * ```
 * @module
 */
export { type CubBlockReduceOptions, cubBlockReduceSum } from "./cub_block_reduce.ts";
export { cudaPowf, type CudaPowfOptions } from "./cuda_powf.ts";
export {
  vllmFusedAddRmsNorm,
  vllmFusedAddRmsNormOfSum,
  type VllmFusedAddRmsNormOptions,
  type VllmFusedAddRmsNormResult,
  vllmFusedNormThreads,
} from "./vllm_fused_add_rms_norm.ts";
export {
  vllmRmsNorm,
  type VllmRmsNormOptions,
  type VllmRmsNormResult,
  vllmRmsNormThreads,
} from "./vllm_rms_norm.ts";
export {
  type VllmCosSinCache,
  vllmCosSinCache,
  vllmRopeInvFreq,
  type VllmRopeInvFreqOptions,
} from "./vllm_rope_cache.ts";
export { vllmRotaryEmbedding, type VllmRotaryEmbeddingOptions } from "./vllm_rotary_embedding.ts";
export { vllmSiluAndMul, type VllmSiluAndMulOptions } from "./vllm_silu_and_mul.ts";
export {
  vllmTopkSoftmax,
  type VllmTopkSoftmaxOptions,
  type VllmTopkSoftmaxResult,
} from "./vllm_topk_softmax.ts";
export { vllmMoeSum } from "./vllm_moe_sum.ts";
export { type CaptureSizeOptions, vllmCaptureSizes, vllmPaddedTokens } from "./cuda_graph_sizes.ts";
