/**
 * Conversions between any two formats.
 *
 * @module
 */
import { decode } from "./decode.ts";
import type { FloatFormat } from "./format.ts";
import { packInfinity, packZero, roundPack, type RoundPackOptions } from "./round_pack.ts";

/** Options of {@link convert}. */
export interface ConvertOptions extends RoundPackOptions {
  /** Flush subnormal inputs to signed zero before converting; default false. */
  readonly daz?: boolean;
  /**
   * Pattern of the target format to return for NaN inputs; default the target's canonical NaN
   * (NVIDIA's, e.g. 0x7FFF for bf16). PyTorch's CPU/GPU `float -> bfloat16` returns 0x7FC0.
   */
  readonly nan?: number;
}

/**
 * Converts a stored pattern from one format to another, rounding as asked.
 *
 * Infinity maps to infinity (e4m3 has none: NaN, or the largest finite value under
 * `overflow: "saturate"`, as PTX `cvt.satfinite` does); NaN maps to `options.nan`.
 *
 * @param from source format
 * @param to target format
 * @param bits source pattern
 * @param options rounding direction, FTZ/DAZ, overflow rule, NaN pattern
 * @returns the target pattern
 * @throws {RangeError} when `bits` is not a pattern of `from`
 * @example
 * ```ts
 * import { convert } from "./convert.ts";
 * import { BF16, FP32 } from "./format.ts";
 * // 1 + 2^-8 + 2^-20 in fp32 rounds up to 1 + 2^-7 in bf16 (0x3f81) but truncates to 1.0.
 * if (convert(FP32, BF16, 0x3f800000 + 0x8000 + 0x8) !== 0x3f81) throw new Error();
 * if (convert(FP32, BF16, 0x3f808008, { mode: "rz" }) !== 0x3f80) throw new Error();
 * ```
 */
export function convert(
  from: FloatFormat,
  to: FloatFormat,
  bits: number,
  options: ConvertOptions = {},
): number {
  const d = decode(from, bits, options.daz === undefined ? {} : { daz: options.daz });
  switch (d.kind) {
    case "zero":
      return packZero(to, d.sign);
    case "nan":
      return options.nan ?? to.canonicalNan;
    case "inf":
      if (to.special === "e4m3fn" && options.overflow === "saturate") {
        return roundPack(to, { sign: d.sign, significand: 1, exponent: 1024 }, options);
      }
      return packInfinity(to, d.sign);
    case "finite":
      return roundPack(to, d, options);
  }
}
