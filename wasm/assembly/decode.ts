// Operand pre-decoding for the GEMM engine: every 16-bit pattern becomes an exact f32 value, its
// "top" exponent as an i16 (the exponent of the leading significand position; subnormals pinned
// at emin, zeros and NaN/Inf at EXP16_ZERO so that zero products never win the block maximum)
// and a per-row (per-panel) "tame" byte. A bf16 row's tiny operands (non-zero, top below -67) are
// decoded as zeros and recorded in its tame byte (TINY_BIAS; pack_bf16.ts `decodeRowsBf16`), and
// walk.ts keeps such rows exact (`tinyLo`).
//
// Exactness: a bf16 pattern shifted left by 16 is the f32 pattern of the same value (bf16 is the
// upper half of binary32, subnormals included). An fp16 value is sig * 2^lsb with sig < 2^11 and
// lsb in [-24, 5]: f32(sig) is exact and the multiplication by the normal power of two 2^lsb is
// exact (at most 11 significant bits, result inside the f32 normal range).

import { decodeRowsBf16, packPanelsBf16 } from "./pack_bf16";

/** Top exponent given to zero operands: far below any real exponent sum. */
export const NEG: i32 = -16384;

/**
 * Stored i16 top exponent of zeros (and of NaN/Inf, whose rows and panels are untame): the sum
 * of two stays in the i16 range (-16384), and a sum with a real exponent (<= 127) stays below
 * -8000, far under any exponent sum of two non-zero operands (>= -2 * 133) and under the fast
 * path's lowest E (F - 126 >= -116).
 */
export const EXP16_ZERO: i32 = -8192;

/**
 * Tame byte of an A row with tiny operands (non-zero, finite, top below -67, decoded as zeros):
 * TINY_BIAS plus the largest of their tops (in [-126, -68], so the byte lies in [74, 132]).
 */
export const TINY_BIAS: i32 = 200;

/** Format code for bf16 operands. */
export const FMT_BF16: i32 = 0;
/** Format code for fp16 operands. */
export const FMT_FP16: i32 = 1;

/** Exponent-field width, fraction width, bias and emin of a 16-bit format. */
@inline export function fracBitsOf(fmt: i32): i32 {
  return fmt == FMT_BF16 ? 7 : 10;
}
@inline function expMaskOf(fmt: i32): i32 {
  return fmt == FMT_BF16 ? 0xff : 0x1f;
}
@inline function biasOf(fmt: i32): i32 {
  return fmt == FMT_BF16 ? 127 : 15;
}

/** True when the pattern is NaN or infinity. */
@inline export function isSpecial16(bits: i32, fmt: i32): bool {
  const fb = fracBitsOf(fmt);
  const em = expMaskOf(fmt);
  return ((bits >> fb) & em) == em;
}

/** Top exponent of a pattern (NEG for zeros; emin for subnormals). Finite patterns only. */
@inline export function topExp16(bits: i32, fmt: i32): i32 {
  const fb = fracBitsOf(fmt);
  const field = (bits >> fb) & expMaskOf(fmt);
  if (field == 0) return (bits & ((1 << fb) - 1)) == 0 ? NEG : 1 - biasOf(fmt);
  return field - biasOf(fmt);
}

/** Integer significand (hidden bit included for normals). Finite patterns only. */
@inline export function sig16(bits: i32, fmt: i32): i32 {
  const fb = fracBitsOf(fmt);
  const frac = bits & ((1 << fb) - 1);
  return ((bits >> fb) & expMaskOf(fmt)) == 0 ? frac : frac | (1 << fb);
}

/** Exact f32 value of a finite pattern (see the module comment for why it is exact). */
@inline function value16(bits: i32, fmt: i32): f32 {
  if (fmt == FMT_BF16) return reinterpret<f32>(bits << 16);
  const field = (bits >> 10) & 0x1f;
  const lsb = (field == 0 ? -14 : field - 15) - 10;
  const mag = f32(sig16(bits, fmt)) * reinterpret<f32>((lsb + 127) << 23);
  return (bits & 0x8000) != 0 ? -mag : mag;
}

/**
 * Whether an operand keeps the fast path exact. bf16: finite and zero or top exponent in
 * [-67, 63], so every exponent sum of two tame operands lies in [-134, 126]: the product
 * (16 significant bits, lsb = sum - 14 >= -148) is an exact normal f32 below 2^128. fp16: finite
 * (sums in [-28, 30], 22-bit products, always exact in f32).
 */
