/**
 * Block claims: the attention block and the FFN block of a dense decoder layer (Qwen3), each
 * planned first (every kernel fixed, or the reason the configuration cannot be emulated) and then
 * run as the one decoder layer's sublayer (`../decoder/`), whose observer hands back every
 * intermediate for comparison with a GPU capture.
 *
 * @example
 * ```ts
 * import { planFfnBlock, runFfnBlock } from "./mod.ts";
 * import { fixedRecipeDispatch } from "../decoder/mod.ts";
 * import { createSfu, parseGpuProfile } from "../../hardware/mod.ts";
 * import { parseStackProfile, referenceKWalker } from "../../kernels/mod.ts";
 * const profile = parseGpuProfile(JSON.parse(Deno.readTextFileSync(
 *   new URL("../../../profiles/gpu/a100.json", import.meta.url),
 * )));
 * const stack = parseStackProfile({
 *   schema: "bitaudit.stack-profile/v1", id: "hf", name: "HF", components: {},
 *   gemm: { kernelSource: "recipe" }, sfu: { mode: "ieee", minimumStatus: "ieee-exact" },
 *   operators: { torch: "2.8.0", attention: "fa2-pytorch-bundled" }, sources: [],
 * });
 * const runtime = {
 *   profile, stack, gemm: fixedRecipeDispatch({ family: "single_walk" }),
 *   walker: referenceKWalker, sfu: createSfu({ mode: "ieee" }),
 * };
 * const shape = { hidden: 4, intermediate: 8, heads: 1, kvHeads: 1, headDim: 128 };
 * const planned = planFfnBlock(2, { shape, runtime });
 * if (!planned.supported) throw new Error(planned.reason);
 * const ones = (n: number) => new Uint16Array(n).fill(0x3f80);
 * const r = await runFfnBlock(ones(8), {
 *   plan: planned.plan, runtime,
 *   weights: { norm: ones(4), gate: ones(32), up: ones(32), down: ones(32) },
 * });
 * if (r.out.length !== 8 || r.sfu.map((u) => u.fn).join() !== "ex2,rsqrt") throw new Error();
 * ```
 * @module
 */
export {
  type AttentionBlockOptions,
  type AttentionBlockPlan,
  type AttentionBlockResult,
  type AttentionBlockWeights,
  planAttentionBlock,
  type RopeSource,
  runAttentionBlock,
} from "./attention_block.ts";
export { type BlockPlanBase, type BlockSupport } from "./block_support.ts";
export {
  type FfnBlockPlan,
  type FfnBlockResult,
  type FfnBlockWeights,
  planFfnBlock,
  runFfnBlock,
} from "./ffn_block.ts";
export { checkDenseLayerShape, type DenseLayerShape, QWEN3_4B_LAYER } from "./layer_shape.ts";
export { checkSfuUsage, type SfuUsageCheck, type SfuUse } from "./sfu_usage.ts";
