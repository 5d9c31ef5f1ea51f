/**
 * Binary floating-point format descriptors.
 *
 * A format is data: exponent and fraction widths, bias, how NaN and infinity are encoded, and how
 * wide a stored bit pattern is. Every other numeric routine is written once against this
 * descriptor, never per format.
 *
 * NaN and infinity rules per format (IEEE 754-2019 for fp32/fp16, bf16 and tf32 follow the same
 * rules at their widths; OCP 8-bit Floating Point Specification v1.0 for the fp8 formats):
 * - fp32, tf32, bf16, fp16, e5m2: all-ones exponent with zero fraction is ±infinity, all-ones
 *   exponent with non-zero fraction is NaN.
 * - e4m3 ("E4M3FN"): no infinities; only S.1111.111 is NaN, so the all-ones exponent still holds
 *   finite values up to 448.
 * - tf32 is stored in an fp32 container: the low 13 fraction bits of the pattern are zero.
 *
 * @module
 */
import { quoteShort } from "../escape_text.ts";

/** Names of the formats bitaudit knows. `e8m13` is the 13-fraction-bit fp32 grid of fp8 tensor cores. */
export type FormatName = "fp32" | "tf32" | "bf16" | "fp16" | "e4m3" | "e5m2" | "e8m13";

/** How a format encodes the top exponent value. */
export type SpecialEncoding = "ieee" | "e4m3fn";

/** A binary floating-point format (immutable). */
export interface FloatFormat {
  /** Short name, e.g. `"bf16"`. */
  readonly name: FormatName;
  /** Exponent field width in bits. */
  readonly expBits: number;
  /** Stored fraction field width in bits (without the hidden bit). */
  readonly fracBits: number;
  /** Exponent bias. */
  readonly bias: number;
  /** Bits of the stored pattern including container padding (tf32: 32). */
  readonly storageBits: 8 | 16 | 32;
  /** Zero bits below the fraction in the container (tf32: 13, e8m13: 10, else 0). */
  readonly containerShift: number;
  /** NaN/infinity convention. */
  readonly special: SpecialEncoding;
  /** Unbiased exponent of the smallest normal number. */
  readonly emin: number;
  /** Unbiased exponent of the largest finite number. */
  readonly emax: number;
  /** Largest finite significand (integer, hidden bit included) at `emax`. */
  readonly maxSignificand: number;
  /** Pattern returned for a NaN result (NVIDIA canonical NaN, positive sign). */
  readonly canonicalNan: number;
}

function _make(
  name: FormatName,
  expBits: number,
  fracBits: number,
  storageBits: 8 | 16 | 32,
  special: SpecialEncoding,
  canonicalNan: number,
): FloatFormat {
  const bias = 2 ** (expBits - 1) - 1;
  const containerShift = storageBits - 1 - expBits - fracBits;
  // e4m3fn keeps the all-ones exponent for finite values except S.1111.111 (NaN).
  const emax = special === "e4m3fn" ? 2 ** expBits - 1 - bias : 2 ** expBits - 2 - bias;
  const full = 2 ** (fracBits + 1) - 1;
  const maxSignificand = special === "e4m3fn" ? full - 1 : full;
  return Object.freeze({
    name,
    expBits,
    fracBits,
    bias,
    storageBits,
    containerShift,
    special,
    emin: 1 - bias,
    emax,
    maxSignificand,
    canonicalNan,
  });
}

/** IEEE binary32. Canonical NaN 0x7FFFFFFF as produced by NVIDIA tensor cores (PTX ISA §9.7.14). */
export const FP32: FloatFormat = _make("fp32", 8, 23, 32, "ieee", 0x7fffffff);
/** TensorFloat-32 (1/8/10) held in an fp32 container with the low 13 bits zero. */
export const TF32: FloatFormat = _make("tf32", 8, 10, 32, "ieee", 0x7fffe000);
/** bfloat16 (1/8/7). */
export const BF16: FloatFormat = _make("bf16", 8, 7, 16, "ieee", 0x7fff);
/** IEEE binary16 (1/5/10). */
export const FP16: FloatFormat = _make("fp16", 5, 10, 16, "ieee", 0x7fff);
/** OCP FP8 E4M3 ("E4M3FN": no infinities, max 448). */
export const E4M3: FloatFormat = _make("e4m3", 4, 3, 8, "e4m3fn", 0x7f);
/** OCP FP8 E5M2 (IEEE-like, max 57344). */
export const E5M2: FloatFormat = _make("e5m2", 5, 2, 8, "ieee", 0x7f);
/**
 * fp32 exponent range with 13 fraction bits, held in an fp32 container (low 10 bits zero): the
 * output grid of the fp8 tensor-core datapath on Ada (`mma`) and Hopper (`wgmma`), per
 * Khattak & Mikaitis (arXiv:2512.07004, Table II, "Acc. out. prec.") and MMA-Sim's `f32_e8m13`.
 */
export const E8M13: FloatFormat = _make("e8m13", 8, 13, 32, "ieee", 0x7fffe000);

/** Every format by name. */
export const FORMATS: Readonly<Record<FormatName, FloatFormat>> = Object.freeze({
  fp32: FP32,
  tf32: TF32,
  bf16: BF16,
  fp16: FP16,
  e4m3: E4M3,
  e5m2: E5M2,
  e8m13: E8M13,
});

/**
 * Looks a format up by name.
 *
 * @param name format name such as `"bf16"`
 * @returns the frozen format descriptor
 * @throws {RangeError} when the name is unknown
 * @example
 * ```ts
 * import { formatByName } from "./format.ts";
 * if (formatByName("fp16").fracBits !== 10) throw new Error("fp16 has 10 fraction bits");
 * ```
 */
export function formatByName(name: string): FloatFormat {
  const f = Object.hasOwn(FORMATS, name) ? FORMATS[name as FormatName] : undefined;
  if (f === undefined) {
    throw new RangeError(
      `Cannot find format: expected one of ${Object.keys(FORMATS).join(", ")}, got ${
        quoteShort(name, 40)
      }`,
    );
  }
  return f;
}
