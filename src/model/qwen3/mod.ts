/**
 * Forward passes of Qwen3 dense and MoE checkpoints: batch layouts (padded or flattened), the
 * batched attention block, the sparse MoE block, the whole prefill with its final norm, and the
 * fingerprints (last-layer hidden state at claimed positions, per-layer chain).
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
export * from "./batch_layout.ts";
export * from "./bf16_add_once.ts";
export * from "./forward_support.ts";
export * from "./batch_attention.ts";
export * from "./moe_block.ts";
export * from "./fingerprint.ts";
export * from "./qwen3_forward.ts";
export * from "./parse_token_batch.ts";
export * from "./eager_attention.ts";
