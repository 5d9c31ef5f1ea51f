// The K-walk of a GEMM tile: C[M,N] fp32 accumulators walked over a K range in blocks of L, one
// or two rows of A against one panel of 8 columns of B (two SIMD vectors of four lanes, one lane
// per output).
//
// Fast path, per block and lane (all lanes of a tame row and tame panel):
//  1. E = max(floor, max_k(ea_k + eb_k), top(c)), kept biased by EXP_SUM_BIAS (127, fp32's
//     bias) as EU = E + 127. The exponent maximum runs on sixteen u8 lanes: a row's exponent
//     bytes minus the panel's with unsigned saturation are ea_k + eb_k + 127 for non-zero
//     operands and 0 where either is zero or the sum is below -127 (decode.ts's exponent
//     bytes and layouts); a 32-bit splat load of the row and a 16-byte load of the panel cover
//     a k pair of eight columns, so a block takes L / 2 subtractions and maxima a row, starting
//     from the floor (params.ts: gFloorU8), then one maximum of each column's two k parities.
//     One byte swizzle per four columns moves each column's byte to the top byte of its i32
//     lane (the other bytes zero), and a shift right by one puts it at bits 23-30, where c's
//     biased exponent field, top(c) + 127, already lies (one mask, no shift: the chain from one
//     block's result to the next block's scale is the mask, the maximum and a subtraction), and
//     the two meet in one i32 maximum. Every E the fast path keeps lies in
//     [F - 126, 127], i.e. EU in [F + 1, 254]: above the 0 of zeros and saturated sums, and
//     inside the byte range, so the u8 maximum is the exact E wherever the fast path uses it.
//     The range checks and step 2 read EU in the same place, EU << 23 (at most 255 << 23, a
//     positive i32).
//  2. scale = 2^(F-E) as an f32 built from its bits, (127 + F - E) << 23 = ((254 + F) << 23) -
//     (EU << 23) (the i32 constant wraps; the difference, below 2^31, is exact); valid (a normal
//     power of two) when E >= F - 126 (checked below) and E <= 127 + F - 23 (always: tame sums
//     <= 126, top(c) <= 127).
//  3. t_k = trunc((a_k * b_k) * scale). a_k * b_k is exact (decode.ts: tame operands). The
//     product is below 4 * 2^E, so p * scale < 2^(F+2) <= 2^30 and has at most 22 significant
//     bits: exact whenever it is >= 2^-126; otherwise it is < 1 both before and after rounding
//     and truncates to 0 either way. The truncation toward zero is the reference's
//     sign-magnitude truncation onto the 2^(E-F) grid. It uses the relaxed truncation
//     (i32x4.relaxed_trunc_f32x4_s), whose result the relaxed-SIMD specification leaves open only
//     for NaN and values outside the i32 range; every input here is finite and below 2^30 in
//     magnitude, so every implementation returns the same, exact truncation (the lanes of bad
//     blocks below may see other inputs, but their results are replaced by the exact path).
//  4. Lane sums of L terms each <= 2^(F+2) - 1 stay below 2^31 (engineSupports requires
//     L * (2^(F+2) - 1) < 2^31), in any order, so the i32 sums are exact. The accumulator term
//     trunc(c * scale) is below 2^(F+1) (same exactness argument). On the narrow path it is
//     the sums' start value (every partial sum is bounded by the whole sum's bound, < 2^30);
//     on the wide path, where the whole may reach 2^31, it is added in f64 (step 5).
//  5. RZ to fp32, then one f32 multiplication by 2^(E-F) (a normal power of two since
//     F - 126 <= E <= 127; its bits are (254 << 23) - bits(scale)): exact while the result is
//     finite, and any result >= 2^128 rounds to infinity (the overflow rule "infinity"). Because
//     E - F >= -126, a non-zero sum is never below 2^-126, so gradual underflow cannot occur on
//     this path. An exact zero sum gives +0. The RZ of the integer sum T to 24 bits:
//     - narrow (params.ts: |T| < 2^30 guaranteed): T is exact in i32; r = f32(T) rounds to
//       nearest, so r is T or one of its two f32 neighbours, an integer of magnitude <= 2^30, and
//       trunc(r) = r exactly. When |r| > |T| the rounding went away from zero and the f32 just
//       below r in magnitude (its bit pattern minus one: r is normal and non-zero) is the
//       truncation of T, since it is <= |T| and the next f32 up is r; otherwise r is it. That
//       step down is taken after the scaling, on r * 2^(E-F) (so the comparison runs beside
//       the multiplication instead of before it, on the chain the next block's scale waits
//       for): multiplying by a power of two moves the f32 grid with it while both values are
//       normal and finite, so the pattern minus one of r * 2^(E-F) is (that f32) * 2^(E-F).
//       Finite needs |r| * 2^(E-F) < 2^128; |r| <= 2^30, so the narrow path keeps E <= F + 97
//       (lanes above take the exact path): otherwise r * 2^(E-F) could be infinite where the
//       truncation scaled is not, or is infinite too (one pattern below infinity is the largest
//       finite f32).
//     - wide (H100-class, where |T| may reach 2^31): T is summed in f64 (exact, < 2^32) and its
//       low 29 fraction bits are masked, which keeps the leading 24 bits (truncation toward
//       zero); that value demotes to f32 exactly.
//  Blocks where some lane has E outside [F - 126, 127] ([F - 126, min(127, F + 97)] narrow) (tiny
//  blocks, all-zero blocks, c NaN/Inf, sums near overflow:
//  see cTop) recompute those lanes with the exact scalar `blockExact` (fix_lanes.ts), except one
//  common case decided here (`zeroBlockLanes`): when the row's L values of the block are all
//  zero (FA2's P left of the causal limit), no product is non-zero, so a lane whose c is +0 or
//  -0 has no non-zero addend at all and the reference result is +0 (block_exact.ts: emax = NEG).
//  Other bad lanes still take blockExact.
//  Rows with tiny operands (decode.ts: read as zeros, their largest top in the row's tame byte)
//  raise the lower bound per lane to tiny + top(b) + 2 + F (`tinyLo`), where every left-out
//  product truncates to zero and cannot be the block maximum; they run separate copies of the
//  block loops, so other rows keep one bound for all lanes.
// Two rows share one panel walk (`walkPanelPair`): four independent accumulators per block. The
// k loops are unrolled by 4 (the engine takes block sizes that 4 divides: step 1 reads k
// pairs). The accumulators stay in locals over the walked range (C has row stride ldc,
// padded to whole panels). A row's value of each k, and its exponent bytes of each k pair, are
// broadcast to every lane by a 32-bit splat load (x86: one load-port broadcast, no shuffle on the vector ALU ports, which bound this loop;
// about 3% faster than one load and four lane shuffles).

