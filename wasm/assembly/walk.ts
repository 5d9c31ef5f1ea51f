// The K-walk of a GEMM tile: C[M,N] fp32 accumulators walked over kp operand pairs in blocks of
// L, four output columns per SIMD vector (one lane per output, one k per step).
//
// Fast path, per block and lane (all lanes of a tame row and tame panel):
//  1. E = max(max_k(ea_k + eb_k), top(c), floor) with integer lanes; zero operands carry NEG.
//     The k loop runs twice per block (exponents, then products): cheaper than keeping L
//     product vectors live.
//  2. scale = 2^(F-E) as an f32 built from its bits; valid (a normal power of two) when
//     E >= F - 126 (checked below) and E <= 127 + F - 23 (always: tame sums <= 126, top(c) <= 127).
//  3. t_k = trunc_sat((a_k * b_k) * scale). a_k * b_k is exact (decode.ts: tame operands). The
//     product is below 4 * 2^E, so p * scale < 2^(F+2) <= 2^27 and has at most 22 significant
//     bits: exact whenever it is >= 2^-126; otherwise it is < 1 both before and after rounding
//     and truncates to 0 either way. trunc_sat truncates toward zero, i.e. sign-magnitude
//     truncation onto the 2^(E-F) grid, exactly the reference's alignment.
//  4. Lane sums of L terms each <= 2^(F+2) - 1 stay below 2^31 (engineSupports requires
//     L * (2^(F+2) - 1) < 2^31), in any order, so chunk.ts's tree sums are exact in i32. The
//     accumulator term trunc(c * scale) (< 2^(F+1), same exactness argument) is added in f64
//     (exact, < 2^32).
//  5. RZ to fp32: masking the f64 integer's low 29 fraction bits keeps its leading 24 bits,
//     truncating toward zero; that value demotes to f32 exactly (24 bits, below 2^33). Then one
//     f32 multiplication by 2^(E-F) (a normal power of two since F - 126 <= E <= 127): exact
//     while the result is finite, and any result >= 2^128 rounds to infinity (the overflow rule
//     "infinity"). Because E - F >= -126, a non-zero sum is never below 2^-126, so gradual
//     underflow cannot occur on this path. An exact zero sum gives +0.
//  Lanes with E outside [F - 126, 127] (tiny blocks, all-zero blocks, c NaN/Inf: see cTop) are
//  recomputed with the exact scalar `blockExact`.
// Two rows share one panel walk (`walkPanelPair`): the same operations per output, in two
// independent dependency chains (each block's scale depends on the previous block's result), so
// the CPU can overlap them. The k loops are unrolled by 8 or 4 (chunk.ts). No relaxed-SIMD
// instruction is used.

import { expChunk, sumChunk } from "./chunk";
import { NEG } from "./decode";
import { fixLanes } from "./fix_lanes";
import { gF, gFloor, gL } from "./params";

/**
 * Biased-field exponent of fp32 accumulator lanes minus 127. For zero and subnormal c this gives
 * -127 instead of NEG / -126, and 128 for NaN/Inf: harmless, because any E <= -126 fails the
 * range check E >= F - 126 (F >= 10 gives a bound >= -116) and E >= 128 fails E <= 127;
 * such lanes take the exact path.
 */
@inline function cTop(c: v128): v128 {
  return i32x4.sub(i32x4.shr_u(i32x4.shl(c, 1), 24), i32x4.splat(127));
}

/** Keeps the leading 24 bits of the f64 integer lanes (truncation toward zero, step 5). */
@inline function keep24(v: v128): v128 {
  return v128.and(v, i64x2.splat(0xffffffffe0000000));
}

/** Step 1's E from the block's exponent maximum e and the accumulator c. */
@inline function blockBig(e: v128, c: v128): v128 {
  return i32x4.max_s(i32x4.max_s(e, cTop(c)), i32x4.splat(gFloor));
}

/** Step 2: scale = 2^(F-E) built from its bits. */
@inline function scaleOf(big: v128): v128 {
  return i32x4.shl(i32x4.sub(i32x4.splat(127 + gF), big), 23);
}

/** Steps 4-5: adds trunc(c * scale) to the lane sums s and rounds the result to fp32 (RZ). */
@inline function roundBlock(s: v128, c: v128, scale: v128, big: v128): v128 {
  const ac = i32x4.trunc_sat_f32x4_s(f32x4.mul(c, scale));
  const lo = f64x2.add(f64x2.convert_low_i32x4_s(s), f64x2.convert_low_i32x4_s(ac));
  const hi = f64x2.add(
    f64x2.convert_low_i32x4_s(i32x4.shuffle(s, s, 2, 3, 2, 3)),
    f64x2.convert_low_i32x4_s(i32x4.shuffle(ac, ac, 2, 3, 2, 3)),
  );
  const t = i32x4.shuffle(
    f32x4.demote_f64x2_zero(keep24(lo)),
    f32x4.demote_f64x2_zero(keep24(hi)),
    0, 1, 4, 5,
  );
  return f32x4.mul(t, i32x4.shl(i32x4.sub(big, i32x4.splat(gF - 127)), 23));
}

