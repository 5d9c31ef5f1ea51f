/**
 * Whole-row forms of `fma.rn[.ftz].f32` and `mul.rn[.ftz].f32` for hot loops that apply one
 * scalar to a row (a split-KV combine adds `w * O_s` into O, an epilogue scales O by `1/sum`):
 * the row is read and written through `Float32Array` views of its patterns, so no element goes
 * through a scratch buffer or a call. Same method and bits as `fmaF32`/`mulF32` (tested bit for
 * bit against them, tests/hardware/fp32_unit/).
 *
 * @module
 */
import { FP32 } from "../../numerics/mod.ts";
import { roundToOdd } from "./round_to_f32.ts";

/** 2^-126, the smallest normal FP32 magnitude. */
const MIN_NORMAL = 2 ** -126;
const _f32 = new Float32Array(1);
const _u32 = new Uint32Array(_f32.buffer);

/** A view of a row's FP32 patterns as values (reads are exact; a store rounds to nearest-even). */
function _values(row: Uint32Array): Float32Array {
  return new Float32Array(row.buffer, row.byteOffset, row.length);
}

/** The value of a pattern, a subnormal flushed to a zero of its sign when `ftz`. */
function _scalar(bits: number, ftz: boolean): number {
  _u32[0] = bits;
  const v = _f32[0] as number;
  // x * 0 is a zero of x's sign: the `.ftz` input rule on values.
  return ftz && Math.abs(v) < MIN_NORMAL ? v * 0 : v;
}

/**
 * `acc[j] = fma.rn(a, x[j], acc[j])` for every j, in place (`.ftz` when `ftz`).
 *
 * Method (that of `fmaF32`): `p = a * x[j]` is exact in float64 (48 significant bits, exponent
 * in [-298, 256]); `s = p + acc[j]` with its exact TwoSum error `e`, rounded to odd, is rounded
 * once to FP32 by the `Float32Array` store (nearest-even; correct by the round-to-odd theorem,
 * see `roundToF32`). A zero, infinite or NaN `s` is exact already: float64 addition gives IEEE's
 * zero signs in nearest-even, and a NaN result is stored as the canonical NaN 0x7FFFFFFF. With
 * `ftz` subnormal inputs are read as zeros of their sign and a subnormal result is stored as one.
 *
 * @param a the scalar, FP32 pattern
 * @param x the row multiplied, FP32 patterns (at least `acc.length`)
 * @param acc the row added to and overwritten, FP32 patterns
 * @param ftz `.ftz`
 */
export function _fmaRowRn(a: number, x: Uint32Array, acc: Uint32Array, ftz: boolean): void {
  const av = _scalar(a, ftz);
  const xv = _values(x);
  const zv = _values(acc);
  for (let j = 0; j < acc.length; j++) {
    let y = xv[j] as number;
    let z = zv[j] as number;
    if (ftz) {
      if (Math.abs(y) < MIN_NORMAL) y *= 0;
      if (Math.abs(z) < MIN_NORMAL) z *= 0;
    }
    const p = av * y; // exact: see above
    const s = p + z;
    let r: number;
    if (s === 0 || s - s !== 0) {
      if (s !== s) {
        acc[j] = FP32.canonicalNan;
        continue;
      }
      r = s; // zero or infinity: exact
    } else {
      const bb = s - p; // TwoSum (Knuth): e is the exact error of s
      r = Math.fround(roundToOdd(s, (p - (s - bb)) + (z - bb)));
    }
    zv[j] = ftz && Math.abs(r) < MIN_NORMAL ? r * 0 : r;
  }
}

/**
 * `out[j] = mul.rn(x[j], b)` for every j (`.ftz` when `ftz`); `out` may be `x`.
 *
 * Method (that of `mulF32`): the float64 product of two FP32 values is exact, so the
 * `Float32Array` store is the only rounding; a NaN product is stored as the canonical NaN.
 *
 * @param x the row, FP32 patterns (at least `out.length`)
 * @param b the scalar, FP32 pattern
 * @param out the result row, FP32 patterns
 * @param ftz `.ftz`
 */
export function _mulRowRn(x: Uint32Array, b: number, out: Uint32Array, ftz: boolean): void {
  const bv = _scalar(b, ftz);
  const xv = _values(x);
  const ov = _values(out);
  for (let j = 0; j < out.length; j++) {
    let y = xv[j] as number;
    if (ftz && Math.abs(y) < MIN_NORMAL) y *= 0;
    const p = y * bv; // exact
    if (p !== p) {
      out[j] = FP32.canonicalNan;
      continue;
    }
    const r = Math.fround(p);
    ov[j] = ftz && Math.abs(r) < MIN_NORMAL ? r * 0 : r;
  }
}
