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
import { type DecoderConfig, isMoeLayer } from "../model/mod.ts";

/**
 * Most products one record's recomputation may take (2^48, about 2.8 x 10^14: a whole Qwen3-0.6B
 * forward of 32,768 tokens is 7.6 x 10^13, a Qwen3-4B forward of 16,384 tokens 1.0 x 10^14; days
 * on two cores, hours on sixty-four); a record past it is NOT_VERIFIED before anything is
 * computed, naming its count. Every size a record states is bounded on its own (a tensor's
 * elements, tokens, layers, widths); this bounds their product, the time, so that one record
 * cannot hold an audit for weeks (an attention block of 2^20 tokens took four days' worth of
 * attention, a forward may state a thousand layers of width 2^16). `audit estimate` predicts an
 * audit's time from a pilot shard. It is the default budget: an inspector sets another with
 * `--max-record-products` (`audit`, `audit plan`), which the plan and the verdict record.
 */
export const MAX_RECORD_PRODUCTS = 2 ** 48;

/**
 * Largest budget an inspector may set (2^53 - 1): product counts are host `number` estimates,
 * whole numbers only below 2^53.
 */
export const MAX_PRODUCT_BUDGET: number = Number.MAX_SAFE_INTEGER;

/**
 * Reads a product budget: a whole number in 1..{@link MAX_PRODUCT_BUDGET}, or undefined for the
 * default ({@link MAX_RECORD_PRODUCTS}).
 *
 * @param budget the budget given, if any
 * @returns the budget to apply
 * @throws {RangeError} when `budget` is not an integer in 1..{@link MAX_PRODUCT_BUDGET}
 * @example
 * ```ts
 * import { MAX_RECORD_PRODUCTS, productBudget } from "./record_products.ts";
 * if (productBudget(undefined) !== MAX_RECORD_PRODUCTS || productBudget(5) !== 5) {
 *   throw new Error();
 * }
 * ```
 */
export function productBudget(budget: number | undefined): number {
  if (budget === undefined) return MAX_RECORD_PRODUCTS;
  if (!Number.isSafeInteger(budget) || budget < 1) {
    throw new RangeError(
      `Cannot use a product budget of ${budget}: expected an integer in 1..${MAX_PRODUCT_BUDGET}`,
    );
  }
  return budget;
}

/**
 * A product budget as reasons and reports write it: a power of two as `2^n`, else its digits.
 *
 * @param budget the budget (a positive integer)
 * @returns the text
 * @example
 * ```ts
 * import { budgetText } from "./record_products.ts";
 * if (budgetText(2 ** 48) !== "2^48" || budgetText(1000) !== "1000") throw new Error();
 * ```
 */
export function budgetText(budget: number): string {
  // Exact on the integer (Math.log2 rounds: 2^53 - 1 would read as 2^53).
  const b = BigInt(budget);
  return (b & (b - 1n)) === 0n ? `2^${b.toString(2).length - 1}` : String(budget);
}

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

/** One pass of a decoder over some sequences: its GEMM rows and each sequence's attention. */
export interface DecoderPassShape {
  /** Rows of every projection GEMM (the pass's tokens, padding included). */
  readonly rows: number;
  /** Rows of the LM head GEMM (0 for none). */
  readonly logitsRows: number;
  /** Per sequence: its new tokens and the positions already cached before them. */
  readonly entries: readonly { readonly query: number; readonly cached: number }[];
}

/**
 * Products of a decoder's passes, an upper bound: every layer's projections (q, k, v, o) of every
 * row, padding included, its MLP (dense gate, up and down; on an MoE layer the router and every
 * row's top-k experts), the causal attention core of each sequence (S and P V: a new token at
 * position i attends to i + 1 keys), and the LM head's rows.
 *
 * @param c the decoder's config
 * @param passes the passes (a prefill forward is one pass)
 * @returns the product count (host `number`: an estimate, compared with a budget)
 * @example
 * ```ts
 * import { decoderProducts } from "./record_products.ts";
 * import type { DecoderConfig } from "../model/mod.ts";
 * const c = { hidden: 4, intermediate: 8, heads: 1, kvHeads: 1, headDim: 4, layers: 1,
 *   vocab: 16 } as DecoderConfig;
 * const n = decoderProducts(c, [{ rows: 2, logitsRows: 0, entries: [{ query: 2, cached: 0 }] }]);
 * if (n !== 2 * 4 * 4 * 4 + 2 * 3 * 4 * 8 + 2 * 4 * (1 + 2)) throw new Error(String(n));
 * ```
 */
export function decoderProducts(c: DecoderConfig, passes: readonly DecoderPassShape[]): number {
  const q = c.heads * c.headDim;
  const kv = c.kvHeads * c.headDim;
  const projections = c.hidden * (2 * q + 2 * kv);
  const dense = 3 * c.hidden * c.intermediate;
  const moe = c.moe === undefined
    ? 0
    : c.hidden * c.moe.experts + c.moe.topK * 3 * c.hidden * c.moe.intermediate;
  let perRow = 0;
  for (let l = 0; l < c.layers; l++) perRow += projections + (isMoeLayer(c, l) ? moe : dense);
  let total = 0;
  for (const pass of passes) {
    total += pass.rows * perRow + pass.logitsRows * c.hidden * c.vocab;
    for (const e of pass.entries) {
      const keys = e.query * e.cached + e.query * (e.query + 1) / 2; // over the new tokens
      total += c.layers * 2 * q * keys;
    }
  }
  return total;
}
