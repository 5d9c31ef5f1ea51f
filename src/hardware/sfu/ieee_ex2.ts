/**
 * `ieeeEx2`: correctly rounded FP32 2^x (the `ieee` SFU mode).
 *
 * @module
 */
import { _POW2, _POW2_NEG } from "./_pow2.ts";
import { _roundExp2Fast } from "./_round_exp2_fast.ts";
import { exp2Fixed } from "./exp2_fixed.ts";
import { type IeeeSfuOptions, quietNaN } from "./ieee_options.ts";

/** Working precisions tried in turn (Ziv's strategy); the first nearly always decides. */
const _PRECISIONS = [64, 128, 256, 512, 1024, 2048, 4096] as const;

/**
 * 2^x rounded to nearest-even: +Inf gives +Inf, −Inf gives +0, NaN propagates quieted, x ≥ 128
 * overflows to +Inf, x ≤ −150 underflows to +0 (2^−150 is the tie between 0 and 2^−149 and goes
 * to even), results in [2^−149, 2^−126) are subnormal unless `ftz` flushes them to +0.
 *
 * Method (correct rounding): x = n + f with n = ⌊x⌋ and f = num/2^den in [0, 1), exact. If f = 0
 * the result 2^n is exact. Otherwise 2^f is irrational (2^(p/q) rational forces q | p), so it is
 * never a rounding midpoint. A float64 evaluation with a proven error bound (`_roundExp2Fast`)
 * decides nearly every input; the rest go to {@link exp2Fixed}, which gives 2^f with a proven
 * error bound: if both ends of that interval round to the same integer on the result grid (24
 * bits, or the 2^−149 grid for subnormal results) that integer is the answer; otherwise the
 * precision doubles. |x| < 2^−25
 * gives 1.0 directly: |2^x − 1| < 0.7·2^−25 is below half an ulp on either side of 1.
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @param options `ftz`: flush subnormal inputs (to 0, giving 1.0) and subnormal results (to +0)
 * @returns FP32 bit pattern as an unsigned 32-bit number
 * @throws {Error} never in practice: when 4,096 bits do not decide the rounding
 * @example
 * ```ts
 * import { ieeeEx2 } from "./ieee_ex2.ts";
 * if (ieeeEx2(0xbf000000) !== 0x3f3504f3) throw new Error(); // 2^-0.5
 * if (ieeeEx2(0x3e800000) !== 0x3f9837f0) throw new Error(); // 2^0.25
 * if (ieeeEx2(0xc3150000) !== 0x00000001) throw new Error(); // 2^-149
 * ```
 */
export function ieeeEx2(x: number, options?: IeeeSfuOptions): number {
  const ftz = options?.ftz === true;
  const negative = (x & 0x80000000) !== 0;
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e === 255) return m !== 0 ? quietNaN(x) : (negative ? 0 : 0x7f800000);
  if (e < 102) return 0x3f800000; // zero, subnormal or |x| < 2^-25
  if (e >= 134 && !negative) return 0x7f800000; // x >= 128
  if (e >= 135) return 0; // x <= -256
  // |x| < 256 and e >= 102, so x = ±sig·2^-den with den in [1, 48]: every value below is an
  // integer under 2^49, exact in float64, and scaling by 2^-den then flooring is exact.
  const den = 150 - e;
  const scale = _POW2_NEG[den] as number;
  const sig = negative ? -(m | 0x800000) : (m | 0x800000);
  const n = Math.floor(sig * scale);
  const num = sig - n * (_POW2[den] as number);
  if (num === 0) return _packPow2(n, ftz);
  const k = Math.min(23, n + 149); // fraction bits kept of 2^f: 23, fewer for subnormal results
  if (k < -1) return 0;
  if (k === -1) return ftz ? 0 : 1; // 2^x in (2^-150, 2^-149): above the tie, rounds up
  // num · 2^-den is exact (num < 2^48); the float64 step decides all but about 2^-21 of inputs.
  const q = _roundExp2Fast(num * scale, k) ?? _roundExp2(BigInt(num), den, k);
  if (k === 23) return (((n + 127) << 23) + q - 0x800000) >>> 0;
  return ftz && q < 0x800000 ? 0 : q; // q·2^-149; q = 2^23 is the smallest normal
}

/** RN(2^f · 2^k) for f = num/2^den, irrational, by Ziv's strategy in BigInt (exported for tests). */
export function _roundExp2(num: bigint, den: number, k: number): number {
  for (const bits of _PRECISIONS) {
    const { value, error } = exp2Fixed(num, { den, bits });
    const s = BigInt(bits - k);
    const half = 1n << (s - 1n);
    const lo = (value - error + half) >> s;
    if (lo === (value + error + half) >> s) return Number(lo);
  }
  throw new Error(`Cannot round 2^x: ${num}/2^${den} undecided at 4096 bits`);
}

/** 2^n exactly, for n <= 127: normal, subnormal (flushed under `ftz`) or +0. */
function _packPow2(n: number, ftz: boolean): number {
  if (n >= -126) return (n + 127) << 23;
  if (n >= -149 && !ftz) return 2 ** (n + 149);
  return 0;
}