import { fixLanes } from "./fix_lanes";
import { EXP_SUM_BIAS, PANEL_EXP_BIAS } from "./decode";
import { gF, gFloorU8, gL, gNarrow } from "./params";

/** Scratch for the E of a block with bad lanes (four vectors): rare, so kept out of registers. */
const BIGS: usize = memory.data(64, 16);

/**
 * Vector constants in static data: a literal would be materialised anew at every use inside the
 * block loop, while a load from a constant address needs no bounds check. The bits 254 << 23 in
 * every i32 lane; the f64 mask that keeps the leading 24 bits (step 5 wide); the byte indices of
 * `colTops` for columns 0-3 and 4-7; fp32's exponent field in every i32 lane (`cTop`).
 */
const CONSTS: usize = memory.data<u32>([
  254 << 23, 254 << 23, 254 << 23, 254 << 23,
  0xe0000000, 0xffffffff, 0xe0000000, 0xffffffff,
  0x00808080, 0x01808080, 0x04808080, 0x05808080,
  0x08808080, 0x09808080, 0x0c808080, 0x0d808080,
  0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000,
], 16);

/**
 * EU << 23 of top(c): the biased exponent field of fp32 accumulator lanes, in place (EXP_SUM_BIAS
 * must be fp32's bias, 127). For zero and subnormal c this gives the EU of -127 instead of none /
 * -126, and of 128 for NaN/Inf: harmless, because any E <= -126 fails the range check
 * E >= F - 126 (F >= 10 gives a bound >= -116) and E >= 128 fails E <= 127; such lanes take the
 * exact path. (A zero c adds nothing; a subnormal c truncates to 0 in step 4 whenever
 * E >= F - 126, as its true top -126 is below E.)
 */
