/**
 * The drivers of the one decoder layer (`../decoder/`), for every supported family: the prefill
 * forward (`runPrefillForward`: batch layouts, padded or flattened, with its attention cores: FA2
 * varlen or per sequence, or eager), the serving replay (`runServingForward`: passes over KV
 * caches, split-KV decode, LM head and greedy tokens), the sparse MoE block, and the fingerprints
 * (last-layer hidden state at claimed positions, per-layer chain).
 *
 * @example
 * ```ts
 * import { batchLayout, chainLink, rowBytes } from "./mod.ts";
 * const l = batchLayout([[1, 2], [3, 4]], { batching: "pad-to-longest" });
 * if (l.varlen || l.rows !== 4) throw new Error(); // equal lengths: no padding, mha_fwd
 * const d = chainLink(null, rowBytes(new Uint16Array(4), { rows: [1], width: 2 }));
 * if (d.length !== 64) throw new Error();
 * ```
 * @module
 */
export { type BatchLayout, batchLayout } from "./batch_layout.ts";
export { addBf16Once } from "./bf16_add_once.ts";
export {
  attentionLaunch,
  type BatchAttentionContext,
  runBatchAttention,
} from "./batch_attention.ts";
export {
  type ExpertWeights,
  type MoeBlockOptions,
  type MoeRouting,
  routeTopK,
  runMoeBlock,
} from "./moe_block.ts";
export { chainLink, fingerprintOf, rowBytes } from "./fingerprint.ts";
export {
  type PrefillForwardOptions,
  type PrefillForwardResult,
  type PrefillForwardSupport,
  runPrefillForward,
  type TokenPosition,
} from "./prefill_forward.ts";
export { batchPaddingMismatch } from "./batch_padding.ts";
export { checkTokenIds } from "./check_token_ids.ts";
export {
  MAX_BATCH_SEQUENCES,
  MAX_BATCH_TOKENS,
  parseTokenBatch,
  type TokenBatch,
} from "./parse_token_batch.ts";
export { eagerAttention } from "./eager_attention.ts";
export { type CacheReuse, cacheReuse, type OwnPassProblem, ownPassProblem } from "./cache_reuse.ts";
export { type TokenBudgetFinding, tokenBudgetFinding } from "./token_budget_finding.ts";
export { type KvBlockFinding, kvBlockFinding } from "./kv_block_finding.ts";
export {
  type PassEntry,
  type PassShape,
  type RowBlock,
  type ServedSequence,
  SERVING_LIMITS,
  servingRows,
} from "./serving_shape.ts";
export { type ServingWork, servingWork } from "./serving_work.ts";
export {
  argmaxBf16,
  runServingForward,
  type SequenceKv,
  type ServedSequenceResult,
  type ServingForwardOptions,
  type ServingForwardResult,
  type ServingForwardSupport,
} from "./serving_forward.ts";
