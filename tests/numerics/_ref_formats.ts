/**
 * Field-by-field description of every format, written from the standards (IEEE 754-2019 for
 * fp32/fp16 and the IEEE-style bf16/tf32/e8m13 grids; OCP 8-bit Floating Point Specification
 * v1.0 for e4m3 and e5m2), independently of `src/numerics/format.ts`. The reference derives its
 * grid from these fields only; it never reads `emax`, `maxSignificand` or `bias` from the code
 * under test.
 *
 * @module
 */
import { type Dyadic, dyadic } from "./_dyadic.ts";

/** A format as the reference understands it. */
export interface RefFormat {
  /** Name shared with `FormatName` of the code under test. */
  readonly name: string;
  /** Exponent field bits. */
  readonly expBits: number;
  /** Fraction field bits. */
  readonly fracBits: number;
  /** Width of the stored pattern, container included. */
  readonly storageBits: 8 | 16 | 32;
  /** OCP E4M3: no infinity, the all-ones exponent holds finite values, NaN only at S.1111.111. */
  readonly e4m3fn: boolean;
}

/** Every format, keyed by name. */
export const REF_FORMATS: Readonly<Record<string, RefFormat>> = Object.freeze({
  fp32: { name: "fp32", expBits: 8, fracBits: 23, storageBits: 32, e4m3fn: false },
  tf32: { name: "tf32", expBits: 8, fracBits: 10, storageBits: 32, e4m3fn: false },
  e8m13: { name: "e8m13", expBits: 8, fracBits: 13, storageBits: 32, e4m3fn: false },
  bf16: { name: "bf16", expBits: 8, fracBits: 7, storageBits: 16, e4m3fn: false },
  fp16: { name: "fp16", expBits: 5, fracBits: 10, storageBits: 16, e4m3fn: false },
  e4m3: { name: "e4m3", expBits: 4, fracBits: 3, storageBits: 8, e4m3fn: true },
  e5m2: { name: "e5m2", expBits: 5, fracBits: 2, storageBits: 8, e4m3fn: false },
});

/**
 * Looks a reference format up by name.
 *
 * @param name format name
 * @returns the reference description
 * @throws {RangeError} for an unknown name
 */
export function refFormat(name: string): RefFormat {
  const f = REF_FORMATS[name];
  if (f === undefined) throw new RangeError(`Cannot find reference format '${name}'`);
  return f;
}

/** Bits between the fraction field and the bottom of the container (tf32: 13, e8m13: 10). */
export function padBits(f: RefFormat): number {
  return f.storageBits - 1 - f.expBits - f.fracBits;
}

/** IEEE bias `2^(expBits-1) - 1`. */
export function refBias(f: RefFormat): number {
  return 2 ** (f.expBits - 1) - 1;
}

/**
 * Largest "magnitude index" holding a finite value. A magnitude index is the pattern without
 * sign and padding (`exponent field : fraction field`); indices are ordered like the values.
 */
export function maxFiniteIndex(f: RefFormat): number {
  const top = 2 ** (f.expBits + f.fracBits);
  // IEEE: the whole all-ones exponent is inf/NaN. e4m3fn: only the all-ones index is NaN.
  return f.e4m3fn ? top - 2 : top - 2 ** f.fracBits - 1;
}

/**
 * Exact value of a magnitude index read field by field. Index `maxFiniteIndex + 1` gives the
 * grid point just past the largest finite value (2^(emax+1) for IEEE formats, 480 for e4m3),
 * which is where rounding with an unbounded exponent would land on overflow.
 *
 * @param f format
 * @param index magnitude index in `[0, maxFiniteIndex(f) + 1]`
 * @returns the value as a dyadic rational
 */
export function indexValue(f: RefFormat, index: number): Dyadic {
  const unit = 2 ** f.fracBits;
  const field = Math.floor(index / unit);
  const frac = index - field * unit;
  const bias = refBias(f);
  if (field === 0) return dyadic(frac, 1 - bias - f.fracBits); // subnormal: 0.frac * 2^(1-bias)
  return dyadic(unit + frac, field - bias - f.fracBits); // normal: 1.frac * 2^(field-bias)
}

/**
 * Stored pattern of a sign and a magnitude index.
 *
 * @param f format
 * @param sign 1 for negative
 * @param index magnitude index
 * @returns the pattern, padding bits zero
 */
export function indexPattern(f: RefFormat, sign: 0 | 1, index: number): number {
  return sign * 2 ** (f.storageBits - 1) + index * 2 ** padBits(f);
}

/** ±infinity pattern (IEEE formats only). */
export function infPattern(f: RefFormat, sign: 0 | 1): number {
  if (f.e4m3fn) throw new RangeError("Cannot encode infinity: e4m3 has none");
  return indexPattern(f, sign, (2 ** f.expBits - 1) * 2 ** f.fracBits);
}

/** NaN pattern with every exponent and fraction bit set (S.1111.111 for e4m3). */
export function allOnesNanPattern(f: RefFormat, sign: 0 | 1): number {
  return indexPattern(f, sign, 2 ** (f.expBits + f.fracBits) - 1);
}
