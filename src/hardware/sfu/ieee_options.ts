/**
 * Options and NaN policy shared by the correctly rounded (`ieee`) SFU functions.
 *
 * @module
 */

/** Options of the `ieee*` functions. */
export interface IeeeSfuOptions {
  /**
   * Flush subnormal inputs to a zero of the same sign before the operation, and subnormal results
   * (after rounding) to a zero of the same sign; default false (full IEEE 754 gradual underflow).
   */
  readonly ftz?: boolean;
}

/** The default quiet NaN returned by invalid operations (e.g. rsqrt of a negative number). */
export const IEEE_DEFAULT_NAN = 0x7fc00000;

/**
 * Quiets a NaN input, keeping its sign and payload (IEEE 754 §6.2.3 recommends propagating the
 * input's payload; this is what x86 SSE does).
 *
 * @param x FP32 bit pattern of a NaN
 * @returns the same pattern with the quiet bit (bit 22) set
 * @example
 * ```ts
 * import { quietNaN } from "./ieee_options.ts";
 * if (quietNaN(0x7f800001) !== 0x7fc00001) throw new Error();
 * ```
 */
export function quietNaN(x: number): number {
  return (x | 0x00400000) >>> 0;
}

/**
 * Splits a finite non-zero FP32 pattern into `F · 2^E` with F normalised to [2^23, 2^24)
 * (subnormals are shifted up, so E can go down to −172).
 *
 * @param x FP32 bit pattern, finite and non-zero (sign ignored)
 * @returns `[F, E]`
 * @example
 * ```ts
 * import { normalizeFp32 } from "./ieee_options.ts";
 * const [f, e] = normalizeFp32(0x00000001); // 2^-149
 * if (f !== 0x800000 || e !== -172) throw new Error();
 * ```
 */
export function normalizeFp32(x: number): [number, number] {
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e !== 0) return [m | 0x800000, e - 150];
  const shift = Math.clz32(m) - 8; // moves the leading one of m to bit 23
  return [m << shift, -149 - shift];
}
