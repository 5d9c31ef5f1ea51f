/**
 * The decoder layer every driver runs, written once: its sublayers (`attentionSublayer`,
 * `denseMlpSublayer`) over rows that ran in launches of recorded sizes, the one linear operation
 * (`linearRows`: dispatch by launch shape, bias epilogue), row-grouped RMSNorm, the RoPE
 * frequencies a config implies (`modelInvFreq`: theta, then linear or llama3 scaling), and the
 * "cannot be emulated" signal (`ForwardUnsupported`). What differs between families comes from
 * the config (`DecoderConfig` in `../checkpoint/`); what differs between drivers (the attention
 * core, MoE launches) is passed in. With tensor parallelism (`TensorParallel`) each rank runs its
 * heads and weight blocks and the row-parallel partials are all-reduced in the recorded order.
 *
 * @example
 * ```ts
 * import { groupRows, modelInvFreq } from "./mod.ts";
 * if (groupRows(3, (i) => i === 1).length !== 2) throw new Error();
 * const f = modelInvFreq(undefined, { headDim: 8, ropeTheta: "10000" });
 * if (f.length !== 4) throw new Error();
 * ```
 * @module
 */
export {
  type AttentionCore,
  attentionSublayer,
  denseMlpSublayer,
  type LayerContext,
  type LayerTensor,
} from "./decoder_layer.ts";
export { ForwardUnsupported, modelInvFreq, project } from "./forward_support.ts";
export { groupRows, type LaunchRows, linearRows, normRows, pickRows } from "./row_ops.ts";
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
  type TensorParallel,
} from "./tensor_parallel.ts";
