/**
 * The largest activation a one-pass forward of a token batch allocates, as the audit bounds it
 * before anything is computed: padded rows (sequences x the longest, at least the flattened
 * count) by the widest row of any stage (MoE: top-k expert rows; eager attention: the longest
 * sequence's scores).
 *
 * @module
 */
import type { DecoderConfig } from "../model/mod.ts";

/**
 * The activation's shape [rows, widest].
 *
 * @param c the decoder's config
 * @param lens each sequence's length (at least one sequence)
 * @returns [padded rows, widest row]
 * @example
 * ```ts
 * import { forwardActivation } from "./forward_activation.ts";
 * import type { DecoderConfig } from "../model/mod.ts";
 * const c = { hidden: 4, intermediate: 8, heads: 1, headDim: 4 } as DecoderConfig;
 * const [rows, widest] = forwardActivation(c, [3, 5]);
 * if (rows !== 10 || widest !== 8) throw new Error();
 * ```
 */
export function forwardActivation(c: DecoderConfig, lens: readonly number[]): [number, number] {
  const longest = Math.max(...lens);
  const widest = Math.max(
    c.hidden,
    c.intermediate,
    c.heads * c.headDim,
    c.moe === undefined ? 0 : Math.max(c.moe.experts, c.moe.topK * c.moe.intermediate),
    longest,
  );
  return [longest * lens.length, widest];
}
