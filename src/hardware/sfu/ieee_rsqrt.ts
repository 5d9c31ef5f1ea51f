/**
 * `ieeeRsqrt`: correctly rounded FP32 reciprocal square root (the `ieee` SFU mode).
 *
 * @module
 */
import { IEEE_DEFAULT_NAN, type IeeeSfuOptions, normalizeFp32, quietNaN } from "./ieee_options.ts";

/**
 * 1/√x rounded to nearest-even (IEEE 754-2019 `rSqrt`): +0 gives +Inf, −0 gives −Inf, +Inf gives
 * +0, negative inputs (−Inf included) give the default NaN 0x7fc00000, NaN propagates quieted.
 * Results are always normal (subnormal inputs map near 2^74.5), so `ftz` only affects inputs.
 *
 * Method: x = F'·2^E' with E' even and F' in [2^23, 2^25); the target T = 2^L/√F' (L = 35 or 36)
 * lies in (2^23, 2^24]. A float64 estimate gives q within 1 of RN(T), then exact integer tests fix
 * it: q is right iff (2q−1)²·F' < 2^(2L+2) < (2q+1)²·F' (no ties: equality would make the odd
 * square (2q±1)² > 1 divide a power of two).
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @param options `ftz`: flush subnormal inputs to signed zero
 * @returns FP32 bit pattern as an unsigned 32-bit number
 * @example
 * ```ts
 * import { ieeeRsqrt } from "./ieee_rsqrt.ts";
 * if (ieeeRsqrt(0x3f820036) !== 0x3f7e05b8) throw new Error(); // probe input: CR value
 * if (ieeeRsqrt(0x40800000) !== 0x3f000000) throw new Error(); // 1/sqrt(4) = 0.5
 * if (ieeeRsqrt(0x80000000) !== 0xff800000) throw new Error(); // -0 -> -Inf
 * ```
 */
export function ieeeRsqrt(x: number, options?: IeeeSfuOptions): number {
  const negative = (x & 0x80000000) !== 0;
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e === 255) {
    if (m !== 0) return quietNaN(x);
    return negative ? IEEE_DEFAULT_NAN : 0;
  }
  if (e === 0 && (m === 0 || options?.ftz === true)) return negative ? 0xff800000 : 0x7f800000;
  if (negative) return IEEE_DEFAULT_NAN;
  let [f, exp] = normalizeFp32(x);
  if ((exp & 1) !== 0) {
    f *= 2;
    exp -= 1;
  }
  const l = f < 0x1000000 ? 35 : 36;
  const n = 2 * l + 2;
  let q = Math.round(2 ** l / Math.sqrt(f));
  while (_cmpTimesF((2 * q + 1) ** 2, f, n) <= 0) q += 1;
  while (_cmpTimesF((2 * q - 1) ** 2, f, n) >= 0) q -= 1;
  // q·2^(-l-exp/2) with q in [2^23, 2^24]; q = 2^24 carries through the addition.
  return (((150 - l - exp / 2) << 23) + q - 0x800000) >>> 0;
}

/**
 * Sign of a·f − 2^n for integers a < 2^51, f < 2^25, 26 ≤ n ≤ 100, computed exactly in float64:
 * a = ah·2^26 + al, so a·f = (ah·f + ⌊al·f / 2^26⌋)·2^26 + (al·f mod 2^26), where ah·f < 2^50 and
 * al·f < 2^51 are exact and the split by a power of two is exact.
 */
function _cmpTimesF(a: number, f: number, n: number): number {
  const ah = Math.floor(a / 67108864);
  const lo = (a - ah * 67108864) * f;
  const sh = Math.floor(lo / 67108864);
  const hi = ah * f + sh;
  const top = 2 ** (n - 26);
  if (hi !== top) return hi < top ? -1 : 1;
  return lo - sh * 67108864 > 0 ? 1 : 0;
}
