/**
 * Boundary patterns of the fp32-container formats (fp32, tf32, e8m13): for every exponent field
 * and both signs, the smallest, second, middle, second-largest and largest fraction, with the
 * container padding bits zero.
 *
 * @module
 */

/**
 * Lists boundary patterns of an fp32-container format.
 *
 * @param pad `2^padding bits` (1 for fp32, 2^13 for tf32, 2^10 for e8m13)
 * @returns distinct patterns, padding bits zero
 * @example
 * ```ts
 * import { fp32FamilyPatterns } from "./_fp32_patterns.ts";
 * const ps = fp32FamilyPatterns(1);
 * if (!ps.includes(0x7f7fffff) || !ps.includes(0x80000001)) throw new Error();
 * ```
 */
export function fp32FamilyPatterns(pad: number): number[] {
  const fracTop = 2 ** 23 - pad; // largest fraction with zero padding
  const fracs = [0, pad, 2 * pad, 2 ** 22, 2 ** 22 + pad, fracTop - pad, fracTop];
  const out = new Set<number>();
  for (const sign of [0, 2 ** 31]) {
    for (let e = 0; e < 256; e++) {
      for (const fr of fracs) out.add(sign + e * 2 ** 23 + fr);
    }
  }
  return [...out];
}
