// SIMD packing of bf16 B panels: the same output as decode.ts's scalar `packPanels` (values,
// top exponents and tame flags), four k of a full 4-column panel per step. Lane by lane it is
// the scalar decoding written with masks:
//   value = bits << 16, or +0 for NaN/Inf (bf16 is the upper half of binary32);
//   top   = field - 127 for normals, -126 for subnormals, NEG for zeros and NaN/Inf;
//   tame  = not NaN/Inf and (top == NEG or -67 <= top <= 63), i.e. (top + 67) <=u 130.
// Ragged panels and the k tail (kp not a multiple of 4) use the scalar `put`.

import { FMT_BF16, NEG, put } from "./decode";

/** Decodes one i32x4 of zero-extended bf16 patterns; stores value and top; returns bad lanes. */
@inline function decode4(x: v128, val: usize, exp: usize): v128 {
  const field = v128.and(i32x4.shr_u(x, 7), i32x4.splat(0xff));
  const special = i32x4.eq(field, i32x4.splat(0xff));
  v128.store(val, v128.andnot(i32x4.shl(x, 16), special));
  const zeroFrac = i32x4.eq(v128.and(x, i32x4.splat(0x7f)), i32x4.splat(0));
  const sub = v128.bitselect(i32x4.splat(NEG), i32x4.splat(-126), zeroFrac);
  const normal = i32x4.sub(field, i32x4.splat(127));
  let top = v128.bitselect(sub, normal, i32x4.eq(field, i32x4.splat(0)));
  top = v128.bitselect(i32x4.splat(NEG), top, special);
  v128.store(exp, top);
  const out = i32x4.gt_u(i32x4.add(top, i32x4.splat(67)), i32x4.splat(130));
  return v128.or(special, v128.andnot(out, i32x4.eq(top, i32x4.splat(NEG))));
}

/** `packPanels` for bf16 (same arguments, same output). */
export function packPanelsBf16(
  src: usize, n: i32, kp: i32, val: usize, exp: usize, tame: usize,
): void {
  const panels = (n + 3) >> 2;
  const stride = <usize>kp << 1;
  for (let g = 0; g < panels; g++) {
    const kSimd = 4 * g + 4 <= n ? kp & ~3 : 0;
    const col = src + (<usize>(4 * g * kp) << 1);
    const out = <usize>(g * kp) << 4;
    let bad = i32x4.splat(0);
    for (let k = 0; k < kSimd; k += 4) {
      const o = col + (<usize>k << 1);
      // u16 lanes: v01 = [col0 k0..k3, col1 k0..k3], v23 the same for columns 2 and 3.
      const v01 = i64x2.replace_lane(v128.load64_zero(o), 1, load<i64>(o + stride));
      const o2 = o + 2 * stride;
      const v23 = i64x2.replace_lane(v128.load64_zero(o2), 1, load<i64>(o2 + stride));
      // Transposed: w01 = [k0: col0..col3, k1: col0..col3], w23 for k2 and k3.
      const w01 = i8x16.shuffle(
        v01, v23, 0, 1, 8, 9, 16, 17, 24, 25, 2, 3, 10, 11, 18, 19, 26, 27,
      );
      const w23 = i8x16.shuffle(
        v01, v23, 4, 5, 12, 13, 20, 21, 28, 29, 6, 7, 14, 15, 22, 23, 30, 31,
      );
      const d = out + (<usize>k << 4);
      bad = v128.or(bad, decode4(i32x4.extend_low_i16x8_u(w01), val + d, exp + d));
      bad = v128.or(bad, decode4(i32x4.extend_high_i16x8_u(w01), val + d + 16, exp + d + 16));
      bad = v128.or(bad, decode4(i32x4.extend_low_i16x8_u(w23), val + d + 32, exp + d + 32));
      bad = v128.or(bad, decode4(i32x4.extend_high_i16x8_u(w23), val + d + 48, exp + d + 48));
    }
    let ok = !v128.any_true(bad);
    for (let l = 0; l < 4; l++) {
      const j = g * 4 + l;
      for (let k = kSimd; k < kp; k++) {
        const dst = <usize>(((g * kp + k) << 2) + l) << 2;
        if (j < n) {
          const bits = <i32>load<u16>(src + (<usize>(j * kp + k) << 1));
          ok = put(bits, FMT_BF16, val + dst, exp + dst) && ok;
        } else {
          store<f32>(val + dst, 0);
          store<i32>(exp + dst, NEG);
        }
      }
    }
    store<u8>(tame + g, ok ? 1 : 0);
  }
}
