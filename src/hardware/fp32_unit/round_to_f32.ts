/**
 * `roundToF32`: rounds a float64 (exact, or rounded to odd) to FP32 in any rounding mode.
 *
 * This is not a second rounding rule: it is the float64 specialisation of
 * `roundPack(FP32, value, { mode, ftz })` from `src/numerics` (the one rounding path), used by the
 * fast add/mul/fma, and tested bit for bit equal to it (tests/hardware/fp32_unit/).
 *
 * @module
 */
import { FP32, type RoundingMode } from "../../numerics/mod.ts";

const _f32 = new Float32Array(1);
const _u32 = new Uint32Array(_f32.buffer);
const _f64 = new Float64Array(1);
const _w64 = new Uint32Array(_f64.buffer); // little-endian words: [low, high]

/**
 * Rounds a float64 to FP32 and returns the pattern.
 *
 * Correct when `x` is the exact value, or the exact value rounded to odd in float64 (see
 * {@link roundToOdd}): round-to-odd at 53 >= 24 + 2 bits followed by any rounding to 24 bits gives
 * the correctly rounded result (S. Boldo and G. Melquiond, "Emulation of FMA and correctly rounded
 * sums: proved algorithms using rounding to odd", IEEE TC 57(4), 2008, Theorem 1). An odd float64
 * is never an FP32 value nor an FP32 midpoint (both have at most 25 significant bits, and FP32's
 * whole range, subnormals included, is normal in float64), so it lies strictly inside the same
 * FP32 interval as the exact value. `Math.fround` is round-to-nearest-even; directed modes step to
 * the FP32 neighbour when `fround` went the wrong way. FTZ applies after rounding.
 *
 * @param x value (NaN gives the canonical NaN 0x7FFFFFFF)
 * @param options `mode` (default `"rne"`) and `ftz` (flush a subnormal result to ±0)
 * @returns FP32 pattern (unsigned 32-bit)
 * @example
 * ```ts
 * import { roundToF32 } from "./round_to_f32.ts";
 * const x = 1 + 2 ** -30;
 * if (roundToF32(x) !== 0x3f800000 || roundToF32(x, { mode: "ru" }) !== 0x3f800001) throw new Error();
 * if (roundToF32(-(2 ** 200), { mode: "rz" }) !== 0xff7fffff) throw new Error();
 * ```
 */
export function roundToF32(
  x: number,
  options: { readonly mode?: RoundingMode; readonly ftz?: boolean } = {},
): number {
  return _roundToF32(x, options.mode ?? "rne", options.ftz === true);
}

/**
 * Positional core of {@link roundToF32} for hot loops (same contract).
 *
 * @param x value
 * @param mode rounding direction
 * @param ftz flush a subnormal result to ±0
 * @returns FP32 pattern
 */
export function _roundToF32(x: number, mode: RoundingMode, ftz: boolean): number {
  if (x !== x) return FP32.canonicalNan;
  _f32[0] = x;
  let bits = _u32[0] as number;
  if (mode !== "rne") {
    const r = _f32[0] as number;
    if (r !== x) {
      const up = mode === "ru" || (mode === "rz" && x < 0);
      if (up && r < x) bits = _nextUp(bits);
      else if (!up && r > x) bits = _nextDown(bits);
    }
  }
  if (ftz && (bits & 0x7f800000) === 0) return (bits & 0x80000000) >>> 0;
  return bits;
}

/** The FP32 pattern just above (toward +inf). */
function _nextUp(bits: number): number {
  if (bits < 0x80000000) return bits + 1;
  return bits === 0x80000000 ? 1 : bits - 1;
}

/** The FP32 pattern just below (toward -inf). */
function _nextDown(bits: number): number {
  if (bits >= 0x80000000) return bits + 1;
  return bits === 0 ? 0x80000001 : bits - 1;
}

/**
 * Rounds `s + e` to odd in float64, given `s = RN(s + e)` and the exact error `e` (from TwoSum).
 *
 * If `e` is zero `s` is exact. Otherwise, when `s` has an even last bit, the exact value lies
 * strictly between `s` and its float64 neighbour on the side of `e`, and that neighbour is odd.
 *
 * @param s float64 nearest to the exact value
 * @param e exact error, |e| <= half an ulp of s
 * @returns the exact value rounded to odd
 * @example
 * ```ts
 * import { roundToOdd } from "./round_to_f32.ts";
 * if (roundToOdd(1, 2 ** -60) !== 1 + 2 ** -52 || roundToOdd(1, -(2 ** -60)) !== 1 - 2 ** -53) {
 *   throw new Error();
 * }
 * ```
 */
export function roundToOdd(s: number, e: number): number {
  if (e === 0) return s;
  _f64[0] = s;
  const lo = _w64[0] as number;
  if ((lo & 1) === 1) return s;
  if ((e > 0) === (s > 0)) {
    _w64[0] = lo + 1; // even, so no carry: one ulp away from zero
  } else if (lo === 0) {
    _w64[0] = 0xffffffff; // one ulp toward zero, borrowing from the high word
    _w64[1] = (_w64[1] as number) - 1;
  } else {
    _w64[0] = lo - 1;
  }
  return _f64[0] as number;
}
