/**
 * `sqrtF32`: correctly rounded FP32 square root, the PTX `sqrt.{rn,rz,rp,rm}[.ftz].f32`.
 *
 * @module
 */
import { FP32, roundPack } from "../../numerics/mod.ts";
import { CUDA_NAN, type F32OpOptions, flushSubnormal, isNanF32 } from "./f32_options.ts";
import { _unpack } from "./_exact_f32.ts";

/**
 * Computes `sqrt(a)` with one rounding. Exact integer method: with `a = s * 2^e`, `e` made even
 * and `s` below 2^25, `n = s * 2^28 < 2^53`; `q = floor(sqrt(n))` (26 or 27 bits) is fixed up
 * with exact integer squares (all below 2^53 or compared against them monotonically), and `q*q !== n`
 * is the sticky bit; `roundPack` rounds `q * 2^((e - 28) / 2)` once. `sqrt(±0) = ±0`,
 * `sqrt(+inf) = +inf`, negative operands and NaN give {@link CUDA_NAN}.
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
  if (ftz) a = flushSubnormal(a);
  a >>>= 0;
  if (isNanF32(a)) return CUDA_NAN;
  if ((a & 0x7fffffff) === 0) return a;
  if (a >= 0x80000000) return CUDA_NAN;
  if (a === 0x7f800000) return a;
  let { sig, exp } = _unpack(a);
  if ((exp & 1) !== 0) {
    sig *= 2;
    exp -= 1;
  }
  const n = sig * 2 ** 28;
  let q = Math.floor(Math.sqrt(n));
  while (q * q > n) q -= 1;
  while ((q + 1) * (q + 1) <= n) q += 1;
  const value = { sign: 0 as const, significand: q, exponent: (exp - 28) / 2, sticky: q * q !== n };
  return roundPack(FP32, value, { mode: options.mode ?? "rne", ftz }) >>> 0;
}
