/**
 * `divF32`: correctly rounded FP32 division, the PTX `div.{rn,rz,rp,rm}[.ftz].f32` (IEEE compliant).
 *
 * @module
 */
import { FP32, roundPack } from "../../numerics/mod.ts";
import { CUDA_NAN, type F32OpOptions, flushSubnormal, isNanF32 } from "./f32_options.ts";
import { _unpack } from "./_exact_f32.ts";

/**
 * Computes `a / b` with one rounding. Exact integer method: with normalised 24-bit significands,
 * `q = floor(sa * 2^26 / sb)` (dividend below 2^50, so every integer is exact in float64; the
 * floor is corrected with the exact remainder) has 26 or 27 bits, and the remainder is the sticky
 * bit; `roundPack` rounds `q * 2^(ea - eb - 26)` once. Specials follow IEEE 754: `0/0`, `inf/inf`
 * and NaN operands give {@link CUDA_NAN}; `x/0` is a signed infinity; `x/inf` a signed zero.
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
  if (ftz) {
    a = flushSubnormal(a);
    b = flushSubnormal(b);
  }
  if (isNanF32(a) || isNanF32(b)) return CUDA_NAN;
  const sign = ((a ^ b) >>> 31) as 0 | 1;
  const signBits = sign ? 0x80000000 : 0;
  const aMag = a & 0x7fffffff;
  const bMag = b & 0x7fffffff;
  const aInf = aMag === 0x7f800000;
  const bInf = bMag === 0x7f800000;
  if ((aInf && bInf) || (aMag === 0 && bMag === 0)) return CUDA_NAN;
  if (aInf || bMag === 0) return (signBits + 0x7f800000) >>> 0;
  if (bInf || aMag === 0) return signBits;
  const x = _unpack(aMag);
  const y = _unpack(bMag);
  const dividend = x.sig * 2 ** 26;
  let q = Math.floor(dividend / y.sig);
  let r = dividend - q * y.sig; // exact: all terms are integers below 2^53
  if (r < 0) {
    q -= 1;
    r += y.sig;
  } else if (r >= y.sig) {
    q += 1;
    r -= y.sig;
  }
  const value = { sign, significand: q, exponent: x.exp - y.exp - 26, sticky: r !== 0 };
  return roundPack(FP32, value, { mode: options.mode ?? "rne", ftz }) >>> 0;
}
