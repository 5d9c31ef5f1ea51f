/**
 * `floatDiv`: IEEE 754 division in any format, rounded once by `roundPack` (the reference path).
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
 * Computes `a / b` with one rounding. Exact integer method: with both significands normalised to
 * `p = fracBits + 1` bits, `q = floor(sa * 2^(p + 2) / sb)` has `p + 2` or `p + 3` bits (the
 * dividend is below 2^(2p + 2) <= 2^50 for p <= 24, so every integer is exact in float64 and the
 * floor is corrected with the exact remainder), and a non-zero remainder is the sticky bit;
 * `roundPack` rounds `q * 2^(ea - eb - p - 2)` once. Specials follow IEEE 754: `0/0`, `inf/inf`
 * and NaN operands give the NaN of `options.nan`; `x/0` is a signed infinity; `x/inf` a signed
 * zero.
 *
 * @param format operand and result format (at most 24 significand bits)
 * @param operands dividend and divisor patterns `[a, b]`
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
  operands: readonly [number, number],
  options: ScalarOptions = {},
): number {
  const daz = { daz: options.daz === true };
  const x = decode(format, operands[0], daz);
  const y = decode(format, operands[1], daz);
  if (x.kind === "nan" || y.kind === "nan") return _nanResult(format, options);
  const sign = (x.sign ^ y.sign) as 0 | 1;
  if (x.kind === y.kind && (x.kind === "inf" || x.kind === "zero")) {
    return _nanResult(format, options);
  }
  if (x.kind === "inf" || y.kind === "zero") return packInfinity(format, sign);
  if (y.kind === "inf" || x.kind === "zero") return packZero(format, sign);
  const n = _normalise(format, x);
  const d = _normalise(format, y);
  const shift = format.fracBits + 3;
  const dividend = n.significand * 2 ** shift;
  let q = Math.floor(dividend / d.significand);
  let r = dividend - q * d.significand; // exact: all terms are integers below 2^53
  if (r < 0) {
    q -= 1;
    r += d.significand;
  } else if (r >= d.significand) {
    q += 1;
    r -= d.significand;
  }
  const value = {
    sign,
    significand: q,
    exponent: n.exponent - d.exponent - shift,
    sticky: r !== 0,
  };
  return roundPack(format, value, options);
}