@inline function cTop(c: v128): v128 {
  return v128.and(c, v128.load(CONSTS, 64));
}

/**
 * The end of step 1 for one row: from e (u8 lanes in decode.ts's panel layout: 32-bit lane j
 * holds columns 2j, 2j + 1 at even k, then at odd k) the maximum of each column's two bytes,
 * in bytes 0 and 1 of each 32-bit lane.
 */
@inline function expColumns(e: v128): v128 {
  return i8x16.max_u(e, i32x4.shr_u(e, 16));
}

/**
 * Columns 0-3 (hi: 4-7) of `expColumns`' bytes as EU << 23 in i32 lanes: each column byte moved
 * to byte 3 of its lane (bits 24-31), the other bytes zero (relaxed_swizzle gives 0 for an index
 * with the top bit set on every implementation), then shifted right by one.
 */
@inline function colTops(m: v128, hi: bool): v128 {
  const at = hi ? v128.load(CONSTS, 48) : v128.load(CONSTS, 32);
  return i32x4.shr_u(i8x16.relaxed_swizzle(m, at), 1);
}

/**
 * Bytes 0 and 1 of each 32-bit lane j of m (columns 2j and 2j + 1, once their k parities have
 * met) gathered in column order and widened to i16 lanes.
 */
@inline function columnBytes(m: v128): v128 {
  return i16x8.extend_low_i8x16_u(
    i8x16.shuffle(m, m, 0, 1, 4, 5, 8, 9, 12, 13, 0, 1, 4, 5, 8, 9, 12, 13),
  );
}

/**
 * Step 2: scale = 2^(F-E) built from its bits, from big = EU << 23 (kScale: (127 + F +
 * EXP_SUM_BIAS) << 23 in every lane).
 */
@inline function scaleOf(big: v128, kScale: v128): v128 {
  return i32x4.sub(kScale, big);
}

/** Step 3: one aligned term trunc((a * b) * scale). */
@inline function term(a: v128, b: v128, scale: v128): v128 {
  return i32x4.relaxed_trunc_f32x4_s(f32x4.mul(f32x4.mul(a, b), scale));
}

/** The accumulator's aligned term trunc(c * scale) (step 4). */
@inline function cTerm(c: v128, scale: v128): v128 {
  return i32x4.relaxed_trunc_f32x4_s(f32x4.mul(c, scale));
}

/**
 * Steps 4-5: the block's sum with the accumulator's term trunc(c * scale) (on the narrow path
 * already in s, its start value; the wide path adds it here) rounded to fp32 (RZ). kPow and k24
 * are the constants at CONSTS and CONSTS + 16.
 */
@inline function roundBlock(
  s: v128, c: v128, scale: v128, narrow: bool, kPow: v128, k24: v128,
): v128 {
  if (narrow) {
    const sum = s; // started at the accumulator's term (cTerm)
    const r = f32x4.convert_i32x4_s(sum);
    const away = i32x4.gt_s(i32x4.abs(i32x4.relaxed_trunc_f32x4_s(r)), i32x4.abs(sum));
    return i32x4.add(f32x4.mul(r, i32x4.sub(kPow, scale)), away); // step down after scaling
  } else {
    const ac = cTerm(c, scale);
    const lo = f64x2.add(f64x2.convert_low_i32x4_s(s), f64x2.convert_low_i32x4_s(ac));
    const hi = f64x2.add(
      f64x2.convert_low_i32x4_s(i32x4.shuffle(s, s, 2, 3, 2, 3)),
      f64x2.convert_low_i32x4_s(i32x4.shuffle(ac, ac, 2, 3, 2, 3)),
    );
    const t = i32x4.shuffle(
      f32x4.demote_f64x2_zero(v128.and(lo, k24)), // keeps the leading 24 bits: truncation
      f32x4.demote_f64x2_zero(v128.and(hi, k24)),
      0, 1, 4, 5,
    );
    return f32x4.mul(t, i32x4.sub(kPow, scale));
  }
}

