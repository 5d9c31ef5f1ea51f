/**
 * `fmaF32`: single-rounding fused multiply-add on FP32 patterns, the PTX `fma.{rn,rz,rp,rm}[.ftz].f32`.
 *
 * A fast path on float64, tested bit for bit against the reference `floatFma(FP32, ...)` of
 * `src/numerics` (tests/hardware/fp32_unit/).
 *
 * @module
 */
import { FP32, type RoundingMode } from "../../numerics/mod.ts";
import { type F32OpOptions, flushSubnormal } from "./f32_options.ts";
import { _roundToF32, roundToOdd } from "./round_to_f32.ts";

const _f32 = new Float32Array(3);
const _u32 = new Uint32Array(_f32.buffer);

/**
 * Computes `a * b + c` with one rounding (IEEE 754 fusedMultiplyAdd on binary32).
 *
 * Method (error-free transformation, no double rounding): the product of two 24-bit significands
 * has at most 48 bits and its exponent lies in [-298, 256], so `p = a * b` is exact in float64.
 * Knuth's TwoSum gives `s = RN64(p + c)` and the exact error `e` with `s + e = p + c` (float64 cannot
 * overflow or underflow here). `s` is then rounded to odd with `e` as sticky information, and one
 * final rounding to FP32 in the requested mode is correct by the round-to-odd theorem (see
 * `roundToF32`). Special values follow IEEE 754: NaN operands and `inf * 0` give NaN (the canonical
 * NaN 0x7FFFFFFF); an exact zero sum is +0 except in `rd` (-0), and `±0 + ±0` of equal signs keeps
 * the sign.
 *
 * @param operands `[a, b, c]` FP32 patterns
 * @param options rounding `mode` (default `"rne"`) and `ftz`
 * @returns FP32 pattern of `fl(a * b + c)`
 * @example
 * ```ts
 * import { fmaF32 } from "./fma_f32.ts";
 * // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 needs the unrounded product (fl(a*a) - 1 gives 2^-11).
 * if (fmaF32([0x3f800800, 0x3f800800, 0xbf800000]) !== 0x3a000400) throw new Error();
 * // +0 + -0 is -0 when rounding toward -inf.
 * if (fmaF32([0x3f800000, 0, 0x80000000], { mode: "rd" }) !== 0x80000000) throw new Error();
 * ```
 */
export function fmaF32(
  operands: readonly [number, number, number],
  options: F32OpOptions = {},
): number {
  const [a, b, c] = operands;
  return _fmaF32(a, b, c, options.mode ?? "rne", options.ftz === true);
}

/**
 * Positional core of {@link fmaF32} for the bound `f32Arith` form (same contract).
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @param c FP32 pattern
 * @param mode rounding direction
 * @param ftz flush subnormal inputs and results
 * @returns FP32 pattern
 */
export function _fmaF32(a: number, b: number, c: number, mode: RoundingMode, ftz: boolean): number {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
    c = flushSubnormal(c);
  }
  _u32[0] = a;
  _u32[1] = b;
  _u32[2] = c;
  const x = _f32[0] as number;
  const y = _f32[1] as number;
  const z = _f32[2] as number;
  const p = x * y; // exact: see the method above
  if (p !== p || z !== z) return FP32.canonicalNan; // NaN operand or inf * 0
  const s = p + z;
  if (s !== s) return FP32.canonicalNan; // inf - inf
  if (s === 0) return _zeroSum(p, z, mode);
  if (s === Infinity || s === -Infinity) return s > 0 ? 0x7f800000 : 0xff800000; // an inf operand
  const bb = s - p; // TwoSum (Knuth): e is the exact error of s
  const e = (p - (s - bb)) + (z - bb);
  return _roundToF32(roundToOdd(s, e), mode, ftz);
}

/** Sign of an exact zero sum (IEEE 754 §6.3). */
function _zeroSum(p: number, z: number, mode: RoundingMode): number {
  const pNeg = Object.is(p, -0);
  const zNeg = Object.is(z, -0);
  if (p === 0 && z === 0 && pNeg === zNeg) return pNeg ? 0x80000000 : 0;
  return mode === "rd" ? 0x80000000 : 0;
}

/**
 * `fma.rn.f32` on FP32 values held in numbers, for the libdevice recipes' hot paths; same method as
 * {@link fmaF32} without `.ftz`. For nearest-even, float64 addition already gives IEEE's zero signs (`x + -x = +0`,
 * `-0 + -0 = -0`) and propagates infinities and NaN, so only finite non-zero sums need the
 * round-to-odd step.
 *
 * @param x FP32 value
 * @param y FP32 value
 * @param z FP32 value
 * @returns the FP32 value `fl(x * y + z)` (NaN for NaN results)
 * @example
 * ```ts
 * import { fmaRnValue } from "./fma_f32.ts";
 * const a = 1 + 2 ** -12; // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24, exact only when fused
 * if (fmaRnValue(a, a, -1) !== 2 ** -11 + 2 ** -24) throw new Error();
 * ```
 */
export function fmaRnValue(x: number, y: number, z: number): number {
  const p = x * y;
  const s = p + z;
  if (s === 0 || s - s !== 0) return s; // zero, infinity or NaN: exact already
  const bb = s - p;
  return Math.fround(roundToOdd(s, (p - (s - bb)) + (z - bb)));
}
