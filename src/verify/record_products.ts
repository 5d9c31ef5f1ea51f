/**
 * The cost model of an audit: how many multiply-add products recomputing one record takes, per
 * workload kind. Recomputation time on one engine is close to proportional to it (the K-walk does
 * one emulated product per multiply-add), so a rate measured on a pilot shard predicts the rest.
 *
 * @module
 */
import { type ClaimPredicate, isBlockWorkload, isGemmWorkload } from "../claims/mod.ts";

/**
 * Products of one record's recomputation, or null for a kind this model does not cover.
 *
 * - `gemm`: m n k.
 * - `attention_block` (t tokens, hidden h, H query and G KV heads of d): projections
 *   t h d (2H + 2G) (q, k, v, o) plus the causal attention core 2 H d t (t + 1) / 2 (S = Q K^T
 *   and P V over the lower triangle).
 * - `ffn_block` (intermediate I): 3 t h I (gate, up, down).
 *
 * Host `number` arithmetic: an estimate, exact while below 2^53 (a 6,000-token block of a large
 * model is about 10^12 products).
 *
 * @param workload the record's workload
 * @returns the product count, or null
 * @example
 * ```ts
 * import { recordProducts } from "./record_products.ts";
 * const w = { kind: "gemm", m: 4, n: 256, k: 256 } as Parameters<typeof recordProducts>[0];
 * if (recordProducts(w) !== 262144) throw new Error();
 * ```
 */
export function recordProducts(workload: ClaimPredicate["workload"]): number | null {
  if (isGemmWorkload(workload)) return workload.m * workload.n * workload.k;
  if (!isBlockWorkload(workload)) return null;
  const t = workload.tokens;
  const s = workload.shape;
  if (workload.kind === "ffn_block") return 3 * t * s.hidden * s.intermediate;
  const projections = t * s.hidden * s.headDim * (2 * s.heads + 2 * s.kvHeads);
  return projections + s.heads * s.headDim * t * (t + 1);
}