/**
 * Lanes whose EU lies outside [kLo, kHi]: they take the exact path (big, kLo and kHi as EU << 23;
 * kLo >= F + 1; kHi 254, or min(254, F + 97 + 127) on the narrow path, step 5).
 */
@inline function badLanes(big: v128, kLo: v128, kHi: v128): v128 {
  return v128.or(i32x4.lt_s(big, kLo), i32x4.gt_s(big, kHi));
}

/**
 * Whether a row's patterns over the block [k0, k0 + L) are all +-0 (no non-zero product). Read
 * from the raw patterns: a row's tiny operands are decoded as zeros but are not zero.
 */
@inline function zeroRowBlock(aRaw: usize, k0: i32): bool {
  let any: u32 = 0;
  for (let k = k0; k < k0 + gL; k++) any |= <u32>load<u16>(aRaw + (<usize>k << 1)) & 0x7fff;
  return any == 0;
}

/** `tiny` of rows without tiny operands (see `tinyLo`). */
export const NO_TINY: i32 = -20000;

/**
 * Lowest EU (as EU << 23) of lanes 0-3 or 4-7 (pmHalf: their panel tops, widened) that keeps a
 * row with tiny operands exact on the fast path. The tiny operands (largest top `tiny`) were decoded as zeros;
 * a tiny a_k times b_k is below 2^(tiny + top(b_k) + 2), so with E >= tiny + top(b) + 2 + F its
 * term trunc(a_k b_k 2^(F-E)) is 0 and its exponent sum is below E: leaving it out changes
 * neither the block maximum nor the sum. Lanes with a lower E take the exact path like any other
 * bad lane. For rows without tiny operands (NO_TINY) this is kLo.
 */
@inline function tinyLo(kLo: v128, tiny: i32, pmHalf: v128): v128 {
  const lo = i32x4.max_s(
    i32x4.splat(gF - 126 + EXP_SUM_BIAS),
    i32x4.add(i32x4.splat(tiny + 2 + gF + EXP_SUM_BIAS), pmHalf),
  );
  // lo <= 151 (tiny <= -68, panel tops <= 64, F <= 26 by engineSupports): the shift stays exact.
  return i32x4.max_s(kLo, i32x4.shl(lo, 23));
}

/**
 * Lane maxima of a panel's tops over k in [kb0, kb1) (a range of whole k pairs) as i16 lanes,
 * from its exponent bytes (top = PANEL_EXP_BIAS - byte; -191 where every k is zero, below any
 * bound it could raise): the `pm` that rows with tiny operands pass to `walkPanel` /
 * `walkPanelPair` (index.ts computes it once per panel and K range).
 */
@inline export function panelTops(bExp: usize, kb0: i32, kb1: i32): v128 {
  let m = i8x16.splat(-1);
  for (let k = kb0; k < kb1; k += 2) m = i8x16.min_u(m, v128.load(bExp + (<usize>k << 3)));
  // The k parities meet (bytes 2, 3 of each lane shift in as 0: min_u keeps bytes 0, 1 right).
  const least = columnBytes(i8x16.min_u(m, i32x4.shr_u(m, 16)));
  return i16x8.sub(i16x8.splat(<i16>PANEL_EXP_BIAS), least);
}

/**
 * For a row whose block is all zero (`zeroRowBlock`): the bad lanes whose accumulator c is not
 * +-0, which still need `fixLanes` (the others' exact result is +0, see `zeroFixed`).
 */
@inline function zeroBlockLanes(c: v128, bad: v128): v128 {
  const cz = i32x4.eq(v128.and(c, i32x4.splat(0x7fffffff)), i32x4.splat(0));
  return v128.andnot(bad, cz);
}

/** d with +0 in the lanes that were bad and are no longer (bad and not rest). */
@inline function zeroFixed(d: v128, bad: v128, rest: v128): v128 {
  return v128.andnot(d, v128.andnot(bad, rest));
}

/**
 * One k pair of step 1 for one row: e = max(e, ra -sat nb) on u8 lanes, ra the row's bytes of
 * the pair ([k, k, k + 1, k + 1] in every 32-bit lane), nb the panel's (decode.ts's layout).
 */
