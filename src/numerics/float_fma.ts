/**
 * `floatFma`: IEEE 754 fused multiply-add in any format, rounded once by `roundPack` (the
 * reference path).
 *
 * @module
 */
import type { FloatFormat } from "./format.ts";
import { packInfinity, packZero, roundPack } from "./round_pack.ts";
import type { ScalarOptions } from "./scalar_options.ts";
import { _nanResult, type _Operand, _operands, _zeroSumSign } from "./_scalar_rules.ts";
import { _exactSum } from "./_exact_sum.ts";

/**
 * Computes `a * b + c` with one rounding (IEEE 754 fusedMultiplyAdd). The product is exact (at
 * most 48 significant bits) and is added to `c` exactly before the single rounding. NaN operands,
 * `0 * inf` and `inf - inf` give the NaN of `options.nan`; an exact zero sum follows IEEE's sign
 * rule (the operands' common sign when the product and `c` are zeros of one sign, else +0, or -0
 * toward -infinity).
 *
 * @param format operand and result format
 * @param terms the three patterns `[a, b, c]`
 * @param options rounding `mode`, result `ftz`, input `daz`, `overflow` rule and `nan` pattern
 * @returns the pattern of `fl(a * b + c)`
 * @throws {RangeError} when an operand is not a pattern of `format`
 * @example
 * ```ts
 * import { floatFma } from "./float_fma.ts";
 * import { FP32 } from "./format.ts";
 * // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 needs the unrounded product.
 * if (floatFma(FP32, [0x3f800800, 0x3f800800, 0xbf800000]) !== 0x3a000400) throw new Error();
 * ```
 */
export function floatFma(
  format: FloatFormat,
  terms: readonly [number, number, number],
  options: ScalarOptions = {},
): number {
  const decoded = _operands(format, terms, options);
  if (decoded === undefined) return _nanResult(format, options);
  const [x, y, z] = decoded as [_Operand, _Operand, _Operand];
  const sign = (x.sign ^ y.sign) as 0 | 1;
  const productInf = x.kind === "inf" || y.kind === "inf";
  const productZero = x.kind === "zero" || y.kind === "zero";
  if (productInf && productZero) return _nanResult(format, options);
  if (productInf || z.kind === "inf") {
    if (productInf && z.kind === "inf" && sign !== z.sign) return _nanResult(format, options);
    return packInfinity(format, productInf ? sign : z.sign);
  }
  if (productZero || x.kind !== "finite" || y.kind !== "finite") {
    if (z.kind === "zero") {
      return packZero(format, _zeroSumSign({ x: sign, y: z.sign, bothZero: true }, options));
    }
    return roundPack(format, z, options);
  }
  const product = {
    sign,
    significand: x.significand * y.significand, // exact: below 2^48
    exponent: x.exponent + y.exponent,
  };
  if (z.kind === "zero") return roundPack(format, product, options);
  return _exactSum(format, { x: product, y: z }, options);
}
