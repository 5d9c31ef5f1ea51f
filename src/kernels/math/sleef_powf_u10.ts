/**
 * `sleefPowfU10`: SLEEF's 1-ulp single-precision `pow` (`Sleef_powf8_u10` / `Sleef_powf16_u10`)
 * as its FMA SIMD builds compute it on x86-64 (AVX2 and AVX-512F), bit for bit. PyTorch's CPU
 * `pow` kernel (`aten/src/ATen/native/cpu/PowKernel.cpp`, `cpu_kernel_vec`) runs it on every full
 * vector block through `Vectorized<float>::pow` (`vec256_float.h`, `vec512_float.h`). It is not
 * correctly rounded: 1e6^(74/128) = 2942.72718 gives 0x4537EBA2, one ulp below the correctly rounded
 * 0x4537EBA3.
 *
 * Algorithm (SLEEF 3.5.1 and 3.6 `xpowf` in `sleefsimdsp.c`, with `logkf`, `expkf` and the df
 * helpers; Boost Software License 1.0; described here, not copied): `exp(log|x| * y)` carried in
 * double-float. `logkf` splits `d = m * 2^e` with `e = ilogb(d * fl(4/3))`, m in [0.75, 1.5)
 * (inputs below 2^-126 first scaled by 2^64), `x = (m - 1) / (m + 1)` as a pair, a degree-2
 * polynomial in `x^2` (single FMAs) plus the pair constant 2/3, and `log = e * ln2 + 2x + x^3 * (...)`.
 * `expkf` takes `q = rint((hi + lo) * fl(1/ln2))`, reduces by `q * ln2` split in two, evaluates a
 * degree-4 polynomial with FMAs, adds 1 and scales by 2^q in four multiplies and one more (SLEEF's
 * `vldexp`), flushing to +0 below -104. `xpowf` then applies C99's special cases by selection.
 * The AVX-512F build reads `e` and `m` with VGETEXP/VGETMANT instead of the integer split; the
 * two agree (checked against both builds of the library: tests/kernels/math/).
 *
 * @module
 */
import { f2iValue, fmaRnValue } from "../../hardware/mod.ts";
import { bitsFromF32, f32FromBits } from "../../numerics/mod.ts";
import {
  type _Df,
  _dfAdd2DfDf,
  _dfAdd2DfF,
  _dfAdd2FF,
  _dfAddDfDf,
  _dfAddFDf,
  _dfDiv,
  _dfMulDfDf,
  _dfMulDfF,
  _dfNormalize,
  _dfScale,
  _dfSqu,
} from "./_sleef_df.ts";

const f = Math.fround;
const _v = f32FromBits;

// SLEEF's constants as FP32 patterns (its decimal literals rounded to float, as the C compiler does).
const FLT_MIN = _v(0x00800000);
const TWO_64 = _v(0x5f800000);
const FOUR_THIRDS = _v(0x3faaaaab); // 1.0f / 0.75f
const LOG_T0 = _v(0x3e76168a); // 0.2403203547...
const LOG_T1 = _v(0x3e91fa4a); // 0.2851126790...
const LOG_T2 = _v(0x3ecccdd9); // 0.4000079930...
const TWO_THIRDS: _Df = { hi: _v(0x3f2aaaaa), lo: _v(0x317db383) }; // 0.6666666269..., 3.6918386e-9
const LN2: _Df = { hi: _v(0x3f317218), lo: _v(0xb102e308) }; // 0.6931471825..., -1.9046542e-9
const R_LN2 = _v(0x3fb8aa3b); // 1 / ln 2
const L2U = _v(0x3f317200); // 0.693145751953125
const L2L = _v(0x35bfbe8e); // 1.4286068e-6
const EXP_P = [
  _v(0x3ab2aef6), // 0.0013632464...
  _v(0x3c09116b), // 0.0083659691...
  _v(0x3d2aaf4c), // 0.0416710823...
  _v(0x3e2aaa5e), // 0.1666655242...
  _v(0x3efffffb), // 0.4999998509...
] as const;
const TWO_24 = 16777216;
/** The NaN pattern SLEEF's NaN-input mask leaves (all bits set). */
const NAN_MASKED = 0xffffffff;
/** `SLEEF_NANf` (0x7FC00000), which a multiply returns unchanged. */
const NAN_DEFAULT = 0x7fc00000;

/**
 * x^y as SLEEF's `xpowf` (u10) computes it in its FMA SIMD builds, for every pair of FP32 patterns:
 * `r = expk(logk(|x|) * y)` (a pair times a value), NaN -> +inf, times 1 (x > 0), +-1 (x <= 0 and
 * y an integer: -1 when odd) or the NaN 0x7FC00000 (x < 0 and y not an integer); y = +-inf gives
 * +0, 1 or +inf by the sign of `(|x| - 1) * sign(y)`; x = +-0 or +-inf gives +0 or +inf (signed by
 * x for odd integer y); a NaN operand gives 0xFFFFFFFF; y = 0 or x = 1 gives 1.
 *
 * @param x FP32 pattern of the base
 * @param y FP32 pattern of the exponent
 * @returns FP32 pattern of SLEEF's result (NaN results as SLEEF leaves them: 0x7FC00000 or
 *   0xFFFFFFFF)
 * @example
 * ```ts
 * import { sleefPowfU10 } from "./sleef_powf_u10.ts";
 * // 1e6^(74/128): one ulp below the correctly rounded 0x4537eba3
 * if (sleefPowfU10(0x49742400, 0x3f140000) !== 0x4537eba2) throw new Error();
 * if (sleefPowfU10(0x40000000, 0x40400000) !== 0x41000000) throw new Error(); // 2^3 = 8
 * ```
 */
