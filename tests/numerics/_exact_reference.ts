/**
 * Test-only exact reference for decoding and rounding, independent of `src/numerics`.
 *
 * Values are BigInt dyadic rationals. Rounding does not split significands: it bisects the
 * format's ordered grid of magnitudes for the two neighbours of the value, then picks one per
 * rounding direction; overflow, flush-to-zero and NaN rules are applied to the picked grid point.
 *
 * @module
 */
import { addDyadic, compareDyadic, type Dyadic, dyadic } from "./_dyadic.ts";
import { type Neighbours, tableNeighbours } from "./_grid_table.ts";
import {
  allOnesNanPattern,
  indexPattern,
  indexValue,
  infPattern,
  maxFiniteIndex,
  padBits,
  type RefFormat,
} from "./_ref_formats.ts";

/** A decoded pattern: zero is a finite value with `mag.num === 0n`. */
export type RefValue =
  | { readonly kind: "nan"; readonly sign: 0 | 1 }
  | { readonly kind: "inf"; readonly sign: 0 | 1 }
  | { readonly kind: "finite"; readonly sign: 0 | 1; readonly mag: Dyadic; readonly sub: boolean };

export type { Neighbours };

/** Rounding options understood by the reference (same meaning as `RoundPackOptions`). */
export interface RefRoundOptions {
  readonly mode?: "rne" | "rz" | "ru" | "rd";
  readonly overflow?: "ieee" | "saturate" | "infinity";
  readonly ftz?: boolean;
}

/**
 * Decodes a pattern field by field.
 *
 * @param f format
 * @param bits pattern, padding bits zero
 * @returns the exact value
 * @throws {RangeError} when the pattern is out of range or has padding bits set
 * @example
 * ```ts
 * import { refDecode } from "./_exact_reference.ts";
 * import { refFormat } from "./_ref_formats.ts";
 * const v = refDecode(refFormat("e4m3"), 0x7e);
 * if (v.kind !== "finite" || v.mag.num * 2n ** BigInt(v.mag.exp) !== 448n) throw new Error();
 * ```
 */
export function refDecode(f: RefFormat, bits: number): RefValue {
  const pad = 2 ** padBits(f);
  if (!Number.isInteger(bits) || bits < 0 || bits >= 2 ** f.storageBits || bits % pad !== 0) {
    throw new RangeError(`Cannot decode reference ${f.name}: bad pattern ${bits}`);
  }
  const half = 2 ** (f.storageBits - 1);
  const sign: 0 | 1 = bits >= half ? 1 : 0;
  const index = (bits - sign * half) / pad;
  if (index > maxFiniteIndex(f)) {
    const fracAllZero = index % 2 ** f.fracBits === 0;
    return !f.e4m3fn && fracAllZero ? { kind: "inf", sign } : { kind: "nan", sign };
  }
  return { kind: "finite", sign, mag: indexValue(f, index), sub: index < 2 ** f.fracBits };
}

/**
 * Locates a magnitude on the grid by bisection over magnitude indices. Formats of at most 16
 * bits bisect a cached table of the whole grid (`_grid_table.ts`); wider ones compute each
 * probed grid value on the fly.
 *
 * @param f format
 * @param mag non-negative exact magnitude
 * @returns the lower neighbour, exactness and the comparison with the midpoint
 */
export function refNeighbours(f: RefFormat, mag: Dyadic): Neighbours {
  return f.storageBits <= 16 ? tableNeighbours(f, mag) : refNeighboursOnTheFly(f, mag);
}

/**
 * {@link refNeighbours} without the cached table: every probed grid value is built from its
 * fields. Used for the fp32-container formats, and to cross-check the table path.
 *
 * @param f format
 * @param mag non-negative exact magnitude
 * @returns the lower neighbour, exactness and the comparison with the midpoint
 */
export function refNeighboursOnTheFly(f: RefFormat, mag: Dyadic): Neighbours {
  const top = maxFiniteIndex(f) + 1;
  if (compareDyadic(mag, indexValue(f, top)) >= 0) return { lo: top, exact: false, vsMid: 1 };
  let lo = 0; // invariant: value(lo) <= mag < value(hi)
  let hi = top;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (compareDyadic(indexValue(f, mid), mag) <= 0) lo = mid;
    else hi = mid;
  }
  const exact = compareDyadic(indexValue(f, lo), mag) === 0;
  const twice = { num: mag.num, exp: mag.exp + 1 };
  const vsMid = compareDyadic(twice, addDyadic(indexValue(f, lo), indexValue(f, lo + 1)));
  return { lo, exact, vsMid };
}

/**
 * Picks the rounded pattern from precomputed neighbours.
 *
 * @param f format
 * @param sign sign of the value
 * @param nb where the magnitude lies (from {@link refNeighbours})
 * @param options direction, overflow rule, flush-to-zero
 * @returns the pattern
 */
export function refPick(
  f: RefFormat,
  sign: 0 | 1,
  nb: Neighbours,
  options: RefRoundOptions,
): number {
  const mode = options.mode ?? "rne";
  const max = maxFiniteIndex(f);
  let index = nb.lo;
  if (!nb.exact && nb.lo <= max) {
    const away = mode === "rne"
      ? nb.vsMid > 0 || (nb.vsMid === 0 && nb.lo % 2 === 1)
      : mode === "ru"
      ? sign === 0
      : mode === "rd"
      ? sign === 1
      : false;
    if (away) index += 1;
  }
  if (index > max) return _overflow(f, sign, mode, options.overflow ?? "ieee");
  if (options.ftz === true && index > 0 && index < 2 ** f.fracBits) return indexPattern(f, sign, 0);
  return indexPattern(f, sign, index);
}

function _overflow(f: RefFormat, sign: 0 | 1, mode: string, rule: string): number {
  const inf = f.e4m3fn ? allOnesNanPattern(f, sign) : infPattern(f, sign);
  const maxFinite = indexPattern(f, sign, maxFiniteIndex(f));
  if (rule === "saturate") return maxFinite;
  if (rule === "infinity") return inf;
  const toInf = mode === "rne" || (mode === "ru" && sign === 0) || (mode === "rd" && sign === 1);
  return toInf ? inf : maxFinite;
}

/**
 * Rounds `(-1)^sign * (mag + sticky)` to a format, where a sticky bit means "a positive amount
 * smaller than anything that can matter": it is modelled as `2^(min(mag.exp, qmin - 1) - 1)`
 * with `qmin` the smallest quantum, strictly between `mag` and every rounding boundary above it.
 *
 * @param f target format
 * @param sign 1 for negative
 * @param mag exact magnitude
 * @param options direction, overflow rule, flush-to-zero and sticky flag
 * @returns the pattern
 * @example
 * ```ts
 * import { dyadic } from "./_dyadic.ts";
 * import { refRound } from "./_exact_reference.ts";
 * import { refFormat } from "./_ref_formats.ts";
 * if (refRound(refFormat("bf16"), 0, dyadic(257, -8)) !== 0x3f80) throw new Error(); // tie: even
 * ```
 */
export function refRound(
  f: RefFormat,
  sign: 0 | 1,
  mag: Dyadic,
  options: RefRoundOptions & { readonly sticky?: boolean } = {},
): number {
  let v = mag;
  if (options.sticky === true) {
    const qmin = 2 - 2 ** (f.expBits - 1) - f.fracBits;
    v = addDyadic(mag, dyadic(1, Math.min(mag.exp, qmin - 1) - 1));
  } else if (mag.num === 0n) {
    return indexPattern(f, sign, 0);
  }
  return refPick(f, sign, refNeighbours(f, v), options);
}
