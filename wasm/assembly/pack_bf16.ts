// SIMD decoding of bf16 operands: B panels with the same output as decode.ts's scalar
// `packPanels` (f32 values, exponent bytes and tame flags), four k of a full 8-column panel per
// step, and A rows with the same output as its scalar `decodeRows`, eight k per step. Lane by lane
// it is the scalar decoding written with masks on i16 lanes:
//   value = bits << 16, or +0 for NaN/Inf (bf16 is the upper half of binary32);
//   top   = field - 127 for normals, -126 for subnormals, EXP16_ZERO for zeros and NaN/Inf;
//   bytes = top + ROW_EXP_BIAS (rows) or PANEL_EXP_BIAS - top (panels), narrowed to u8 with
//           saturation: the clamping of decode.ts, and 0 / 255 for EXP16_ZERO;
//   tame  = not NaN/Inf and (top == EXP16_ZERO or -67 <= top <= 63), i.e. (top + 67) <=u 130
//           (EXP16_ZERO + 67 is negative, so it reads as a large unsigned i16 and is excluded
//           by the explicit zero test).
// Ragged panels and the k tails (kp not a multiple of 4, or of 8 for rows) use the scalar code.

import {
  EXP16_ZERO, FMT_BF16, isSpecial16, packLanes, PANEL, PANEL_EXP_BIAS, putRow, ROW_EXP_BIAS,
  TINY_BIAS, topExp16,
} from "./decode";

/** Top exponents of eight bf16 patterns (i16 lanes; EXP16_ZERO for zeros and NaN/Inf). */
@inline function tops8(x: v128, special: v128): v128 {
  const field = v128.and(i16x8.shr_u(x, 7), i16x8.splat(0xff));
  const z = i16x8.splat(0);
  const zeroFrac = i16x8.eq(v128.and(x, i16x8.splat(0x7f)), z);
  const sub = v128.bitselect(i16x8.splat(<i16>EXP16_ZERO), i16x8.splat(-126), zeroFrac);
  const normal = i16x8.sub(field, i16x8.splat(127));
  const top = v128.bitselect(sub, normal, i16x8.eq(field, z));
  return v128.bitselect(i16x8.splat(<i16>EXP16_ZERO), top, special);
}

/** NaN/Inf lanes of eight bf16 patterns. */
@inline function special8(x: v128): v128 {
  return i16x8.eq(v128.and(i16x8.shr_u(x, 7), i16x8.splat(0xff)), i16x8.splat(0xff));
}

/** Stores the f32 values of eight patterns xm (i16 lanes) at val (32 bytes). */
@inline function storeValues8(xm: v128, val: usize): void {
  const z = i16x8.splat(0);
  // f32 bits = pattern << 16: a zero low half under each pattern.
  v128.store(val, i8x16.shuffle(z, xm, 0, 1, 16, 17, 0, 1, 18, 19, 0, 1, 20, 21, 0, 1, 22, 23));
  v128.store(val, i8x16.shuffle(z, xm, 0, 1, 24, 25, 0, 1, 26, 27, 0, 1, 28, 29, 0, 1, 30, 31), 16);
}

/**
 * Stores the row exponent bytes of eight consecutive k (tops as i16 lanes, EXP16_ZERO for
 * zeros) at exp: each byte twice (16 bytes; decode.ts's row layout). The saturating narrowing
 * gives 0 for EXP16_ZERO and clamps the tops of untame rows.
 */
@inline function storeRowExps8(top: v128, exp: usize): void {
  const b = i8x16.narrow_i16x8_u(i16x8.add(top, i16x8.splat(<i16>ROW_EXP_BIAS)), i16x8.splat(0));
  v128.store(exp, i8x16.shuffle(b, b, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7));
}

/**
 * Decodes one i16x8 of bf16 patterns (eight columns at one k of a panel; `special` their NaN/Inf
 * lanes from `special8`): stores the eight f32 values at val and returns their tops (i16 lanes,
 * EXP16_ZERO for zeros and NaN/Inf).
 */
