/**
 * `cudaLogf`: CUDA's accurate `logf` (libdevice `__nv_logf`), bit for bit.
 *
 * @module
 */
import { fmaRnValue } from "../../hardware/mod.ts";
import { bitsFromF32 as _bits, f32FromBits as _value } from "../../numerics/mod.ts";

/** Coefficients of log1p(f) - f + f^2/2 style polynomial, highest first (FP32 patterns). */
const P = [
  -0.13018856942653656, // 0xBE055027
  0.1408461034297943, // 0x3E1039F6
  -0.12148627638816833, // 0xBDF8CDCC
  0.1398061066865921, // 0x3E0F2955
  -0.16684235632419586, // 0xBE2AD8B9
  0.20012299716472626, // 0x3E4CED0B
  -0.24999669194221497, // 0xBE7FFF22
  0.333331823348999, // 0x3EAAAA78
  -0.5, // 0xBF000000
] as const;
const LN2 = 0.6931471824645996; // 0x3F317218
const TWO_M23 = 1.1920928955078125e-7; // 0x34000000
const MIN_NORMAL = 1.1754943508222875e-38; // 0x00800000

/**
 * ln(x) as `__nv_logf` in libdevice.10.bc computes it (no `__nvvm_reflect` branch changes the
 * path; the FTZ build only adds `.ftz` to the FMAs): inputs below 2^-126 (negatives and zeros
 * too) are scaled by 2^23 with `i = -23`; the pattern minus 0x3F2AAAAB, masked to its exponent
 * field, splits `x = 2^e * m` with m in [2/3, 4/3); `k = fma(float(e), 2^-23, i)`, `f = m - 1`,
 * a degree-9 Horner chain of single-rounding FMAs ending in -0.5, then `fl(p * f)`,
 * `fma(., f, f)` and `fma(k, ln2, .)`. Patterns at or above 0x7F800000 as unsigned integers
 * (inf, NaN, negatives) give `fma(x, inf, inf)`; a zero gives -inf. No MUFU is involved.
 *
 * @param bits FP32 pattern of x
 * @returns FP32 pattern of logf(x); NaN results are 0x7FFFFFFF
 * @example
 * ```ts
 * import { cudaLogf } from "./cuda_logf.ts";
 * if (cudaLogf(0x40000000) !== 0x3f317218) throw new Error(); // ln 2
 * if (cudaLogf(0x80000000) !== 0xff800000 || cudaLogf(0xbf800000) !== 0x7fffffff) throw new Error();
 * ```
 */
export function cudaLogf(bits: number): number {
  let a = _value(bits);
  let b = bits >>> 0;
  let i = 0;
  if (a < MIN_NORMAL) {
    a = Math.fround(a * 8388608); // exact scaling by 2^23
    b = _bits(a);
    i = -23;
  }
  const e = (b - 0x3f2aaaab) & 0xff800000; // int32, as `and i32`
  const m = _value((b - e) >>> 0);
  const k = fmaRnValue(Math.fround(e), TWO_M23, i);
  const f = Math.fround(m - 1);
  let p = fmaRnValue(P[0], f, P[1]);
  for (let j = 2; j < P.length; j++) p = fmaRnValue(p, f, P[j] as number);
  const g = fmaRnValue(Math.fround(p * f), f, f);
  let r = fmaRnValue(k, LN2, g);
  if (b >= 0x7f800000) r = fmaRnValue(a, Infinity, Infinity);
  if (a === 0) r = -Infinity;
  return _bits(r);
}
