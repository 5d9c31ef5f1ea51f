/**
 * FlashAttention-2 forward as the GPU computes it, bit for bit: the two builds as data
 * ({@link FA2_DAO_FASTMATH}, {@link FA2_PYTORCH_BUNDLED}), tile sizes per head dimension (64, 96,
 * 128, 256: {@link FA2_TILES}) and architecture, the split-KV heuristic, the standard forward kernel for prefill (causal or not, GQA, varlen), and
 * the split-KV kernel with its combine ({@link fa2CombineRow}) for the launches the heuristic
 * splits: short prefills on many SMs and decode (S_q = 1, with the GQA swap). The rescale takes
 * a row max of -inf as 0 only on the kernel's masking iterations ({@link fa2MaskingSteps}), so a
 * row whose every score is -inf gets NaN where FA2's source says so. Each split's key blocks
 * follow the launch's longest key length (Dao) or each sequence's own (vllm-flash-attn:
 * {@link fa2BlocksPerSplit}). Each result names
 * the MUFU functions it depends on ({@link fa2SfuFunctions}); split-KV needs MUFU.LG2, whose
 * table model is `model-only`. `mha_fwd_kvcache` (forced split kernel, `Split = false`) is not
 * modelled.
 *
 * A launch is also available as plain data and per-head work, for runners that spread heads over
 * threads (`src/engine`'s FA2 pool): {@link planFa2} fixes every decision in a structured-cloneable
 * {@link Fa2Plan}, and {@link fa2Head} computes one query head into the output buffers; heads never
 * mix, so any order on any thread gives `flashAttentionForward`'s bits. This folder starts no
 * thread.
 *
 * @example
 * ```ts
 * import {
 *   FA2_DAO_FASTMATH, fa2Head, fa2NumSplits, fa2Result, fa2Runner, fa2SfuFunctions, fa2Sinks,
 *   fa2Tiles, flashAttentionForward, planFa2,
 * } from "./mod.ts";
 * import { createSfu, kWalkReference, parseGpuProfile } from "../../hardware/mod.ts";
 * if (fa2Tiles("sm_80", { headDim: 128, causal: true }).blockN !== 64) throw new Error();
 * if (fa2Tiles("sm_90", { headDim: 256, causal: true }).blockM !== 64) throw new Error();
 * const shape = { batch: 1, heads: 32, kvHeads: 8, seqlenQ: 1, seqlenK: 4000, headDim: 128 };
 * if (fa2NumSplits({ ...shape, multiProcessorCount: 132 }) !== 32) throw new Error(); // decode, H100
 * if (FA2_DAO_FASTMATH.exp2Argument !== "ffma") throw new Error();
 * if (!fa2SfuFunctions(FA2_DAO_FASTMATH, { splits: 32 }).includes("lg2")) throw new Error();
 *
 * // A launch as a plan plus per-head work (what a thread pool runs), equal to the forward:
 * const json = JSON.parse(Deno.readTextFileSync(new URL("../../../profiles/gpu/a100.json", import.meta.url)));
 * const x = new Uint16Array(2 * 3 * 128).map((_, i) => 0x3f00 + (i % 97));
 * const options = {
 *   heads: 2, kvHeads: 1, headDim: 128, causal: true, build: FA2_DAO_FASTMATH,
 *   profile: parseGpuProfile(json), mufu: createSfu({ mode: "ieee" }), multiProcessorCount: 108,
 * };
 * const inputs = { q: x, k: x.subarray(0, 3 * 128), v: x.subarray(3 * 128) };
 * const { plan, mufu } = planFa2(inputs, options);
 * const runner = fa2Runner(plan.build, { mufu, kWalk: kWalkReference });
 * const sinks = fa2Sinks(plan);
 * for (const h of [1, 0]) fa2Head(plan, { runner, inputs, h, sinks }); // any order
 * const ref = flashAttentionForward(inputs, options).out;
 * if (fa2Result(plan, sinks).out.some((b, i) => b !== ref[i])) throw new Error();
 * ```
 * @module
 */
export { type Fa2Arith, type Fa2Mufu } from "./_fa2_arith.ts";
export { type Fa2Sequence } from "./_fa2_launch.ts";
export { type Fa2Launch } from "./_fa2_query_tile.ts";
export { type Fa2KvTile, type SyncKWalk } from "./_fa2_tile_walk.ts";
export {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  type Fa2Build,
  fa2Build,
  type Fa2BuildId,
} from "./fa2_build.ts";
export { type Fa2CombinedRow, fa2CombineRow, type Fa2SplitPartials } from "./fa2_combine.ts";
export { type Fa2MaskingLaunch, fa2MaskingSteps } from "./fa2_masking_steps.ts";
export { fa2NumSplits, type Fa2SplitShape } from "./fa2_num_splits.ts";
export {
  type AttentionInputs,
  type Fa2Forward,
  type Fa2LaunchShape,
  type FlashAttentionOptions,
  type FlashAttentionResult,
} from "./fa2_options.ts";
export { type Fa2TileSoftmax, type Fa2TileSoftmaxTile } from "./fa2_tile_softmax.ts";
export { fa2KeptTileKey, type Fa2KvCache, fa2KvCache } from "./fa2_kv_cache.ts";
export {
  fa2Head,
  fa2KvGroup,
  fa2KvGroupBatch,
  type Fa2Plan,
  fa2Result,
  type Fa2Runner,
  fa2Runner,
  type Fa2Sinks,
  fa2Sinks,
  planFa2,
} from "./fa2_plan.ts";
export { type Fa2SfuFunction, fa2SfuFunctions } from "./fa2_sfu_functions.ts";
export { FA2_SPLIT_RANGES, fa2BlocksPerSplit, type Fa2SplitRange } from "./fa2_split_range.ts";
export {
  FA2_COMBINE_BLOCK_M,
  FA2_SPLIT_TILES,
  FA2_SPLIT_TILES_BY_HEAD_DIM,
  fa2CombineBlockM,
  fa2SplitTiles,
} from "./fa2_split_tiles.ts";
export {
  FA2_HDIM128_TILES,
  FA2_HDIM256_TILES,
  FA2_HDIM64_TILES,
  FA2_HDIM96_TILES,
  FA2_HEAD_DIMS,
  FA2_TILES,
  type Fa2HeadDim,
  type Fa2TileChoice,
  type Fa2Tiles,
  fa2Tiles,
  isFa2HeadDim,
} from "./fa2_tiles.ts";
export { flashAttentionForward } from "./flash_attention_forward.ts";
export {
  checkFa2Batch,
  type Fa2BatchForward,
  type Fa2BatchLaunch,
  flashAttentionBatch,
} from "./fa2_batch.ts";