@inline function expPair(ra: v128, nb: v128, e: v128): v128 {
  return i8x16.max_u(e, i8x16.sub_sat_u(ra, nb));
}

/**
 * Fast walk of one tame row against one tame panel of 8 columns over k in [kb0, kb1) (a range
 * of whole blocks), updating the accumulators at c (8 lanes; lanes past the matrix edge hold
 * 1.0, which keeps them on the fast path). bRaw points at the raw pattern row of the panel's
 * first column; lanes is the number of real columns in the panel. tiny: the row's largest tiny
 * top or NO_TINY; pm: the panel's `panelTops` over [kb0, kb1) (read only when tiny is set).
 */
export function walkPanel(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, kb0: i32, kb1: i32, c: usize, tiny: i32, pm: v128,
): void {
  // Rows with tiny operands run their own copies (per-lane bounds, `tinyLo`), so that the
  // others keep one bound for all lanes.
  if (tiny > NO_TINY) walkPanelOf(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, kb0, kb1, c, tiny, pm, true);
  else walkPanelOf(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, kb0, kb1, c, tiny, pm, false);
}

/** `walkPanel` with `tinyRows` a constant. */
@inline function walkPanelOf(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, kb0: i32, kb1: i32, c: usize, tiny: i32, pm: v128, tinyRows: bool,
): void {
  const t = tinyRows;
  if (gNarrow) singleBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, kb0, kb1, c, tiny, pm, t, true);
  else singleBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, kb0, kb1, c, tiny, pm, t, false);
}

/**
 * The block loop of `walkPanel` (k four at a time; L a multiple of 4); `narrow` is a constant. The
 * accumulators stay in locals over the whole range: wasm memory accesses carry bounds checks,
 * spilled locals do not.
 */
