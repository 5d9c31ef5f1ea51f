/**
 * FlashAttention-2 forward as the GPU computes it, bit for bit: the two builds as data
 * ({@link FA2_DAO_FASTMATH}, {@link FA2_PYTORCH_BUNDLED}), tile sizes per architecture, the
 * split-KV heuristic, the standard forward kernel for prefill (causal or not, GQA, varlen), and
 * the split-KV kernel with its combine ({@link fa2CombineRow}) for the launches the heuristic
 * splits: short prefills on many SMs and decode (S_q = 1, with the GQA swap). Each result names
 * the MUFU functions it depends on ({@link fa2SfuFunctions}); split-KV needs MUFU.LG2, whose
 * table model is `model-only`. `mha_fwd_kvcache` (forced split kernel, `Split = false`) is not
 * modelled.
 *
 * @example
 * ```ts
 * import { fa2NumSplits, fa2SfuFunctions, fa2Tiles, FA2_DAO_FASTMATH } from "./mod.ts";
 * if (fa2Tiles("sm_80", { headDim: 128, causal: true }).blockN !== 64) throw new Error();
 * const shape = { batch: 1, heads: 32, kvHeads: 8, seqlenQ: 1, seqlenK: 4000, headDim: 128 };
 * if (fa2NumSplits({ ...shape, multiProcessorCount: 132 }) !== 32) throw new Error(); // decode, H100
 * if (FA2_DAO_FASTMATH.exp2Argument !== "ffma") throw new Error();
 * if (!fa2SfuFunctions(FA2_DAO_FASTMATH, { splits: 32 }).includes("lg2")) throw new Error();
 * ```
 * @module
 */
export * from "./fa2_build.ts";
export * from "./fa2_tiles.ts";
export * from "./fa2_num_splits.ts";
export * from "./fa2_sfu_functions.ts";
export * from "./fa2_combine.ts";
export * from "./flash_attention_forward.ts";
export * from "./fa2_pool.ts";
export type { Fa2Mufu } from "./_fa2_arith.ts";
export type { SyncKWalk } from "./_fa2_tile_walk.ts";
