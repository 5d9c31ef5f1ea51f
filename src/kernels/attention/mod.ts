/**
 * FlashAttention-2 forward as the GPU computes it, bit for bit: the two builds as data
 * ({@link FA2_DAO_FASTMATH}, {@link FA2_PYTORCH_BUNDLED}), tile sizes per architecture, the
 * split-KV heuristic, and the standard forward kernel for prefill (causal or not, GQA, varlen).
 * Split-KV launches (and so most decode steps) are refused, not approximated.
 *
 * @example
 * ```ts
 * import { fa2NumSplits, fa2Tiles, FA2_DAO_FASTMATH } from "./mod.ts";
 * if (fa2Tiles("sm_80", { headDim: 128, causal: true }).blockN !== 64) throw new Error();
 * const shape = { batch: 1, heads: 32, kvHeads: 8, seqlenQ: 1, seqlenK: 4000, headDim: 128 };
 * if (fa2NumSplits({ ...shape, multiProcessorCount: 132 }) !== 32) throw new Error(); // decode, H100
 * if (FA2_DAO_FASTMATH.exp2Argument !== "ffma") throw new Error();
 * ```
 * @module
 */
export * from "./fa2_build.ts";
export * from "./fa2_tiles.ts";
export * from "./fa2_num_splits.ts";
export * from "./flash_attention_forward.ts";
