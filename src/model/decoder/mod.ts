/**
 * The decoder layer every driver runs, written once: its sublayers (`attentionSublayer`,
 * `denseMlpSublayer`) over rows that ran in launches of recorded sizes, the one linear operation
 * (`linearRows`: dispatch by launch shape, bias epilogue), row-grouped RMSNorm, the RoPE
 * frequencies a config implies (`modelInvFreq`: theta, then linear or llama3 scaling), and the
 * "cannot be emulated" signal (`ForwardUnsupported`). What differs between families comes from
 * the config (`DecoderConfig` in `../checkpoint/`); what differs between drivers (the attention
 * core, MoE launches) is passed in. With tensor parallelism (`TensorParallel`) each rank runs its
 * heads and weight blocks and the row-parallel partials are all-reduced in the recorded order.
 * The layer's calls are data (`layerCalls`: every GEMM's N, K and bias, every norm's launch),
 * read by the layer, the MoE block, the block plans and the decode signature alike; what a layer
 * runs on (`BlockRuntime`: profile, stack, GEMM dispatch, K-walker, SFU) is defined here too. An
 * observer (`LayerContext.onIntermediate`) receives every intermediate.
 *
 * @example
 * ```ts
 * import { groupRows, layerCalls, modelInvFreq } from "./mod.ts";
 * if (groupRows(3, (i) => i === 1).length !== 2) throw new Error();
 * const f = modelInvFreq(undefined, { headDim: 64, ropeTheta: "10000" });
 * if (f.length !== 32) throw new Error();
 * const bias = { qkv: false, o: false, mlp: false };
 * const calls = layerCalls({ hidden: 8, intermediate: 16, heads: 2, kvHeads: 1, headDim: 4, qkNorm: true, bias });
 * if (calls.attention.linears.map((l) => `${l.name} ${l.n}x${l.k}`).join() !== "q_proj 8x8,k_proj 4x8,v_proj 4x8,o_proj 8x8") {
 *   throw new Error();
 * }
 * ```
 * @module
 */
export {
  type BlockRuntime,
  catalogDispatch,
  fixedRecipeDispatch,
  type GemmCall,
  type GemmDispatch,
  type GemmDispatchResult,
  type ProjectionName,
} from "./block_runtime.ts";
export {
  type AttentionCore,
  attentionSublayer,
  denseMlpSublayer,
  type LayerContext,
  type LayerTensor,
  normKernelOf,
} from "./decoder_layer.ts";
export { type LayerRope, layerRope } from "./layer_rope.ts";
export { ForwardUnsupported, modelInvFreq, project } from "./forward_support.ts";
export {
  gemmCallOf,
  type LayerCalls,
  layerCalls,
  type LayerConfig,
  type LayerLinear,
  type LayerNormName,
  type LayerProjections,
  type LayerReduction,
  type LayerReductionName,
  linearOf,
  moeCalls,
  reductionOf,
  type SublayerCalls,
} from "./layer_calls.ts";
export { type LayerIntermediate, type LayerObserver, type LayerPlace } from "./layer_observer.ts";
export {
  concatRows,
  groupRows,
  type LaunchRows,
  linearRows,
  type NormKernel,
  normRows,
  pickRows,
  type RowsResult,
} from "./row_ops.ts";
export {
  columnBlock,
  orderByPlace,
  putColumnBlock,
  rankBlock,
  type RankHeads,
  rankHeads,
  rankView,
  reduceRows,
  rowBlock,
  splitContradiction,
  type TensorParallel,
  vocabParallelRows,
} from "./tensor_parallel.ts";
