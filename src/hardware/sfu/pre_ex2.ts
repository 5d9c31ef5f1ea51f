/**
 * `preEx2`: the PREEX2/RRO range-reduction stage that feeds MUFU.EX2 in the Tesla model.
 *
 * @module
 */

/** `preEx2` code for a NaN input (bit 30 set, integer field 0). */
export const PRE_EX2_NAN = 0x40000000;

/** `preEx2` code for ±Inf and |x| ≥ 128 (bit 30 set, integer field 1). */
export const PRE_EX2_INF = 0x40800000;

/**
 * Converts FP32 to sign + unsigned 7.23 fixed point of |x|, **truncated toward zero**
 * (hypothesis H1 of sfu_tesla_model.md §1 and §3): bit 31 is the sign, bits 29..23 the integer
 * part, bits 22..0 the fraction, or bit 30 set for the special codes {@link PRE_EX2_NAN} and
 * {@link PRE_EX2_INF} (|x| ≥ 128 and ±Inf). Zero and subnormal inputs give a (signed) 0.
 *
 * Unverified choices, written down as the spec asks: envytools' `sfu_preex2` rounds the dropped
 * bits to nearest rather than truncating; the spec's H1 truncates, which the ±2^−23 probes in
 * mufu_probes.json would settle. Volta and later feed FP32 straight into MUFU.EX2, so whether they
 * keep more than 23 fraction bits for |x| < 1 is unmeasured (spec §3, hypothesis H2).
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @returns the packed 7.23 value as an unsigned 32-bit number
 * @example
 * ```ts
 * import { preEx2 } from "./pre_ex2.ts";
 * if (preEx2(0xbfc00000) !== 0x80c00000) throw new Error(); // -1.5 -> sign, 1 + 0x400000
 * // 0.25 + 3·2^-25 keeps only 23 fraction bits, so it meets 0.25.
 * if (preEx2(0x3e800003) !== preEx2(0x3e800000)) throw new Error();
 * ```
 */
export function preEx2(x: number): number {
  const sign = x & 0x80000000;
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e === 255) return (sign | (m !== 0 ? PRE_EX2_NAN : PRE_EX2_INF)) >>> 0;
  if (e === 0) return sign >>> 0;
  const shift = e - 127;
  if (shift >= 7) return (sign | PRE_EX2_INF) >>> 0;
  const f = m | 0x800000;
  // f < 2^24 and shift <= 6, so f << shift < 2^30 stays inside the 7.23 field.
  const t = shift >= 0 ? f << shift : (shift <= -24 ? 0 : f >>> -shift);
  return (sign | t) >>> 0;
}
