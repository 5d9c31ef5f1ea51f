/**
 * `floatAdd`: IEEE 754 addition in any format, rounded once by `roundPack` (the reference path).
 *
 * @module
 */
import type { FloatFormat } from "./format.ts";
import { packInfinity, packZero, roundPack } from "./round_pack.ts";
import type { ScalarOptions } from "./scalar_options.ts";
import { _nanResult, type _Operand, _operands, _zeroSumSign } from "./_scalar_rules.ts";
import { _exactSum } from "./_exact_sum.ts";

/**
 * Computes `a + b` with one rounding. Operands are decoded exactly (subnormals read as zeros
 * under `daz`); NaN operands and `inf - inf` give the NaN of `options.nan`; an exact zero sum is
 * +0 (-0 toward -infinity) unless both addends are zeros of one sign. For a format without
 * infinities (e4m3) only NaN operands are special.
 *
 * @param format operand and result format
 * @param addends the two addend patterns `[a, b]`
 * @param options rounding `mode`, result `ftz`, input `daz`, `overflow` rule and `nan` pattern
 * @returns the pattern of `fl(a + b)`
 * @throws {RangeError} when an operand is not a pattern of `format`
 * @example
 * ```ts
 * import { floatAdd } from "./float_add.ts";
 * import { BF16, FP32 } from "./format.ts";
 * if (floatAdd(FP32, [0x3f800000, 0x33800000]) !== 0x3f800000) throw new Error(); // tie to even
 * if (floatAdd(FP32, [0x3f800000, 0x33800000], { mode: "ru" }) !== 0x3f800001) throw new Error();
 * if (floatAdd(BF16, [0x3f80, 0xbf80], { mode: "rd" }) !== 0x8000) throw new Error(); // 1 - 1 = -0
 * ```
 */
export function floatAdd(
  format: FloatFormat,
  addends: readonly [number, number],
  options: ScalarOptions = {},
): number {
  const decoded = _operands(format, addends, options);
  if (decoded === undefined) return _nanResult(format, options);
  const [x, y] = decoded as [_Operand, _Operand];
  if (x.kind === "inf" || y.kind === "inf") {
    if (x.kind === "inf" && y.kind === "inf" && x.sign !== y.sign) {
      return _nanResult(format, options);
    }
    return packInfinity(format, x.kind === "inf" ? x.sign : y.sign);
  }
  if (y.kind === "zero") {
    if (x.kind === "finite") return roundPack(format, x, options); // x + 0 = x exactly
    return packZero(format, _zeroSumSign({ x: x.sign, y: y.sign, bothZero: true }, options));
  }
  if (x.kind === "zero") return roundPack(format, y, options);
  return _exactSum(format, { x, y }, options);
}
