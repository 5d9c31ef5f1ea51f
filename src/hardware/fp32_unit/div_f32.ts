/**
 * `divF32`: correctly rounded FP32 division, the PTX `div.{rn,rz,rp,rm}[.ftz].f32` (IEEE compliant).
 *
 * @module
 */
import { floatDiv, FP32 } from "../../numerics/mod.ts";
import type { F32OpOptions } from "./f32_options.ts";

/**
 * Computes `a / b` with one rounding: the format-generic reference `floatDiv` on FP32, with
 * `.ftz` as both input flushing (`daz`) and result flushing (`ftz`) and the canonical NaN
 * 0x7FFFFFFF. Division has no float64 fast path: the integer quotient is the method.
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
  const ftz = options.ftz === true;
  return floatDiv(FP32, [a >>> 0, b >>> 0], { mode: options.mode ?? "rne", ftz, daz: ftz }) >>> 0;
}
