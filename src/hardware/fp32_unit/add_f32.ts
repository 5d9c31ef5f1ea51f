/**
 * `addF32`: IEEE FP32 addition in the four rounding modes, the PTX `add.{rn,rz,rp,rm}[.ftz].f32`.
 *
 * A fast path on float64, tested bit for bit against the reference `floatAdd(FP32, ...)` of
 * `src/numerics` (tests/hardware/fp32_unit/).
 *
 * @module
 */
import { FP32, type RoundingMode } from "../../numerics/mod.ts";
import { type F32OpOptions, flushSubnormal } from "./f32_options.ts";
import { _roundToF32, roundToOdd } from "./round_to_f32.ts";

const _f32 = new Float32Array(2);
const _u32 = new Uint32Array(_f32.buffer);

/**
 * Computes `a + b` with one rounding. Nearest-even: the float64 sum rounded once more to FP32 is
 * the correctly rounded FP32 sum, because 53 >= 2 * 24 + 2 (double rounding is innocuous for
 * addition when the wider precision is at least 2p + 2; S. A. Figueroa, "When is double rounding
 * innocuous?", SIGNUM Newsletter 30(3), 1995), and float64 addition already gives IEEE's zero
 * signs. Directed modes: float64 `s = RN(a + b)` plus the exact TwoSum error, rounded to odd,
 * then rounded once to FP32 (see `roundToF32` for the proof sketch). An exact zero sum is +0
 * (-0 in `rd`), `±0 + ±0` of equal signs keeps the sign; NaN results are the canonical NaN
 * 0x7FFFFFFF.
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @param options rounding `mode` (default `"rne"`) and `ftz`
 * @returns FP32 pattern of `fl(a + b)`
 * @example
 * ```ts
 * import { addF32 } from "./add_f32.ts";
 * if (addF32(0x3f800000, 0x33800000) !== 0x3f800000) throw new Error(); // 1 + 2^-24: tie to even
 * if (addF32(0x3f800000, 0x33800000, { mode: "ru" }) !== 0x3f800001) throw new Error();
 * ```
 */
export function addF32(a: number, b: number, options: F32OpOptions = {}): number {
  return _addF32(a, b, options.mode ?? "rne", options.ftz === true);
}

/**
 * `add.rn.f32` without `.ftz`, the hot form of {@link addF32} (same contract, same bits).
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @returns FP32 pattern of `fl(a + b)`
 */
export function _addRn(a: number, b: number): number {
  _u32[0] = a;
  _u32[1] = b;
  const s = (_f32[0] as number) + (_f32[1] as number);
  if (s !== s) return FP32.canonicalNan;
  _f32[0] = s; // the second rounding (innocuous, see addF32)
  return _u32[0] as number;
}

/**
 * Positional core of {@link addF32} (same contract).
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @param mode rounding direction
 * @param ftz flush subnormal inputs and results
 * @returns FP32 pattern
 */
export function _addF32(a: number, b: number, mode: RoundingMode, ftz: boolean): number {
  if (mode !== "rne") return _addDirected(a, b, mode, ftz);
  return ftz ? _addRnFtz(a, b) : _addRn(a, b);
}

/**
 * `add.rn.ftz.f32`: inputs flushed, the innocuous double rounding of {@link addF32}, then a
 * subnormal result flushed (same contract, same bits).
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @returns FP32 pattern
 */
export function _addRnFtz(a: number, b: number): number {
  const bits = _addRn(flushSubnormal(a), flushSubnormal(b));
  return (bits & 0x7f800000) === 0 ? (bits & 0x80000000) >>> 0 : bits;
}

/**
 * `add.{rz,rp,rm}[.ftz].f32`: TwoSum, round to odd, one rounding to FP32 (same contract).
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @param mode a directed rounding mode (`rz`, `ru`, `rd`)
 * @param ftz flush subnormal inputs and results
 * @returns FP32 pattern
 */
export function _addDirected(a: number, b: number, mode: RoundingMode, ftz: boolean): number {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  _u32[0] = a;
  _u32[1] = b;
  const x = _f32[0] as number;
  const y = _f32[1] as number;
  const s = x + y;
  if (s !== s) return FP32.canonicalNan;
  if (s === 0) {
    if (x === 0 && y === 0 && Object.is(x, y)) return Object.is(x, -0) ? 0x80000000 : 0;
    return mode === "rd" ? 0x80000000 : 0;
  }
  if (s === Infinity || s === -Infinity) return s > 0 ? 0x7f800000 : 0xff800000;
  const bb = s - x;
  const e = (x - (s - bb)) + (y - bb);
  return _roundToF32(roundToOdd(s, e), mode, ftz);
}
