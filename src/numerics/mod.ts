/**
 * Number formats and rounding on bit patterns (the SoftFloat layer). No hardware knowledge.
 *
 * Values travel as stored bit patterns; {@link decode} gives the exact value and
 * {@link roundPack} is the only way back. The scalar operations ({@link floatAdd},
 * {@link floatMul}, {@link floatFma}, {@link floatDiv}, {@link floatSqrt}) work in any format,
 * with rounding mode, subnormal flushing and NaN policy as parameters: they are the reference
 * path that every fast path is tested against.
 *
 * @example
 * ```ts
 * import { BF16, convert, decode, floatAdd, FP32 } from "./mod.ts";
 * const bits = convert(FP32, BF16, 0x40490fdb); // pi -> bf16, nearest-even
 * const d = decode(BF16, bits);
 * if (bits !== 0x4049 || d.kind !== "finite") throw new Error();
 * // 1 + 2^-24 ties to 1 in fp32 nearest-even; rounding up gives the next float.
 * if (floatAdd(FP32, [0x3f800000, 0x33800000], { mode: "ru" }) !== 0x3f800001) throw new Error();
 * ```
 * @module
 */
export { bitLength } from "./bit_length.ts";
export { convert, type ConvertOptions } from "./convert.ts";
export { decode, type Decoded, decodedToNumber, type DecodeOptions } from "./decode.ts";
export { bitsFromF32, f32FromBits, fp32ToBf16 } from "./fast_fp32.ts";
export { floatAdd } from "./float_add.ts";
export { floatDiv } from "./float_div.ts";
export { floatFma } from "./float_fma.ts";
export { floatMul } from "./float_mul.ts";
export { floatSqrt } from "./float_sqrt.ts";
export {
  BF16,
  E4M3,
  E5M2,
  E8M13,
  type FloatFormat,
  formatByName,
  type FormatName,
  FORMATS,
  FP16,
  FP32,
  type SpecialEncoding,
  TF32,
} from "./format.ts";
export {
  type ExactMagnitude,
  type OverflowRule,
  packFields,
  packInfinity,
  packZero,
  type RoundingMode,
  roundPack,
  type RoundPackOptions,
} from "./round_pack.ts";
export { type ScalarOptions } from "./scalar_options.ts";
