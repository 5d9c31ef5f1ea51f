/**
 * `floatMul`: IEEE 754 multiplication in any format, rounded once by `roundPack` (the reference
 * path).
 *
 * @module
 */
import type { FloatFormat } from "./format.ts";
import { packInfinity, packZero, roundPack } from "./round_pack.ts";
import type { ScalarOptions } from "./scalar_options.ts";
import { _nanResult, type _Operand, _operands } from "./_scalar_rules.ts";

/**
 * Computes `a * b` with one rounding. Exact: the product of two significands of at most 24 bits
 * has at most 48 bits, a safe integer, so `roundPack` sees the exact product. NaN operands and
 * `0 * inf` give the NaN of `options.nan`; the sign of a zero or infinite result is the XOR of
 * the operands' signs.
 *
 * @param format operand and result format
 * @param factors the two factor patterns `[a, b]`
 * @param options rounding `mode`, result `ftz`, input `daz`, `overflow` rule and `nan` pattern
 * @returns the pattern of `fl(a * b)`
 * @throws {RangeError} when an operand is not a pattern of `format`
 * @example
 * ```ts
 * import { floatMul } from "./float_mul.ts";
 * import { FP16, FP32 } from "./format.ts";
 * if (floatMul(FP32, [0x3f800001, 0x3f800001], { mode: "ru" }) !== 0x3f800003) throw new Error();
 * if (floatMul(FP16, [0x3c01, 0x3c01]) !== 0x3c02) throw new Error(); // (1 + 2^-10)^2 -> 1 + 2^-9
 * ```
 */
export function floatMul(
  format: FloatFormat,
  factors: readonly [number, number],
  options: ScalarOptions = {},
): number {
  const decoded = _operands(format, factors, options);
  if (decoded === undefined) return _nanResult(format, options);
  const [x, y] = decoded as [_Operand, _Operand];
  const sign = (x.sign ^ y.sign) as 0 | 1;
  if (x.kind === "inf" || y.kind === "inf") {
    if (x.kind === "zero" || y.kind === "zero") return _nanResult(format, options);
    return packInfinity(format, sign);
  }
  if (x.kind === "zero" || y.kind === "zero") return packZero(format, sign);
  const significand = x.significand * y.significand; // exact: below 2^48
  return roundPack(format, { sign, significand, exponent: x.exponent + y.exponent }, options);
}
