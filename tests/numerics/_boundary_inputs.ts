/**
 * fp32 input patterns on the rounding boundaries of a target format: every selected grid point
 * of the target and every midpoint between neighbours (the overflow threshold included), each
 * with the fp32 patterns one ulp below and above, in both signs, plus fp32's own specials.
 *
 * @module
 */
import { addDyadic, type Dyadic, dyadicToNumber } from "./_dyadic.ts";
import { f32Bits } from "./_ref_convert.ts";
import { indexValue, maxFiniteIndex, type RefFormat } from "./_ref_formats.ts";

/** fp32 specials and extremes: zeros, infinities, NaNs, subnormal/normal edges, max finite. */
export const FP32_SPECIALS: readonly number[] = Object.freeze([
  0x00000000,
  0x80000000,
  0x7f800000,
  0xff800000, // ±0, ±inf
  0x7fc00000,
  0xffc00000,
  0x7f800001,
  0xff800001,
  0x7fffffff,
  0xffffffff,
  0x7fbfffff, // NaNs
  0x00000001,
  0x80000001,
  0x007fffff,
  0x807fffff,
  0x00800000,
  0x80800000, // subnormal edges
  0x7f7fffff,
  0xff7fffff,
  0x3f800000,
  0xbf800000, // max finite, ±1
]);

/**
 * Magnitude indices of a target to probe: all of them, or per exponent field the first and
 * last few (for the 2^18- and 2^21-value grids of tf32 and e8m13).
 *
 * @param f target format
 * @param every whether to take every index
 * @param perBinade how many indices to take at each end of a binade when not `every`
 * @returns ascending indices within `[0, maxFiniteIndex(f)]`
 */
export function probeIndices(f: RefFormat, every: boolean, perBinade = 3): number[] {
  const max = maxFiniteIndex(f);
  if (every) return Array.from({ length: max + 1 }, (_, i) => i);
  const unit = 2 ** f.fracBits;
  const out = new Set<number>();
  for (let base = 0; base <= max; base += unit) {
    for (let k = 0; k < perBinade; k++) {
      out.add(base + k);
      out.add(Math.min(base + unit - 1 - k, max));
    }
  }
  out.add(max);
  return [...out].sort((a, b) => a - b);
}

function _addAround(out: Set<number>, v: Dyadic): void {
  const p = f32Bits(dyadicToNumber(v)); // throws unless exactly an fp32 value
  for (const sign of [0, 2 ** 31]) {
    for (const q of [p - 1, p, p + 1]) {
      if (q >= 0 && q <= 0x7f800000) out.add(sign + q);
    }
  }
}

/**
 * Builds the boundary inputs of a target format.
 *
 * @param f target format
 * @param options `every`: probe every grid index rather than the ends of each binade;
 *   `perBinade`: how many indices at each end of a binade otherwise (default 3)
 * @returns distinct fp32 patterns
 * @throws {RangeError} when a boundary is not exactly an fp32 value (never for the formats here)
 * @example
 * ```ts
 * import { boundaryInputs } from "./_boundary_inputs.ts";
 * import { refFormat } from "./_ref_formats.ts";
 * // 464 (= 0x43e80000) is the e4m3 overflow threshold, between 448 and 480.
 * if (!boundaryInputs(refFormat("e4m3"), { every: true }).includes(0x43e80000)) throw new Error();
 * ```
 */
export function boundaryInputs(
  f: RefFormat,
  options: { readonly every: boolean; readonly perBinade?: number },
): number[] {
  const out = new Set<number>(FP32_SPECIALS);
  for (const i of probeIndices(f, options.every, options.perBinade ?? 3)) {
    const lo = indexValue(f, i);
    const hi = indexValue(f, i + 1); // i + 1 may be the point past the largest finite value
    _addAround(out, lo);
    const twiceMid = addDyadic(lo, hi);
    _addAround(out, { num: twiceMid.num, exp: twiceMid.exp - 1 });
  }
  return [...out];
}
