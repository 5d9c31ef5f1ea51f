/**
 * Double-float ("df") arithmetic as SLEEF's SIMD single-precision code performs it on FMA targets
 * (the `ENABLE_FMA_SP` branch of SLEEF's `df.h`, taken by its AVX2 and AVX-512F builds): a value
 * is an unevaluated sum `hi + lo` of two FP32 numbers, and every step below is one FP32
 * instruction with one round-to-nearest-even rounding, in the order SLEEF issues them. Facts from
 * SLEEF 3.5.1 / 3.6 (Boost Software License 1.0), written here in our own words.
 *
 * Host arithmetic: FP32 values live in numbers. A sum, difference, product or quotient of two FP32
 * values computed in float64 and then rounded by `Math.fround` equals the FP32 operation's result
 * (53 >= 2 * 24 + 2: the double rounding is innocuous); fused operations go through `fmaRnValue`
 * (one rounding).
 *
 * @module
 */
import { fmaRnValue } from "../../hardware/mod.ts";

const f = Math.fround;

/** An unevaluated FP32 pair `hi + lo` (SLEEF's `vfloat2`). */
export interface _Df {
  /** The leading FP32 value. */
  readonly hi: number;
  /** The trailing FP32 value (the rounding error of `hi`, roughly). */
  readonly lo: number;
}

/** `a * b - c`, one rounding (VFMSUB). */
export function _fmsub(a: number, b: number, c: number): number {
  return fmaRnValue(a, b, -c);
}

/** `-(a * b) + c`, one rounding (VFNMADD). */
export function _fnmadd(a: number, b: number, c: number): number {
  return fmaRnValue(-a, b, c);
}

/** `x + y` of two FP32 values with no magnitude order assumed (SLEEF `dfadd2_vf2_vf_vf`). */
export function _dfAdd2FF(x: number, y: number): _Df {
  const s = f(x + y);
  const v = f(s - x);
  return { hi: s, lo: f(f(x - f(s - v)) + f(y - v)) };
}

/** `x + y`, x a pair, y a value, no order assumed (`dfadd2_vf2_vf2_vf`). */
export function _dfAdd2DfF(x: _Df, y: number): _Df {
  const s = f(x.hi + y);
  const v = f(s - x.hi);
  const t = f(f(x.hi - f(s - v)) + f(y - v));
  return { hi: s, lo: f(t + x.lo) };
}

/** `x + y` of two pairs, no order assumed (`dfadd2_vf2_vf2_vf2`). */
export function _dfAdd2DfDf(x: _Df, y: _Df): _Df {
  const s = f(x.hi + y.hi);
  const v = f(s - x.hi);
  const t = f(f(x.hi - f(s - v)) + f(y.hi - v));
  return { hi: s, lo: f(t + f(x.lo + y.lo)) };
}

/** `x + y` of two pairs assuming |x| >= |y| (`dfadd_vf2_vf2_vf2`): lo = (((x.hi - s) + y.hi) + x.lo) + y.lo. */
export function _dfAddDfDf(x: _Df, y: _Df): _Df {
  const s = f(x.hi + y.hi);
  return { hi: s, lo: f(f(f(f(x.hi - s) + y.hi) + x.lo) + y.lo) };
}

/** `x + y`, x a value, y a pair, assuming |x| >= |y| (`dfadd_vf2_vf_vf2`). */
export function _dfAddFDf(x: number, y: _Df): _Df {
  const s = f(x + y.hi);
  return { hi: s, lo: f(f(f(x - s) + y.hi) + y.lo) };
}

/** Renormalises a pair: `s = hi + lo`, `lo' = (hi - s) + lo` (`dfnormalize_vf2_vf2`). */
export function _dfNormalize(t: _Df): _Df {
  const s = f(t.hi + t.lo);
  return { hi: s, lo: f(f(t.hi - s) + t.lo) };
}

/** Both halves times one value, two roundings (`dfscale_vf2_vf2_vf`). */
export function _dfScale(d: _Df, s: number): _Df {
  return { hi: f(d.hi * s), lo: f(d.lo * s) };
}

/** Pair times value (`dfmul_vf2_vf2_vf`, FMA form): lo = fma(x.lo, y, fmsub(x.hi, y, hi)). */
export function _dfMulDfF(x: _Df, y: number): _Df {
  const s = f(x.hi * y);
  return { hi: s, lo: fmaRnValue(x.lo, y, _fmsub(x.hi, y, s)) };
}

/** Pair times pair (`dfmul_vf2_vf2_vf2`, FMA form). */
export function _dfMulDfDf(x: _Df, y: _Df): _Df {
  const s = f(x.hi * y.hi);
  return { hi: s, lo: fmaRnValue(x.hi, y.lo, fmaRnValue(x.lo, y.hi, _fmsub(x.hi, y.hi, s))) };
}

/** Square of a pair (`dfsqu_vf2_vf2`, FMA form): lo = fma(hi + hi, lo, fmsub(hi, hi, s)). */
export function _dfSqu(x: _Df): _Df {
  const s = f(x.hi * x.hi);
  return { hi: s, lo: fmaRnValue(f(x.hi + x.hi), x.lo, _fmsub(x.hi, x.hi, s)) };
}

/**
 * Pair over pair (`dfdiv_vf2_vf2_vf2`, FMA form): `t = 1 / d.hi` (an IEEE division),
 * `s = n.hi * t`, `u = fmsub(t, n.hi, s)`, `v = fnmadd(d.lo, t, fnmadd(d.hi, t, 1))`,
 * `lo = fma(s, v, fma(n.lo, t, u))`.
 */
export function _dfDiv(n: _Df, d: _Df): _Df {
  const t = f(1 / d.hi);
  const s = f(n.hi * t);
  const u = _fmsub(t, n.hi, s);
  const v = _fnmadd(d.lo, t, _fnmadd(d.hi, t, 1));
  return { hi: s, lo: fmaRnValue(s, v, fmaRnValue(n.lo, t, u)) };
}
