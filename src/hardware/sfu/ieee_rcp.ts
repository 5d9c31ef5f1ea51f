/**
 * `ieeeRcp`: correctly rounded FP32 reciprocal (the `ieee` SFU mode).
 *
 * @module
 */
import { type IeeeSfuOptions, normalizeFp32, quietNaN } from "./ieee_options.ts";

/**
 * 1/x rounded to nearest-even, with IEEE 754 special values: ±0 gives ±Inf, ±Inf gives ±0, NaN
 * propagates quieted, subnormal inputs are exact and results may be subnormal (unless `ftz`).
 *
 * Method: x = F·2^E with F in [2^23, 2^24), so 1/x = (2^K / F)·2^(−K−E). K = 47 gives a 24-bit
 * quotient for normal results; a subnormal result uses a smaller K so that the quotient is
 * rounded once, directly on the 2^−149 grid. All arithmetic is exact in float64 (see
 * `_divRoundPow2`). No ties: (2q+1)·F = 2^(K+1) would make the odd 2q+1 > 1 divide a power of two.
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @param options `ftz`: flush subnormal inputs and outputs to signed zero
 * @returns FP32 bit pattern as an unsigned 32-bit number
 * @example
 * ```ts
 * import { ieeeRcp } from "./ieee_rcp.ts";
 * if (ieeeRcp(0x3fe21812) !== 0x3f10ee4c) throw new Error(); // probe input: CR value ...4c
 * if (ieeeRcp(0x7f000000) !== 0x00400000) throw new Error(); // 1/2^127 = 2^-127, subnormal
 * if (ieeeRcp(0x7f000000, { ftz: true }) !== 0) throw new Error();
 * ```
 */
export function ieeeRcp(x: number, options?: IeeeSfuOptions): number {
  const ftz = options?.ftz === true;
  const sign = x & 0x80000000;
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e === 255) return m !== 0 ? quietNaN(x) : sign >>> 0;
  if (e === 0 && (m === 0 || ftz)) return (sign | 0x7f800000) >>> 0;
  const [f, exp] = normalizeFp32(x);
  const biased = 103 - exp; // q in [2^23, 2^24) times 2^(-47-exp) has this biased exponent
  if (biased >= 255) return (sign | 0x7f800000) >>> 0;
  if (biased >= 1) {
    // A carry to q = 2^24 bumps the exponent through the addition (254 + carry is +Inf).
    return (sign | ((biased << 23) + _divRoundPow2(47, f) - 0x800000)) >>> 0;
  }
  const q = _divRoundPow2(47 - (1 - biased), f); // the 2^-149 grid; q = 2^23 is the smallest normal
  if (ftz && q < 0x800000) return sign >>> 0;
  return (sign | q) >>> 0;
}

/**
 * Round-to-nearest of 2^k / f for k ≤ 47 and f in [2^23, 2^24). Exact: 2^k and q·f ≤ 2^k are
 * below 2^53; the float64 quotient is below 2^24, where its ulp is 2^−28, while the true quotient
 * is either an integer or at least 1/f > 2^−24 below the next one, so `Math.floor` is exact.
 */
function _divRoundPow2(k: number, f: number): number {
  const n = 2 ** k;
  const q = Math.floor(n / f);
  const r = n - q * f;
  return 2 * r > f ? q + 1 : q;
}
