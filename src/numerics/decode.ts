/**
 * Decoding of stored bit patterns into exact sign/exponent/significand triples.
 *
 * @module
 */
import type { FloatFormat } from "./format.ts";

/** An exactly decoded value: `(-1)^sign * significand * 2^exponent` for finite values. */
export type Decoded =
  | { readonly kind: "zero"; readonly sign: 0 | 1 }
  | {
    readonly kind: "finite";
    readonly sign: 0 | 1;
    /** Exponent of the significand's least significant bit. */
    readonly exponent: number;
    /** Integer significand, hidden bit included for normals (at most fracBits + 1 bits). */
    readonly significand: number;
    /** True for subnormal encodings (no hidden bit). */
    readonly subnormal: boolean;
  }
  | { readonly kind: "inf"; readonly sign: 0 | 1 }
  | { readonly kind: "nan"; readonly sign: 0 | 1 };

/** Options of {@link decode}. */
export interface DecodeOptions {
  /** Treat subnormal inputs as signed zero ("denormals are zero"); default false. */
  readonly daz?: boolean;
}

/**
 * Splits a stored pattern into its exact value.
 *
 * @param format the pattern's format
 * @param bits the stored pattern as an unsigned integer (`storageBits` wide; tf32 in its fp32 container)
 * @param options `daz` flushes subnormal inputs to zero
 * @returns the decoded value; a subnormal's exponent is pinned at `emin - fracBits`
 * @throws {RangeError} when `bits` is not an integer pattern of the format's width
 * @example
 * ```ts
 * import { decode } from "./decode.ts";
 * import { BF16 } from "./format.ts";
 * const d = decode(BF16, 0x3fc0); // 1.5
 * if (d.kind !== "finite" || d.significand * 2 ** d.exponent !== 1.5) throw new Error();
 * ```
 */
export function decode(format: FloatFormat, bits: number, options: DecodeOptions = {}): Decoded {
  if (!Number.isInteger(bits) || bits < 0 || bits >= 2 ** format.storageBits) {
    throw new RangeError(
      `Cannot decode ${format.name}: expected an unsigned ${format.storageBits}-bit pattern, got ${bits}`,
    );
  }
  const signShift = format.storageBits - 1;
  const sign = (Math.floor(bits / 2 ** signShift) & 1) as 0 | 1;
  const body = Math.floor(bits / 2 ** format.containerShift);
  const frac = body % 2 ** format.fracBits;
  const biased = Math.floor(body / 2 ** format.fracBits) % 2 ** format.expBits;
  const expAllOnes = biased === 2 ** format.expBits - 1;
  if (expAllOnes) {
    if (format.special === "ieee") {
      return frac === 0 ? { kind: "inf", sign } : { kind: "nan", sign };
    }
    if (frac === 2 ** format.fracBits - 1) return { kind: "nan", sign };
  }
  if (biased === 0) {
    if (frac === 0 || options.daz === true) return { kind: "zero", sign };
    return {
      kind: "finite",
      sign,
      exponent: format.emin - format.fracBits,
      significand: frac,
      subnormal: true,
    };
  }
  return {
    kind: "finite",
    sign,
    exponent: biased - format.bias - format.fracBits,
    significand: 2 ** format.fracBits + frac,
    subnormal: false,
  };
}

/**
 * Converts a decoded finite value to a host number. Exact whenever the value is representable in
 * float64, which holds for every format here (at most 24 significand bits, exponents within
 * float64's range).
 *
 * @param d a decoded value
 * @returns the value as a number (NaN, ±Infinity and -0 included)
 * @example
 * ```ts
 * import { decodedToNumber } from "./decode.ts";
 * if (decodedToNumber({ kind: "zero", sign: 1 }) !== 0) throw new Error();
 * ```
 */
export function decodedToNumber(d: Decoded): number {
  switch (d.kind) {
    case "zero":
      return d.sign ? -0 : 0;
    case "inf":
      return d.sign ? -Infinity : Infinity;
    case "nan":
      return NaN;
    case "finite": {
      const v = d.significand * 2 ** d.exponent;
      return d.sign ? -v : v;
    }
  }
}
