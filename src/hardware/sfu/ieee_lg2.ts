/**
 * `ieeeLg2`: correctly rounded FP32 log2(x) (the `ieee` SFU mode).
 *
 * @module
 */
import { IEEE_DEFAULT_NAN, type IeeeSfuOptions, normalizeFp32, quietNaN } from "./ieee_options.ts";
import { log2Fixed } from "./log2_fixed.ts";

/** Working precisions tried in turn (Ziv's strategy); the first nearly always decides. */
const _PRECISIONS = [64, 128, 256, 512, 1024, 2048, 4096] as const;

/**
 * log2(x) rounded to nearest-even, with IEEE 754 special values: ±0 gives −Inf, a negative
 * number (−Inf included) gives the default NaN, NaN propagates quieted, +Inf gives +Inf, an exact
 * power of two gives its exponent exactly. Subnormal inputs are exact unless `ftz` flushes them
 * (then −Inf). Results are never subnormal: |log2 x| is 0 or at least log2(1 + 2^−23) > 2^−23.
 *
 * Method (correct rounding): x = m·2^n with m = F/2^23 in [1, 2) exact, so log2 x = n + log2 m.
 * For m ≠ 1 the value is irrational (log2 x = p/q would give x^q = 2^p, impossible for x = F·2^E
 * with F odd and above 1), so it is never a rounding midpoint; {@link log2Fixed} gives log2 m
 * with a proven error bound, and if both ends of n + [value ± error] round to the same FP32
 * number that number is the answer; otherwise the precision doubles.
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @param options `ftz`: flush subnormal inputs to zero (results are never subnormal)
 * @returns FP32 bit pattern as an unsigned 32-bit number
 * @throws {Error} never in practice: when 4,096 bits do not decide the rounding
 * @example
 * ```ts
 * import { ieeeLg2 } from "./ieee_lg2.ts";
 * if (ieeeLg2(0x40400000) !== 0x3fcae00d) throw new Error(); // log2(3) = 1.5849625...
 * if (ieeeLg2(0x3f000000) !== 0xbf800000) throw new Error(); // log2(0.5) = -1, exact
 * if (ieeeLg2(0x00000001) !== 0xc3150000) throw new Error(); // log2(2^-149) = -149
 * if (ieeeLg2(0x00000001, { ftz: true }) !== 0xff800000) throw new Error(); // flushed: -inf
 * ```
 */
export function ieeeLg2(x: number, options?: IeeeSfuOptions): number {
  const ftz = options?.ftz === true;
  const negative = (x & 0x80000000) !== 0;
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e === 255 && m !== 0) return quietNaN(x);
  if (e === 0 && (m === 0 || ftz)) return 0xff800000;
  if (negative) return IEEE_DEFAULT_NAN;
  if (e === 255) return 0x7f800000;
  const [f, exp] = normalizeFp32(x);
  const n = exp + 23; // x = (f / 2^23) · 2^n, n in [-149, 127]
  if (f === 0x800000) return _intToF32(n);
  const base = BigInt(n);
  for (const bits of _PRECISIONS) {
    const { value, error } = log2Fixed(BigInt(f), { den: 23, bits });
    const y = (base << BigInt(bits)) + value;
    const lo = _roundFixed(y - error, bits);
    if (lo === _roundFixed(y + error, bits)) return lo;
  }
  throw new Error(`Cannot round log2(x): 0x${x.toString(16)} undecided at 4096 bits`);
}

/** An integer n with |n| ≤ 149 as an exact FP32 pattern. */
function _intToF32(n: number): number {
  if (n === 0) return 0;
  const a = Math.abs(n);
  const lz = 31 - Math.clz32(a); // a = 1.xxx · 2^lz
  const bits = ((lz + 127) << 23) | ((a << (23 - lz)) & 0x7fffff);
  return (n < 0 ? bits | 0x80000000 : bits) >>> 0;
}

/**
 * RN-even of v·2^−w to FP32 for a non-zero v with a normal result (|v·2^−w| in [2^−126, 2^128)),
 * which holds for every log2 value here (between 2^−24 and 150 in magnitude).
 */
function _roundFixed(v: bigint, w: number): number {
  if (v === 0n) return 0;
  const sign = v < 0n ? 0x80000000 : 0;
  const a = v < 0n ? -v : v;
  const len = a.toString(2).length; // a in [2^(len-1), 2^len)
  const shift = len - 24;
  let q: bigint;
  if (shift <= 0) q = a << BigInt(-shift);
  else {
    const s = BigInt(shift);
    q = a >> s;
    const rem = a - (q << s);
    const half = 1n << (s - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
  }
  let exp = len - 1 - w; // value in [2^exp, 2^(exp+1)) before rounding
  if (q === 1n << 24n) {
    q >>= 1n;
    exp += 1;
  }
  return (sign | ((exp + 127) << 23) | (Number(q) - 0x800000)) >>> 0;
}
