/**
 * The float64 first step of the correctly rounded `ieeeEx2`: RN(2^f · 2^k) when a float64
 * evaluation with a proven error bound decides it, else `undefined` (the caller then runs the
 * BigInt steps). Only IEEE double `+`, `*` and `Math.floor` are used: correctly rounded or exact
 * on every host, so the outcome never depends on the CPU or on the engine's libm.
 *
 * @module
 */
import { _POW2 } from "./_pow2.ts";
import { exp2Fixed } from "./exp2_fixed.ts";

/** RN(ln 2) as a double: |LN2 − ln 2| ≤ 2^−54 < 2^−53 · ln 2. */
const _LN2 = 0.6931471805599453;
/** RN(1/k!) for k = 2..6 (1/1! = 1 is exact). */
const _C2 = 0.5, _C3 = 1 / 6, _C4 = 1 / 24, _C5 = 1 / 120, _C6 = 1 / 720;

/** 2^(j/64) for j = 0..63, each within 1.01 · 2^−53 relative (built on first use). */
let _table: Float64Array | undefined;

function _exp2Table(): Float64Array {
  const t = new Float64Array(64);
  for (let j = 0; j < 64; j++) {
    // exp2Fixed is within 2^−120 here; Number(bigint) rounds to nearest (≤ 2^−53 relative);
    // the division by 2^128 is exact.
    t[j] = Number(exp2Fixed(BigInt(j), { den: 6, bits: 128 }).value) / 2 ** 128;
  }
  return t;
}

/**
 * RN(2^f · 2^k) as an integer, for f in (0, 1) with at most 48 fraction bits and k in [0, 23],
 * or `undefined` when the float64 evaluation cannot decide it.
 *
 * Error bound (u = 2^−53): f = j/64 + r exactly (r < 2^−6, a multiple of 2^−48); t = r·LN2 is
 * within 2u + u² of r·ln 2, which moves e^t by < 0.03u (t < 0.011); the degree-6 Taylor
 * polynomial misses < t^7/7! · 1.02 < 2^−58; its Horner evaluation, all terms positive, is within
 * γ12 < 12.01u, and the rounded coefficients within u; the table entry adds 1.01u, the last
 * product u. In all |v − 2^f| < 16u · 2^f = 2^−49 · 2^f. The test below widens that to
 * E = 2^−47 · V (V = v · 2^k, exact) and absorbs the ≤ 2^−52 · V of rounding in V ± E + 1/2, so
 * equal floors at both ends prove the rounding of the true value, which (2^f irrational for
 * f ∉ ℤ) is never a midpoint.
 *
 * @param f the fraction, 0 < f < 1, a multiple of 2^−48
 * @param k the fraction bits kept, 0 ≤ k ≤ 23
 * @returns the rounded integer in [2^k, 2^(k+1)], or `undefined`
 */
export function _roundExp2Fast(f: number, k: number): number | undefined {
  const table = _table ??= _exp2Table();
  const j = Math.floor(f * 64);
  const r = f - j / 64;
  const t = r * _LN2;
  const p = 1 + t * (1 + t * (_C2 + t * (_C3 + t * (_C4 + t * (_C5 + t * _C6)))));
  const v = (table[j] as number) * p * (_POW2[k] as number);
  const e = v * 2 ** -47;
  const lo = Math.floor(v - e + 0.5);
  return lo === Math.floor(v + e + 0.5) ? lo : undefined;
}
