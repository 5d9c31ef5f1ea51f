/**
 * `divF32`: correctly rounded FP32 division, the PTX `div.{rn,rz,rp,rm}[.ftz].f32` (IEEE compliant).
 *
 * A fast path on float64, tested bit for bit against the reference `floatDiv(FP32, ...)` of
 * `src/numerics` (tests/hardware/fp32_unit/fast_path_test.ts).
 *
 * @module
 */
import { FP32, type RoundingMode } from "../../numerics/mod.ts";
import { type F32OpOptions, flushSubnormal } from "./f32_options.ts";
import { _roundToF32 } from "./round_to_f32.ts";

const _f32 = new Float32Array(2);
const _u32 = new Uint32Array(_f32.buffer);

/**
 * Computes `a / b` with one rounding, with `.ftz` as both input flushing and result flushing and
 * the canonical NaN 0x7FFFFFFF.
 *
 * Exact method: q = RN64(a / b), then one rounding of q to FP32 in the requested mode. Every
 * quotient of finite non-zero FP32 values lies in [2^-277, 2^277], where float64 is normal, so
 * |q - a/b| <= 2^-53 |a/b|. An FP32 value or FP32 midpoint f (a multiple of 2^-150) with
 * a/b != f is far from a/b: a - b f is a non-zero multiple of 2^(eb - 23) * 2^-150 or of a's
 * grid, so |a/b - f| >= 2^-49 |f| for f >= 2^-126 and >= 2^-174 below (b in [2^eb, 2^(eb+1))),
 * both more than the 2^-53 relative (at most 2^-179 absolute below 2^-126) error of q. Hence
 * q lies in the same open interval between consecutive FP32 values and midpoints as a/b, or q
 * equals a/b when a/b is such a point: any rounding of q to FP32 is the rounding of a/b
 * (nearest-even included, where this is S. Figueroa's innocuous double rounding, 53 >= 2 * 24 + 2).
 * Zeros, infinities and NaN follow IEEE 754 in float64 the same way they do in FP32.
 *
 * @param a dividend, FP32 pattern
 * @param b divisor, FP32 pattern
 * @param options rounding `mode` (default `"rne"`) and `ftz`
 * @returns FP32 pattern of `fl(a / b)`
 * @example
 * ```ts
 * import { divF32 } from "./div_f32.ts";
 * if (divF32(0x3f800000, 0x40400000) !== 0x3eaaaaab) throw new Error(); // 1/3
 * if (divF32(0x3f800000, 0x40400000, { mode: "rz" }) !== 0x3eaaaaaa) throw new Error();
 * ```
 */
export function divF32(a: number, b: number, options: F32OpOptions = {}): number {
  return _divF32(a, b, options.mode ?? "rne", options.ftz === true);
}

/**
 * Positional core of {@link divF32} (same contract).
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @param mode rounding direction
 * @param ftz flush subnormal inputs and results
 * @returns FP32 pattern
 */
export function _divF32(a: number, b: number, mode: RoundingMode, ftz: boolean): number {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  _u32[0] = a;
  _u32[1] = b;
  const q = (_f32[0] as number) / (_f32[1] as number);
  if (q !== q) return FP32.canonicalNan;
  return _roundToF32(q, mode, ftz);
}
