/**
 * Number formats and rounding on bit patterns (the SoftFloat layer). No hardware knowledge.
 *
 * Values travel as stored bit patterns; {@link decode} gives the exact value and
 * {@link roundPack} is the only way back.
 *
 * @example
 * ```ts
 * import { BF16, convert, decode, FP32 } from "./mod.ts";
 * const bits = convert(FP32, BF16, 0x40490fdb); // pi -> bf16, nearest-even
 * const d = decode(BF16, bits);
 * if (bits !== 0x4049 || d.kind !== "finite") throw new Error();
 * ```
 * @module
 */
export { bitLength } from "./bit_length.ts";
export { convert, type ConvertOptions } from "./convert.ts";
export { decode, type Decoded, decodedToNumber, type DecodeOptions } from "./decode.ts";
export { bitsFromF32, f32FromBits, fp32Add, fp32ToBf16 } from "./fast_fp32.ts";
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