/** Lanes whose E lies outside [F - 126, 127]: they take the exact path. */
@inline function badLanes(big: v128): v128 {
  return i32x4.gt_u(i32x4.sub(big, i32x4.splat(gF - 126)), i32x4.splat(127 - (gF - 126)));
}

/**
 * Fast walk of one tame row against one tame panel of 4 columns (steps 1-5 above). `c` holds the
 * initial accumulators (lanes past the matrix edge hold 1.0, which keeps them on the fast path);
 * bRaw points at the raw pattern row of the panel's first column; lanes is the number of real
 * columns in the panel.
 */
export function walkPanel(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, c: v128,
): v128 {
  const L = gL;
  if (L % 8 == 0) return singleBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, c, 8);
  if (L % 4 == 0) return singleBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, c, 4);
  return singleBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, c, 1);
}

/** The block loop of `walkPanel`; `step` (a constant dividing L) is the unroll factor. */
@inline function singleBody(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, c: v128, step: i32,
): v128 {
  const L = gL;
  for (let k0 = 0; k0 < kp; k0 += L) {
    const kEnd = k0 + L;
    let e = i32x4.splat(2 * NEG);
    for (let k = k0; k < kEnd; k += step) {
      e = expChunk(aExp + (<usize>k << 2), bExp + (<usize>k << 4), e, step);
    }
    const big = blockBig(e, c);
    const scale = scaleOf(big);
    let s = i32x4.splat(0);
    for (let k = k0; k < kEnd; k += step) {
      s = sumChunk(aVal + (<usize>k << 2), bVal + (<usize>k << 4), scale, s, step);
    }
    const d = roundBlock(s, c, scale, big);
    const bad = badLanes(big);
    c = v128.any_true(bad) ? fixLanes(d, c, bad, aRaw, bRaw, lanes, kp, k0) : d;
  }
  return c;
}

/** The second row's result of the last `walkPanelPair`. */
export let gPairSecond: v128 = i32x4.splat(0);

/**
 * `walkPanel` for two consecutive tame rows (the second one kp elements after the first in every
 * row array) against one panel: returns the first row's accumulators and leaves the second's in
 * `gPairSecond`. The k loops are unrolled by 8 when 8 divides L, by 4 when 4 does.
 */
export function walkPanelPair(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, c0: v128, c1: v128,
): v128 {
  const L = gL;
  if (L % 8 == 0) return pairBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, c0, c1, 8);
  if (L % 4 == 0) return pairBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, c0, c1, 4);
  return pairBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, c0, c1, 1);
}

/** The block loop of `walkPanelPair`; `step` (a constant dividing L) is the unroll factor. */
@inline function pairBody(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, c0: v128, c1: v128, step: i32,
): v128 {
  const L = gL;
  const row = <usize>kp << 2;
  for (let k0 = 0; k0 < kp; k0 += L) {
    const kEnd = k0 + L;
    let e0 = i32x4.splat(2 * NEG);
    let e1 = i32x4.splat(2 * NEG);
    for (let k = k0; k < kEnd; k += step) {
      const pa = aExp + (<usize>k << 2);
      const pb = bExp + (<usize>k << 4);
      e0 = expChunk(pa, pb, e0, step);
      e1 = expChunk(pa + row, pb, e1, step);
    }
    const big0 = blockBig(e0, c0);
    const big1 = blockBig(e1, c1);
    const scale0 = scaleOf(big0);
    const scale1 = scaleOf(big1);
    let s0 = i32x4.splat(0);
    let s1 = i32x4.splat(0);
    for (let k = k0; k < kEnd; k += step) {
      const pa = aVal + (<usize>k << 2);
      const pb = bVal + (<usize>k << 4);
      s0 = sumChunk(pa, pb, scale0, s0, step);
      s1 = sumChunk(pa + row, pb, scale1, s1, step);
    }
    const d0 = roundBlock(s0, c0, scale0, big0);
    const d1 = roundBlock(s1, c1, scale1, big1);
    const bad0 = badLanes(big0);
    const bad1 = badLanes(big1);
    c0 = v128.any_true(bad0) ? fixLanes(d0, c0, bad0, aRaw, bRaw, lanes, kp, k0) : d0;
    const aRaw1 = aRaw + (<usize>kp << 1);
    c1 = v128.any_true(bad1) ? fixLanes(d1, c1, bad1, aRaw1, bRaw, lanes, kp, k0) : d1;
  }
  gPairSecond = c1;
  return c0;
}