@inline function decode8(x: v128, special: v128, val: usize): v128 {
  storeValues8(v128.andnot(x, special), val);
  return tops8(x, special);
}

/** The untame lanes of eight patterns with tops top and NaN/Inf lanes special (`decode8`'s). */
@inline function untame8(top: v128, special: v128): v128 {
  const out = i16x8.gt_u(i16x8.add(top, i16x8.splat(67)), i16x8.splat(130));
  return v128.or(special, v128.andnot(out, i16x8.eq(top, i16x8.splat(<i16>EXP16_ZERO))));
}

/**
 * Stores the panel exponent bytes of a k pair (tops t0 at k, t1 at k + 1; the saturating
 * narrowing gives 255 for EXP16_ZERO) at exp in decode.ts's panel layout.
 */
@inline function storePanelExps(t0: v128, t1: v128, exp: usize): void {
  const bias = i16x8.splat(<i16>PANEL_EXP_BIAS);
  const b = i8x16.narrow_i16x8_u(i16x8.sub(bias, t0), i16x8.sub(bias, t1));
  v128.store(exp, i8x16.shuffle(b, b, 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15));
}

/** `packPanels` for bf16 (same arguments, same output). */
export function packPanelsBf16(
  src: usize, n: i32, kp: i32, val: usize, exp: usize, tame: usize,
): void {
  const panels = (n + PANEL - 1) >> 3;
  const stride = <usize>kp << 1;
  for (let g = 0; g < panels; g++) {
    const kSimd = PANEL * g + PANEL <= n ? kp & ~3 : 0;
    const col = src + (<usize>(PANEL * g * kp) << 1);
    const outVal = val + (<usize>(g * kp) << 5);
    const outExp = exp + (<usize>(g * kp) << 3);
    let bad = i16x8.splat(0);
    for (let k = 0; k < kSimd; k += 4) {
      const o = col + (<usize>k << 1);
      // u16 lanes: v01 = [col0 k0..k3, col1 k0..k3], v23, v45, v67 likewise.
      const v01 = i64x2.replace_lane(v128.load64_zero(o), 1, load<i64>(o + stride));
      const o2 = o + 2 * stride;
      const v23 = i64x2.replace_lane(v128.load64_zero(o2), 1, load<i64>(o2 + stride));
      const o4 = o + 4 * stride;
      const v45 = i64x2.replace_lane(v128.load64_zero(o4), 1, load<i64>(o4 + stride));
      const o6 = o + 6 * stride;
      const v67 = i64x2.replace_lane(v128.load64_zero(o6), 1, load<i64>(o6 + stride));
      // w01 = [k0: col0..col3, k1: col0..col3], w23 for k2, k3; x01, x23 for columns 4..7.
      const w01 = i8x16.shuffle(v01, v23, 0, 1, 8, 9, 16, 17, 24, 25, 2, 3, 10, 11, 18, 19, 26, 27);
      const w23 = i8x16.shuffle(v01, v23, 4, 5, 12, 13, 20, 21, 28, 29, 6, 7, 14, 15, 22, 23, 30, 31);
      const x01 = i8x16.shuffle(v45, v67, 0, 1, 8, 9, 16, 17, 24, 25, 2, 3, 10, 11, 18, 19, 26, 27);
      const x23 = i8x16.shuffle(v45, v67, 4, 5, 12, 13, 20, 21, 28, 29, 6, 7, 14, 15, 22, 23, 30, 31);
      // r_k = [k: col0..col7].
      const r0 = i8x16.shuffle(w01, x01, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
      const r1 = i8x16.shuffle(w01, x01, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
      const r2 = i8x16.shuffle(w23, x23, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
      const r3 = i8x16.shuffle(w23, x23, 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
      const dv = outVal + (<usize>k << 5);
      const de = outExp + (<usize>k << 3);
      const s0 = special8(r0);
      const s1 = special8(r1);
      const s2 = special8(r2);
      const s3 = special8(r3);
      const t0 = decode8(r0, s0, dv);
      const t1 = decode8(r1, s1, dv + 32);
      const t2 = decode8(r2, s2, dv + 64);
      const t3 = decode8(r3, s3, dv + 96);
      storePanelExps(t0, t1, de);
      storePanelExps(t2, t3, de + 16);
      bad = v128.or(bad, v128.or(untame8(t0, s0), untame8(t1, s1)));
      bad = v128.or(bad, v128.or(untame8(t2, s2), untame8(t3, s3)));
    }
    let ok = !v128.any_true(bad);
    ok = packLanes(src, n, kp, FMT_BF16, val, exp, g, kSimd, kp) && ok;
    store<u8>(tame + g, ok ? 1 : 0);
  }
}

/**
 * `decodeRows` for bf16 (same arguments and layout). A row's non-zero finite operands below the
 * tame range (top < -67: tiny) do not make it untame: they are stored as zeros (value +0, top
 * EXP16_ZERO) and the row's tame byte records the largest of their tops as TINY_BIAS + top
 * (walk.ts keeps the fast path exact for such rows, see `tinyLo`). Tame bytes: 0 untame, 1 tame,
 * otherwise tame with tiny operands.
 */
export function decodeRowsBf16(
  src: usize, rows: i32, kp: i32, val: usize, exp: usize, tame: usize,
): void {
  const kSimd = kp & ~7;
  for (let i = 0; i < rows; i++) {
    const row = <usize>(i * kp);
    let bad = i16x8.splat(0);
    let tinyMax = i16x8.splat(-32768);
    for (let k = 0; k < kSimd; k += 8) {
      const idx = row + <usize>k;
      const x = v128.load(src + (idx << 1));
      const special = special8(x);
      const top = tops8(x, special);
      const zero = i16x8.eq(top, i16x8.splat(<i16>EXP16_ZERO)); // zeros and NaN/Inf
      const tiny = v128.andnot(i16x8.lt_s(top, i16x8.splat(-67)), zero);
      bad = v128.or(bad, v128.or(special, i16x8.gt_s(top, i16x8.splat(63))));
      tinyMax = i16x8.max_s(tinyMax, v128.bitselect(top, i16x8.splat(-32768), tiny));
      storeValues8(v128.andnot(x, v128.or(special, tiny)), val + (idx << 2));
      storeRowExps8(v128.bitselect(i16x8.splat(<i16>EXP16_ZERO), top, tiny), exp + (idx << 1));
    }
    let ok = !v128.any_true(bad);
    const m4 = i16x8.max_s(tinyMax, i16x8.shuffle(tinyMax, tinyMax, 4, 5, 6, 7, 4, 5, 6, 7));
    const m2 = i16x8.max_s(m4, i16x8.shuffle(m4, m4, 2, 3, 2, 3, 2, 3, 2, 3));
    const m1 = i16x8.max_s(m2, i16x8.shuffle(m2, m2, 1, 1, 1, 1, 1, 1, 1, 1));
    let tinyTop: i32 = i16x8.extract_lane_s(m1, 0);
    for (let k = kSimd; k < kp; k++) {
      const idx = row + <usize>k;
      const bits = <i32>load<u16>(src + (idx << 1));
      const top = (bits & 0x7fff) == 0 || isSpecial16(bits, FMT_BF16) ? 0 : topExp16(bits, FMT_BF16);
      if (top < -67) {
        tinyTop = max(tinyTop, top);
        putRow(0, FMT_BF16, val + (idx << 2), exp + (idx << 1));
      } else {
        ok = putRow(bits, FMT_BF16, val + (idx << 2), exp + (idx << 1)) && ok;
      }
    }
    store<u8>(tame + i, !ok ? 0 : (tinyTop == -32768 ? 1 : <u8>(TINY_BIAS + tinyTop)));
  }
}
