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
export * from "./format.ts";
export * from "./decode.ts";
export * from "./round_pack.ts";
export * from "./convert.ts";
export * from "./bit_length.ts";
export * from "./fast_fp32.ts";