@inline function singleBody(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, kb0: i32, kb1: i32, c: usize, tiny: i32, pm: v128, tinyRows: bool,
  narrow: bool,
): void {
  const L = gL;
  const floor = i8x16.splat(<i8>gFloorU8);
  const kHi = i32x4.splat((narrow ? min(254, gF + 97 + EXP_SUM_BIAS) : 254) << 23);
  const kPow = v128.load(CONSTS);
  const k24 = v128.load(CONSTS, 16);
  const kScale = i32x4.splat((127 + gF + EXP_SUM_BIAS) << 23);
  const kLo = i32x4.splat((gF - 126 + EXP_SUM_BIAS) << 23);
  const kLo0 = tinyRows ? tinyLo(kLo, tiny, i32x4.extend_low_i16x8_s(pm)) : kLo;
  const kLo1 = tinyRows ? tinyLo(kLo, tiny, i32x4.extend_high_i16x8_s(pm)) : kLo;
  const bRaw1 = bRaw + (<usize>(4 * kp) << 1);
  let c0 = v128.load(c);
  let c1 = v128.load(c, 16);
  for (let k0 = kb0; k0 < kb1; k0 += L) {
    const kEnd = k0 + L;
    let e = floor;
    for (let k = k0; k < kEnd; k += 4) {
      const pa = aExp + (<usize>k << 1);
      const pb = bExp + (<usize>k << 3);
      e = expPair(v128.load32_splat(pa), v128.load(pb), e);
      e = expPair(v128.load32_splat(pa, 4), v128.load(pb, 16), e);
    }
    const ec = expColumns(e);
    const big0 = i32x4.max_s(colTops(ec, false), cTop(c0));
    const big1 = i32x4.max_s(colTops(ec, true), cTop(c1));
    const sc0 = scaleOf(big0, kScale);
    const sc1 = scaleOf(big1, kScale);
    const low = tinyRows
      ? v128.or(i32x4.lt_s(big0, kLo0), i32x4.lt_s(big1, kLo1))
      : i32x4.lt_s(i32x4.min_s(big0, big1), kLo);
    const bad = v128.any_true(v128.or(low, i32x4.gt_s(i32x4.max_s(big0, big1), kHi)));
    if (bad) {
      v128.store(BIGS, big0);
      v128.store(BIGS, big1, 16);
    }
    let s0 = narrow ? cTerm(c0, sc0) : i32x4.splat(0);
    let s1 = narrow ? cTerm(c1, sc1) : i32x4.splat(0);
    for (let k = k0; k < kEnd; k += 4) {
      const pa = aVal + (<usize>k << 2);
      const pb = bVal + (<usize>k << 5);
      let x = v128.load32_splat(pa, 0);
      s0 = i32x4.add(s0, term(x, v128.load(pb), sc0));
      s1 = i32x4.add(s1, term(x, v128.load(pb, 16), sc1));
      x = v128.load32_splat(pa, 4);
      s0 = i32x4.add(s0, term(x, v128.load(pb, 32), sc0));
      s1 = i32x4.add(s1, term(x, v128.load(pb, 48), sc1));
      x = v128.load32_splat(pa, 8);
      s0 = i32x4.add(s0, term(x, v128.load(pb, 64), sc0));
      s1 = i32x4.add(s1, term(x, v128.load(pb, 80), sc1));
      x = v128.load32_splat(pa, 12);
      s0 = i32x4.add(s0, term(x, v128.load(pb, 96), sc0));
      s1 = i32x4.add(s1, term(x, v128.load(pb, 112), sc1));
    }
    let d0 = roundBlock(s0, c0, sc0, narrow, kPow, k24);
    let d1 = roundBlock(s1, c1, sc1, narrow, kPow, k24);
    if (bad) {
      let b0 = badLanes(v128.load(BIGS), kLo0, kHi);
      let b1 = badLanes(v128.load(BIGS, 16), kLo1, kHi);
      if (zeroRowBlock(aRaw, k0)) {
        const r0 = zeroBlockLanes(c0, b0);
        const r1 = zeroBlockLanes(c1, b1);
        d0 = zeroFixed(d0, b0, r0);
        d1 = zeroFixed(d1, b1, r1);
        b0 = r0;
        b1 = r1;
      }
      if (v128.any_true(b0)) d0 = fixLanes(d0, c0, b0, aRaw, bRaw, min(lanes, 4), kp, k0);
      if (v128.any_true(b1)) d1 = fixLanes(d1, c1, b1, aRaw, bRaw1, lanes - 4, kp, k0);
    }
    c0 = d0;
    c1 = d1;
  }
  v128.store(c, c0);
  v128.store(c, c1, 16);
}

/**
 * `walkPanel` for two consecutive tame rows (the second one kp elements after the first in every
 * row array, its accumulators at cb) against one panel: the same operations per output, in four
 * independent dependency chains.
 */
export function walkPanelPair(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, kb0: i32, kb1: i32, ca: usize, cb: usize, tinyA: i32, tinyB: i32,
  pm: v128,
): void {
  if (max(tinyA, tinyB) > NO_TINY) {
    walkPairOf(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, kb0, kb1, ca, cb, tinyA, tinyB, pm, true);
  } else {
    walkPairOf(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, kb0, kb1, ca, cb, tinyA, tinyB, pm, false);
  }
}

/** `walkPanelPair` with `tinyRows` a constant. */
@inline function walkPairOf(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, kb0: i32, kb1: i32, ca: usize, cb: usize, tinyA: i32, tinyB: i32,
  pm: v128, tinyRows: bool,
): void {
  const t0 = tinyA, t1 = tinyB, t = tinyRows;
  if (gNarrow) pairBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, kb0, kb1, ca, cb, t0, t1, pm, t, true);
  else pairBody(aVal, aExp, aRaw, bVal, bExp, bRaw, lanes, kp, kb0, kb1, ca, cb, t0, t1, pm, t, false);
}

