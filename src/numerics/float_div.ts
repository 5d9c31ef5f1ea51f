/**
 * `floatDiv`: IEEE 754 division in any format, rounded once by `roundPack` (the reference path).
 *
 * @module
 */
import type { FloatFormat } from "./format.ts";
import { packInfinity, packZero, roundPack } from "./round_pack.ts";
import type { ScalarOptions } from "./scalar_options.ts";
import { _nanResult, type _Operand, _operands } from "./_scalar_rules.ts";
import { _normalise } from "./_normalise.ts";

/**
 * Computes `a / b` with one rounding. Exact integer method: with both significands normalised to
 * `p = fracBits + 1` bits, `q = floor(sa * 2^(p + 2) / sb)` has `p + 2` or `p + 3` bits (the
 * dividend is below 2^(2p + 2) <= 2^50 for p <= 24, so every integer is exact in float64 and the
 * floor is corrected with the exact remainder), and a non-zero remainder is the sticky bit;
 * `roundPack` rounds `q * 2^(ea - eb - p - 2)` once. Specials follow IEEE 754: `0/0`, `inf/inf`
 * and NaN operands give the NaN of `options.nan`; `x/0` is a signed infinity; `x/inf` a signed
 * zero.
 *
 * @param format operand and result format (at most 24 significand bits)
 * @param quotient dividend and divisor patterns `[a, b]`
 * @param options rounding `mode`, result `ftz`, input `daz`, `overflow` rule and `nan` pattern
 * @returns the pattern of `fl(a / b)`
 * @throws {RangeError} when an operand is not a pattern of `format`
 * @example
 * ```ts
 * import { floatDiv } from "./float_div.ts";
 * import { FP32 } from "./format.ts";
 * if (floatDiv(FP32, [0x3f800000, 0x40400000]) !== 0x3eaaaaab) throw new Error(); // 1/3
 * if (floatDiv(FP32, [0x3f800000, 0x40400000], { mode: "rz" }) !== 0x3eaaaaaa) throw new Error();
 * ```
 */
export function floatDiv(
  format: FloatFormat,
  quotient: readonly [number, number],
  options: ScalarOptions = {},
): number {
  const decoded = _operands(format, quotient, options);
  if (decoded === undefined) return _nanResult(format, options);
  const [x, y] = decoded as [_Operand, _Operand];
  const sign = (x.sign ^ y.sign) as 0 | 1;
  if (x.kind === y.kind && (x.kind === "inf" || x.kind === "zero")) {
    return _nanResult(format, options);
  }
  if (x.kind === "inf" || y.kind === "zero") return packInfinity(format, sign);
  if (y.kind === "inf" || x.kind === "zero") return packZero(format, sign);
  const num = _normalise(format, x);
  const den = _normalise(format, y);
  const shift = format.fracBits + 3;
  const dividend = num.significand * 2 ** shift;
  let q = Math.floor(dividend / den.significand);
  let r = dividend - q * den.significand; // exact: all terms are integers below 2^53
  if (r < 0) {
    q -= 1;
    r += den.significand;
  } else if (r >= den.significand) {
    q += 1;
    r -= den.significand;
  }
  const value = {
    sign,
    significand: q,
    exponent: num.exponent - den.exponent - shift,
    sticky: r !== 0,
  };
  return roundPack(format, value, options);
}
