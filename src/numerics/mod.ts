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
export * from "./format.ts";
export * from "./decode.ts";
export * from "./round_pack.ts";
export * from "./convert.ts";
export * from "./bit_length.ts";
export * from "./fast_fp32.ts";
export * from "./scalar_options.ts";
export * from "./float_add.ts";
export * from "./float_mul.ts";
export * from "./float_fma.ts";
export * from "./float_div.ts";
export * from "./float_sqrt.ts";
