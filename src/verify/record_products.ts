/**
 * The cost model of an audit: how many multiply-add products recomputing one record takes, per
 * workload kind. Recomputation time on one engine is close to proportional to it (the K-walk does
 * one emulated product per multiply-add), so a rate measured on a pilot shard predicts the rest.
 *
 * @module
 */
import {
  type ClaimPredicate,
  type GemmWorkload,
  isBlockWorkload,
  isGemmWorkload,
} from "../claims/mod.ts";
import { parseRecipe, type RecipeFit, recipeFit } from "../kernels/mod.ts";

/**
 * Products that one extra M x N walk of a recipe costs an output element (a fresh partial, its
 * FP32 combine, a rounding): measured on the wasm engine (one thread, 256 x 256 outputs), 64-way
 * serial and parallel split-K took about 15 ns an element a walk more than a single walk, whose
 * products took about 0.3 ns each at K = 4096.
 */
export const WALK_PRODUCTS = 50;

/**
 * Products of one record's recomputation, or null for a kind this model does not cover.
 *
 * - `gemm`: m n k, plus {@link WALK_PRODUCTS} m n for each walk after the first of a recipe the
 *   record names (`recipeWalks`); 0 for a recipe the verifier refuses before any walk (invalid,
 *   or not fitting K: `recipeFit`). A catalog's recipe is known only once the catalog is loaded:
 *   m n k (the catalogs' recipes take at most 5 walks).
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
  if (isGemmWorkload(workload)) return _gemmProducts(workload);
  if (!isBlockWorkload(workload)) return null;
  const t = workload.tokens;
  const s = workload.shape;
  if (workload.kind === "ffn_block") return 3 * t * s.hidden * s.intermediate;
  const projections = t * s.hidden * s.headDim * (2 * s.heads + 2 * s.kvHeads);
  return projections + s.heads * s.headDim * t * (t + 1);
}

function _gemmProducts(w: GemmWorkload): number {
  const { m, n, k } = w;
  const kernel = w.kernel as GemmWorkload["kernel"] | undefined;
  if (kernel === undefined || !("recipe" in kernel)) return m * n * k;
  let fit: RecipeFit;
  try {
    fit = recipeFit(parseRecipe(kernel.recipe), k);
  } catch {
    return 0; // an invalid descriptor is NOT_VERIFIED before any walk
  }
  return fit.fits ? m * n * (k + WALK_PRODUCTS * (fit.walks - 1)) : 0;
}
