/**
 * `mulF32`: IEEE FP32 multiplication in the four rounding modes, the PTX `mul.{rn,rz,rp,rm}[.ftz].f32`.
 *
 * A fast path on float64, tested bit for bit against the reference `floatMul(FP32, ...)` of
 * `src/numerics` (tests/hardware/fp32_unit/).
 *
 * @module
 */
import { FP32, type RoundingMode } from "../../numerics/mod.ts";
import { type F32OpOptions, flushSubnormal } from "./f32_options.ts";
import { _roundToF32 } from "./round_to_f32.ts";

const _f32 = new Float32Array(2);
const _u32 = new Uint32Array(_f32.buffer);

/**
 * Computes `a * b` with one rounding. Exact method: the float64 product of two FP32 values is exact
 * (at most 48 significant bits, exponent in [-298, 256]), so one rounding to FP32 is the only one.
 * NaN results (NaN operand, `inf * 0`) are the canonical NaN 0x7FFFFFFF.
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @param options rounding `mode` (default `"rne"`) and `ftz`
 * @returns FP32 pattern of `fl(a * b)`
 * @example
 * ```ts
 * import { mulF32 } from "./mul_f32.ts";
 * if (mulF32(0x3f800001, 0x3f800001) !== 0x3f800002) throw new Error();
 * if (mulF32(0x3f800001, 0x3f800001, { mode: "ru" }) !== 0x3f800003) throw new Error();
 * ```
 */
export function mulF32(a: number, b: number, options: F32OpOptions = {}): number {
  return _mulF32(a, b, options.mode ?? "rne", options.ftz === true);
}

/**
 * Positional core of {@link mulF32} (same contract).
 *
 * @param a FP32 pattern
 * @param b FP32 pattern
 * @param mode rounding direction
 * @param ftz flush subnormal inputs and results
 * @returns FP32 pattern
 */
export function _mulF32(a: number, b: number, mode: RoundingMode, ftz: boolean): number {
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  _u32[0] = a;
  _u32[1] = b;
  const p = (_f32[0] as number) * (_f32[1] as number);
  if (p !== p) return FP32.canonicalNan;
  return _roundToF32(p, mode, ftz);
}