export function sleefPowfU10(x: number, y: number): number {
  const xv = f32FromBits(x >>> 0);
  const yv = f32FromBits(y >>> 0);
  const ay = Math.abs(yv);
  const yIsInt = Math.trunc(yv) === yv || ay > TWO_24;
  const yIsOdd = yIsInt && ay < TWO_24 && ay % 2 === 1;
  let r = _expk(_dfMulDfF(_logk(Math.abs(xv)), yv));
  if (Number.isNaN(r)) r = Infinity;
  let bits: number;
  if (xv > 0) bits = bitsFromF32(r);
  else if (yIsInt) bits = bitsFromF32(yIsOdd ? -r : r);
  else bits = NAN_DEFAULT;
  if (ay === Infinity) {
    const efx = f(Math.abs(xv) - 1) * (_signBit(y) ? -1 : 1); // sign flip only: exact
    bits = efx < 0 ? 0 : efx === 0 ? 0x3f800000 : 0x7f800000;
  }
  if (Math.abs(xv) === Infinity || xv === 0) {
    const mag = _signBit(y) !== (xv === 0) ? 0 : 0x7f800000;
    bits = (mag | (yIsOdd && _signBit(x) ? 0x80000000 : 0)) >>> 0;
  }
  if (Number.isNaN(xv) || Number.isNaN(yv)) bits = NAN_MASKED;
  if (yv === 0 || xv === 1) bits = 0x3f800000;
  return bits;
}

function _signBit(bits: number): boolean {
  return (bits & 0x80000000) !== 0;
}

/** SLEEF `logkf` (integer-split form) on a non-negative FP32 value: ln(d) as a pair. */
function _logk(d: number): _Df {
  const tiny = d < FLT_MIN;
  if (tiny) d = f(d * TWO_64); // exact scaling
  let e = ((bitsFromF32(f(d * FOUR_THIRDS)) >>> 23) & 0xff) - 0x7f;
  const m = f32FromBits((bitsFromF32(d) + ((-e << 23) | 0)) >>> 0); // exponent-field subtraction
  if (tiny) e -= 64;
  const x = _dfDiv(_dfAdd2FF(-1, m), _dfAdd2FF(1, m));
  const x2 = _dfSqu(x);
  const t = fmaRnValue(fmaRnValue(LOG_T0, x2.hi, LOG_T1), x2.hi, LOG_T2);
  let s = _dfMulDfF(LN2, e); // e is a small integer: exact as FP32
  s = _dfAddDfDf(s, _dfScale(x, 2));
  return _dfAddDfDf(s, _dfMulDfDf(_dfMulDfDf(x2, x), _dfAdd2DfDf(_dfMulDfF(x2, t), TWO_THIRDS)));
}

/** SLEEF `expkf`: e^(d.hi + d.lo) as FP32. */
function _expk(d: _Df): number {
  const q = _rintI32(f(f(d.hi + d.lo) * R_LN2));
  const qf = f(q); // int32 -> FP32 (CVTDQ2PS)
  let s = _dfAdd2DfF(d, f(qf * -L2U));
  s = _dfAdd2DfF(s, f(qf * -L2L));
  s = _dfNormalize(s);
  let u: number = EXP_P[0];
  for (let i = 1; i < EXP_P.length; i++) u = fmaRnValue(u, s.hi, EXP_P[i] as number);
  let t = _dfAddDfDf(s, _dfMulDfF(_dfSqu(s), u));
  t = _dfAddFDf(1, t);
  const r = _ldexp(f(t.hi + t.lo), q);
  return d.hi < -104 ? 0 : r;
}

/**
 * CVTPS2DQ: nearest-even to int32; NaN and values outside the int32 range give the "integer
 * indefinite" -2^31 (where the GPU's `cvt`, `f2iValue`, saturates).
 */
function _rintI32(u: number): number {
  return Math.abs(u) < 2147483648 ? f2iValue(u, "rne") : -2147483648;
}

/**
 * SLEEF's `vldexp_vf_vf_vi2`: `m = ((q + (q >> 31)) >> 6) - (q >> 31)) << 4` (arithmetic shifts,
 * int32 wrap-around), `q -= 4m`; `u = 2^(clamp(m + 127, 0, 255) - 127)` as a pattern; then
 * `x * u * u * u * u * 2^q` (the last factor's pattern `(q + 127) << 23`), six roundings.
 */
function _ldexp(x: number, q: number): number {
  let m = q >> 31;
  m = ((((m + q) | 0) >> 6) - m) << 4;
  q = (q - (m << 2)) | 0;
  m = (m + 0x7f) | 0;
  if (!(m > 0)) m = 0;
  if (m > 0xff) m = 0xff;
  let u = f32FromBits(m << 23);
  x = f(f(f(f(x * u) * u) * u) * u);
  u = f32FromBits((((q + 0x7f) | 0) << 23) >>> 0);
  return f(x * u);
}
