/**
 * The product counts of the two decoder record kinds, as their recomputations bound them before
 * anything is computed and as an audit's cost is predicted: one function per kind, so that the
 * budget check and the prediction cannot count differently.
 *
 * @module
 */
import type { HistoryPass } from "../claims/mod.ts";
import type { DecoderConfig } from "../model/mod.ts";
import { _paddedRows } from "./forward_activation.ts";
import { decoderProducts } from "./record_products.ts";

/**
 * Products of a `model_forward` record: one prefill pass of every sequence whole, its GEMM rows
 * the padded activation's (`forwardActivation`: `_paddedRows`, whatever the stack), no LM head.
 *
 * @param c the checkpoint's config
 * @param lens each sequence's length (at least one)
 * @returns the product count (`decoderProducts`)
 * @example
 * ```ts
 * import { forwardProducts } from "./decoder_record_products.ts";
 * import type { DecoderConfig } from "../model/mod.ts";
 * const c = { hidden: 4, intermediate: 8, heads: 1, kvHeads: 1, headDim: 4, layers: 1,
 *   vocab: 16 } as DecoderConfig;
 * if (forwardProducts(c, [2]) !== 2 * 4 * 4 * 4 + 2 * 3 * 4 * 8 + 2 * 4 * 3) throw new Error();
 * ```
 */
export function forwardProducts(c: DecoderConfig, lens: readonly number[]): number {
  return decoderProducts(c, [{
    rows: _paddedRows(lens),
    logitsRows: 0,
    entries: lens.map((query) => ({ query, cached: 0 })),
  }]);
}

/**
 * Products of a `sequence` record's replay: the sequence's own rows of each pass (its entry's
 * new tokens), at most one logits row a pass; its neighbours are shapes only and cost nothing.
 *
 * @param c the checkpoint's config
 * @param passes the serving history's passes (each `self` names an entry)
 * @returns the product count (`decoderProducts`)
 * @throws {RangeError} when a pass's `self` names no entry
 * @example
 * ```ts
 * import { replayProducts } from "./decoder_record_products.ts";
 * import type { DecoderConfig } from "../model/mod.ts";
 * const c = { hidden: 4, intermediate: 8, heads: 1, kvHeads: 1, headDim: 4, layers: 1,
 *   vocab: 16 } as DecoderConfig;
 * const pass = { entries: [{ query: 1, cached: 0 }], rows: 1, logitsRows: 1, self: 0 };
 * if (replayProducts(c, [pass]) !== 64 + 96 + 64 + 8) throw new Error();
 * ```
 */
export function replayProducts(c: DecoderConfig, passes: readonly HistoryPass[]): number {
  return decoderProducts(
    c,
    passes.map((q, i) => {
      const own = q.entries[q.self];
      if (own === undefined) {
        throw new RangeError(
          `Cannot count pass ${i}: its entry ${q.self} is not among its entries`,
        );
      }
      return { rows: own.query, logitsRows: Math.min(q.logitsRows, 1), entries: [own] };
    }),
  );
}