@inline function tame16(bits: i32, fmt: i32): bool {
  if (isSpecial16(bits, fmt)) return false;
  if (fmt == FMT_FP16) return true;
  const e = topExp16(bits, fmt);
  return e == NEG || (e >= -67 && e <= 63);
}

/** Decodes one element into value (f32) and exponent (i16) slots; returns whether it is tame. */
@inline export function put(bits: i32, fmt: i32, val: usize, exp: usize): bool {
  const special = isSpecial16(bits, fmt);
  store<f32>(val, special ? f32(0) : value16(bits, fmt));
  const top = topExp16(bits, fmt);
  store<i16>(exp, <i16>(special || top == NEG ? EXP16_ZERO : top));
  return tame16(bits, fmt);
}

/**
 * `put` for a row of A: the exponent slot is an i32 holding the i16 top in both halves, so that
 * one 32-bit lane shuffle broadcasts it to every i16 lane (walk.ts step 1).
 */
@inline export function putRow(bits: i32, fmt: i32, val: usize, exp: usize): bool {
  const ok = put(bits, fmt, val, exp);
  store<i16>(exp, load<i16>(exp), 2);
  return ok;
}

/**
 * Decodes row-major A [rows][kp] (u16 patterns) into f32 values and top exponents (i32 slots,
 * see `putRow`) with the same layout, and one tame byte per row.
 */
export function decodeRows(
  src: usize, rows: i32, kp: i32, fmt: i32, val: usize, exp: usize, tame: usize,
): void {
  if (fmt == FMT_BF16) decodeRowsBf16(src, rows, kp, val, exp, tame); // pack_bf16.ts: SIMD
  else decodeRowsOf(src, rows, kp, FMT_FP16, val, exp, tame);
}

/** Scalar `decodeRows` with a constant format (so the format tests fold away). */
@inline function decodeRowsOf(
  src: usize, rows: i32, kp: i32, fmt: i32, val: usize, exp: usize, tame: usize,
): void {
  for (let i = 0; i < rows; i++) {
    let ok = true;
    for (let k = 0; k < kp; k++) {
      const idx = <usize>(i * kp + k);
      ok = putRow(<i32>load<u16>(src + (idx << 1)), fmt, val + (idx << 2), exp + (idx << 2)) && ok;
    }
    store<u8>(tame + i, ok ? 1 : 0);
  }
}

/** Columns per packed B panel (two SIMD vectors of four lanes). */
export const PANEL: i32 = 8;

/**
 * Packs row-major B [n][kp] (weight layout) into panels of 8 columns: f32 values and i16
 * exponents at [panel][k][lane], lanes beyond n zero-filled, and one tame byte per panel.
 */
export function packPanels(
  src: usize, n: i32, kp: i32, fmt: i32, val: usize, exp: usize, tame: usize,
): void {
  if (fmt == FMT_BF16) packPanelsBf16(src, n, kp, val, exp, tame); // pack_bf16.ts: SIMD
  else packPanelsOf(src, n, kp, FMT_FP16, val, exp, tame);
}

/** Scalar `packPanels` with a constant format (so the format tests fold away). */
@inline function packPanelsOf(
  src: usize, n: i32, kp: i32, fmt: i32, val: usize, exp: usize, tame: usize,
): void {
  const panels = (n + PANEL - 1) >> 3;
  for (let g = 0; g < panels; g++) {
    const ok = packLanes(src, n, kp, fmt, val, exp, g, 0, kp);
    store<u8>(tame + g, ok ? 1 : 0);
  }
}

/**
 * Scalar packing of the k range [k0, k1) of every lane of panel g (lanes past n: value +0,
 * exponent EXP16_ZERO); returns whether every element is tame.
 */
@inline export function packLanes(
  src: usize, n: i32, kp: i32, fmt: i32, val: usize, exp: usize, g: i32, k0: i32, k1: i32,
): bool {
  let ok = true;
  for (let l = 0; l < PANEL; l++) {
    const j = g * PANEL + l;
    for (let k = k0; k < k1; k++) {
      const slot = <usize>(g * kp + k) * PANEL + l;
      if (j < n) {
        const bits = <i32>load<u16>(src + (<usize>(j * kp + k) << 1));
        ok = put(bits, fmt, val + (slot << 2), exp + (slot << 1)) && ok;
      } else {
        store<f32>(val + (slot << 2), 0);
        store<i16>(exp + (slot << 1), <i16>EXP16_ZERO);
      }
    }
  }
  return ok;
}
