/**
 * `sqrtF32`: correctly rounded FP32 square root, the PTX `sqrt.{rn,rz,rp,rm}[.ftz].f32`.
 *
 * @module
 */
import { floatSqrt, FP32 } from "../../numerics/mod.ts";
import type { F32OpOptions } from "./f32_options.ts";

/**
 * Computes `sqrt(a)` with one rounding: the format-generic reference `floatSqrt` on FP32, with
 * `.ftz` as both input flushing (`daz`) and result flushing (`ftz`). `sqrt(±0) = ±0`,
 * `sqrt(+inf) = +inf`, negative operands and NaN give the canonical NaN 0x7FFFFFFF.
 *
 * @param a FP32 pattern
 * @param options rounding `mode` (default `"rne"`) and `ftz`
 * @returns FP32 pattern of `fl(sqrt(a))`
 * @example
 * ```ts
 * import { sqrtF32 } from "./sqrt_f32.ts";
 * if (sqrtF32(0x40000000) !== 0x3fb504f3) throw new Error(); // sqrt(2)
 * if (sqrtF32(0x40000000, { mode: "ru" }) !== 0x3fb504f4) throw new Error();
 * ```
 */
export function sqrtF32(a: number, options: F32OpOptions = {}): number {
  const ftz = options.ftz === true;
  return floatSqrt(FP32, a >>> 0, { mode: options.mode ?? "rne", ftz, daz: ftz }) >>> 0;
}
