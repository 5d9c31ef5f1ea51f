/**
 * `floatSqrt`: IEEE 754 square root in any format, rounded once by `roundPack` (the reference
 * path).
 *
 * @module
 */
import { decode } from "./decode.ts";
import type { FloatFormat } from "./format.ts";
import { packInfinity, packZero, roundPack } from "./round_pack.ts";
import type { ScalarOptions } from "./scalar_options.ts";
import { _nanResult } from "./_scalar_rules.ts";
import { _normalise } from "./_normalise.ts";

/**
 * Computes `sqrt(a)` with one rounding. Exact integer method: with `a = s * 2^e`, `s` normalised
 * to `p = fracBits + 1` bits and `e` made even (doubling `s`), `n = s * 2^k` with `k` the even
 * number `p + 3` or `p + 4` stays below 2^53 for p <= 24; `q = floor(sqrt(n))` has at least
 * `p + 2` bits and is fixed up with exact integer squares, `q * q !== n` is the sticky bit, and
 * `roundPack` rounds `q * 2^((e - k) / 2)` once. `sqrt(±0) = ±0`, `sqrt(+inf) = +inf`; negative
 * operands and NaN give the NaN of `options.nan`.
 *
 * @param format operand and result format (at most 24 significand bits)
 * @param a the operand pattern
 * @param options rounding `mode`, result `ftz`, input `daz`, `overflow` rule and `nan` pattern
 * @returns the pattern of `fl(sqrt(a))`
 * @throws {RangeError} when the operand is not a pattern of `format`
 * @example
 * ```ts
 * import { floatSqrt } from "./float_sqrt.ts";
 * import { FP32 } from "./format.ts";
 * if (floatSqrt(FP32, 0x40000000) !== 0x3fb504f3) throw new Error(); // sqrt(2)
 * if (floatSqrt(FP32, 0x40000000, { mode: "ru" }) !== 0x3fb504f4) throw new Error();
 * ```
 */
export function floatSqrt(format: FloatFormat, a: number, options: ScalarOptions = {}): number {
  const x = decode(format, a, { daz: options.daz === true });
  if (x.kind === "nan") return _nanResult(format, options);
  if (x.kind === "zero") return packZero(format, x.sign);
  if (x.sign === 1) return _nanResult(format, options);
  if (x.kind === "inf") return packInfinity(format, 0);
  let { significand: s, exponent: e } = _normalise(format, x);
  if ((e & 1) !== 0) {
    s *= 2;
    e -= 1;
  }
  const p = format.fracBits + 1;
  const k = p % 2 === 0 ? p + 4 : p + 3;
  const n = s * 2 ** k;
  let q = Math.floor(Math.sqrt(n));
  while (q * q > n) q -= 1;
  while ((q + 1) * (q + 1) <= n) q += 1;
  const value = { sign: 0 as const, significand: q, exponent: (e - k) / 2, sticky: q * q !== n };
  return roundPack(format, value, options);
}