/** The block loop of `walkPanelPair`; as `singleBody`, for two rows. */
@inline function pairBody(
  aVal: usize, aExp: usize, aRaw: usize, bVal: usize, bExp: usize, bRaw: usize,
  lanes: i32, kp: i32, kb0: i32, kb1: i32, ca: usize, cb: usize, tinyA: i32, tinyB: i32,
  pm: v128, tinyRows: bool, narrow: bool,
): void {
  const L = gL;
  const rowVal = <usize>kp << 2;
  const rowExp = <usize>kp << 1;
  const rowRaw = <usize>kp << 1;
  const floor = i8x16.splat(<i8>gFloorU8);
  const kHi = i32x4.splat((narrow ? min(254, gF + 97 + EXP_SUM_BIAS) : 254) << 23);
  const kPow = v128.load(CONSTS);
  const k24 = v128.load(CONSTS, 16);
  const kScale = i32x4.splat((127 + gF + EXP_SUM_BIAS) << 23);
  const kLo = i32x4.splat((gF - 126 + EXP_SUM_BIAS) << 23);
  const pmLo = i32x4.extend_low_i16x8_s(pm);
  const pmHi = i32x4.extend_high_i16x8_s(pm);
  const kLo00 = tinyRows ? tinyLo(kLo, tinyA, pmLo) : kLo;
  const kLo01 = tinyRows ? tinyLo(kLo, tinyA, pmHi) : kLo;
  const kLo10 = tinyRows ? tinyLo(kLo, tinyB, pmLo) : kLo;
  const kLo11 = tinyRows ? tinyLo(kLo, tinyB, pmHi) : kLo;
  const aRaw1 = aRaw + rowRaw;
  const bRaw1 = bRaw + (<usize>(4 * kp) << 1);
  let c00 = v128.load(ca);
  let c01 = v128.load(ca, 16);
  let c10 = v128.load(cb);
  let c11 = v128.load(cb, 16);
  for (let k0 = kb0; k0 < kb1; k0 += L) {
    const kEnd = k0 + L;
    let e0 = floor;
    let e1 = floor;
    for (let k = k0; k < kEnd; k += 4) {
      const pa = aExp + (<usize>k << 1);
      const pb = bExp + (<usize>k << 3);
      let y = v128.load(pb);
      e0 = expPair(v128.load32_splat(pa), y, e0);
      e1 = expPair(v128.load32_splat(pa + rowExp), y, e1);
      y = v128.load(pb, 16);
      e0 = expPair(v128.load32_splat(pa, 4), y, e0);
      e1 = expPair(v128.load32_splat(pa + rowExp, 4), y, e1);
    }
    const ec0 = expColumns(e0);
    const ec1 = expColumns(e1);
    const big00 = i32x4.max_s(colTops(ec0, false), cTop(c00));
    const big01 = i32x4.max_s(colTops(ec0, true), cTop(c01));
    const big10 = i32x4.max_s(colTops(ec1, false), cTop(c10));
    const big11 = i32x4.max_s(colTops(ec1, true), cTop(c11));
    const sc00 = scaleOf(big00, kScale);
    const sc01 = scaleOf(big01, kScale);
    const sc10 = scaleOf(big10, kScale);
    const sc11 = scaleOf(big11, kScale);
    const low = tinyRows
      ? v128.or(
        v128.or(i32x4.lt_s(big00, kLo00), i32x4.lt_s(big01, kLo01)),
        v128.or(i32x4.lt_s(big10, kLo10), i32x4.lt_s(big11, kLo11)),
      )
      : i32x4.lt_s(i32x4.min_s(i32x4.min_s(big00, big01), i32x4.min_s(big10, big11)), kLo);
    const mx = i32x4.max_s(i32x4.max_s(big00, big01), i32x4.max_s(big10, big11));
    const bad = v128.any_true(v128.or(low, i32x4.gt_s(mx, kHi)));
    if (bad) {
      v128.store(BIGS, big00);
      v128.store(BIGS, big01, 16);
      v128.store(BIGS, big10, 32);
      v128.store(BIGS, big11, 48);
    }
    let s00 = narrow ? cTerm(c00, sc00) : i32x4.splat(0);
    let s01 = narrow ? cTerm(c01, sc01) : i32x4.splat(0);
    let s10 = narrow ? cTerm(c10, sc10) : i32x4.splat(0);
    let s11 = narrow ? cTerm(c11, sc11) : i32x4.splat(0);
    for (let k = k0; k < kEnd; k += 4) {
      const pa = aVal + (<usize>k << 2);
      const pb = bVal + (<usize>k << 5);
      let x0 = v128.load32_splat(pa, 0);
      let x1 = v128.load32_splat(pa + rowVal, 0);
      let y0 = v128.load(pb);
      let y1 = v128.load(pb, 16);
      s00 = i32x4.add(s00, term(x0, y0, sc00));
      s01 = i32x4.add(s01, term(x0, y1, sc01));
      s10 = i32x4.add(s10, term(x1, y0, sc10));
      s11 = i32x4.add(s11, term(x1, y1, sc11));
      x0 = v128.load32_splat(pa, 4);
      x1 = v128.load32_splat(pa + rowVal, 4);
      y0 = v128.load(pb, 32);
      y1 = v128.load(pb, 48);
      s00 = i32x4.add(s00, term(x0, y0, sc00));
      s01 = i32x4.add(s01, term(x0, y1, sc01));
      s10 = i32x4.add(s10, term(x1, y0, sc10));
      s11 = i32x4.add(s11, term(x1, y1, sc11));
      x0 = v128.load32_splat(pa, 8);
      x1 = v128.load32_splat(pa + rowVal, 8);
      y0 = v128.load(pb, 64);
      y1 = v128.load(pb, 80);
      s00 = i32x4.add(s00, term(x0, y0, sc00));
      s01 = i32x4.add(s01, term(x0, y1, sc01));
      s10 = i32x4.add(s10, term(x1, y0, sc10));
      s11 = i32x4.add(s11, term(x1, y1, sc11));
      x0 = v128.load32_splat(pa, 12);
      x1 = v128.load32_splat(pa + rowVal, 12);
      y0 = v128.load(pb, 96);
      y1 = v128.load(pb, 112);
      s00 = i32x4.add(s00, term(x0, y0, sc00));
      s01 = i32x4.add(s01, term(x0, y1, sc01));
      s10 = i32x4.add(s10, term(x1, y0, sc10));
      s11 = i32x4.add(s11, term(x1, y1, sc11));
    }
    let d00 = roundBlock(s00, c00, sc00, narrow, kPow, k24);
    let d01 = roundBlock(s01, c01, sc01, narrow, kPow, k24);
    let d10 = roundBlock(s10, c10, sc10, narrow, kPow, k24);
    let d11 = roundBlock(s11, c11, sc11, narrow, kPow, k24);
    if (bad) {
      const l0 = min(lanes, 4);
      const l1 = lanes - 4;
      let b00 = badLanes(v128.load(BIGS), kLo00, kHi);
      let b01 = badLanes(v128.load(BIGS, 16), kLo01, kHi);
      let b10 = badLanes(v128.load(BIGS, 32), kLo10, kHi);
      let b11 = badLanes(v128.load(BIGS, 48), kLo11, kHi);
      if (zeroRowBlock(aRaw, k0)) {
        const r00 = zeroBlockLanes(c00, b00);
        const r01 = zeroBlockLanes(c01, b01);
        d00 = zeroFixed(d00, b00, r00);
        d01 = zeroFixed(d01, b01, r01);
        b00 = r00;
        b01 = r01;
      }
      if (zeroRowBlock(aRaw1, k0)) {
        const r10 = zeroBlockLanes(c10, b10);
        const r11 = zeroBlockLanes(c11, b11);
        d10 = zeroFixed(d10, b10, r10);
        d11 = zeroFixed(d11, b11, r11);
        b10 = r10;
        b11 = r11;
      }
      if (v128.any_true(b00)) d00 = fixLanes(d00, c00, b00, aRaw, bRaw, l0, kp, k0);
      if (v128.any_true(b01)) d01 = fixLanes(d01, c01, b01, aRaw, bRaw1, l1, kp, k0);
      if (v128.any_true(b10)) d10 = fixLanes(d10, c10, b10, aRaw1, bRaw, l0, kp, k0);
      if (v128.any_true(b11)) d11 = fixLanes(d11, c11, b11, aRaw1, bRaw1, l1, kp, k0);
    }
    c00 = d00;
    c01 = d01;
    c10 = d10;
    c11 = d11;
  }
  v128.store(ca, c00);
  v128.store(ca, c01, 16);
  v128.store(cb, c10);
  v128.store(cb, c11, 16);
}
