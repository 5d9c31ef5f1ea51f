// Operand pre-decoding for the GEMM engine: every 16-bit pattern becomes an exact f32 value, its
// "top" exponent (the exponent of the leading significand position; subnormals pinned at emin) as
// one biased byte, and a per-row (per-panel) "tame" byte. A bf16 row's tiny operands (non-zero,
// top below -67) are decoded as zeros and recorded in its tame byte (TINY_BIAS; pack_bf16.ts
// `decodeRowsBf16`), and walk.ts keeps such rows exact (`tinyLo`).
//
// Exponent bytes (walk.ts step 1 takes the block maximum of ea + eb on sixteen u8 lanes):
//   row byte   ra = ea + ROW_EXP_BIAS for a non-zero operand, 0 for zeros and NaN/Inf;
//   panel byte nb = PANEL_EXP_BIAS - eb for a non-zero operand, 255 for zeros and NaN/Inf;
//   ra -sat nb (u8 subtraction saturating at 0) = ea + eb + EXP_SUM_BIAS (127) for two non-zero
//   tame operands: ra lies in [124, 254] and nb in [1, 131] for tops in [-67, 63], so the
//   difference is at most 253 and never wraps; a sum below -127 saturates to 0. A zero on either
//   side gives 0 (ra = 0, or nb = 255 > ra). The byte 0 thus stands for "at most -127", below
//   every E the fast path keeps (E >= F - 126 >= -116), so neither zero products nor saturated
//   sums can change a kept block maximum. fp16 tops lie in [-14, 15] (subnormals pinned at emin),
//   well inside these ranges. Bytes of untame rows and panels (clamped to [0, 255]) are never
//   read by the fast path.
// Row layout: each k's byte twice (two bytes a k), so that a 32-bit splat load at an even k holds
// [k, k, k + 1, k + 1] in each of its four 32-bit lanes. Panel layout: sixteen bytes a k pair,
// in 32-bit lane j [column 2j at k, column 2j + 1 at k, column 2j at k + 1, column 2j + 1 at
// k + 1] (`panelExpSlot`), so that the same bytes of both vectors meet.
//
// Exactness: a bf16 pattern shifted left by 16 is the f32 pattern of the same value (bf16 is the
// upper half of binary32, subnormals included). An fp16 value is sig * 2^lsb with sig < 2^11 and
// lsb in [-24, 5]: f32(sig) is exact and the multiplication by the normal power of two 2^lsb is
// exact (at most 11 significant bits, result inside the f32 normal range).

/** Top exponent given to zero operands: far below any real exponent sum. */
export const NEG: i32 = -16384;

/**
 * i16 top of zeros and NaN/Inf in the SIMD decoding's lanes (pack_bf16.ts): far outside every
 * real top, so that the saturating narrowing to exponent bytes gives a row byte of 0 (top +
 * ROW_EXP_BIAS < 0) and a panel byte of 255 (PANEL_EXP_BIAS - top > 255), the bytes of zeros.
 */
export const EXP16_ZERO: i32 = -8192;

/**
 * Tame byte of an A row with tiny operands (non-zero, finite, top below -67, decoded as zeros):
 * TINY_BIAS plus the largest of their tops (in [-126, -68], so the byte lies in [74, 132]).
 */
export const TINY_BIAS: i32 = 200;

/** Bias of a row's exponent byte (see the module comment). */
export const ROW_EXP_BIAS: i32 = 191;
/** Bias of a panel's exponent byte, stored negated (see the module comment). */
export const PANEL_EXP_BIAS: i32 = 64;
/**
 * Bias of a block maximum in walk.ts: ROW_EXP_BIAS - PANEL_EXP_BIAS, chosen equal to fp32's
 * exponent bias so that an accumulator's biased exponent field is its top on the same scale.
 */
export const EXP_SUM_BIAS: i32 = ROW_EXP_BIAS - PANEL_EXP_BIAS;

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
 * (16 significant bits, lsb = sum - 14 >= -148) is an exact f32 below 2^128: normal for sums of
 * -126 and above, subnormal below (its lsb still on the 2^-149 grid); walk.ts step 3 holds either
 * way (a scaled product >= 2^-126 is exact, a smaller one truncates to 0). fp16: finite (sums in
 * [-28, 30], 22-bit products, always exact in f32).
 */
@inline function tame16(bits: i32, fmt: i32): bool {
  if (isSpecial16(bits, fmt)) return false;
  if (fmt == FMT_FP16) return true;
  const e = topExp16(bits, fmt);
  return e == NEG || (e >= -67 && e <= 63);
}

/** Byte offset of (k, lane l) in panel g's exponent bytes (see the module comment). */
@inline export function panelExpSlot(g: i32, kp: i32, k: i32, l: i32): usize {
  return (<usize>(g * kp + (k & ~1)) << 3) + <usize>((l >> 1) * 4 + (k & 1) * 2 + (l & 1));
}

/** Row exponent byte of a finite top (NEG for zeros), clamped (see the module comment). */
@inline function rowByte(top: i32): i32 {
  return top == NEG ? 0 : min(255, max(0, top + ROW_EXP_BIAS));
}

/** Panel exponent byte of a finite top (NEG for zeros), clamped (see the module comment). */
@inline function panelByte(top: i32): i32 {
  return top == NEG ? 255 : min(255, max(0, PANEL_EXP_BIAS - top));
}

/**
 * Decodes one element of a B panel into its value (f32) slot and exponent byte; returns whether
 * it is tame.
 */
@inline export function putPanel(bits: i32, fmt: i32, val: usize, exp: usize): bool {
  const special = putValue(bits, fmt, val);
  store<u8>(exp, <u8>(special ? 255 : panelByte(topExp16(bits, fmt))));
  return tame16(bits, fmt);
}

/** Stores an element's f32 value (+0 for NaN/Inf) at val; returns whether it is NaN/Inf. */
@inline function putValue(bits: i32, fmt: i32, val: usize): bool {
  const special = isSpecial16(bits, fmt);
  store<f32>(val, special ? f32(0) : value16(bits, fmt));
  return special;
}

/**
 * Decodes one element of a row of A into its value (f32) slot and its exponent byte, stored
 * twice (the row layout of the module comment); returns whether it is tame.
 */
@inline export function putRow(bits: i32, fmt: i32, val: usize, exp: usize): bool {
  const special = putValue(bits, fmt, val);
  const byte = special ? 0 : rowByte(topExp16(bits, fmt));
  store<u16>(exp, <u16>(byte * 0x0101));
  return tame16(bits, fmt);
}

/** Columns per packed B panel (two SIMD vectors of four lanes). */
export const PANEL: i32 = 8;

/**
 * Scalar packing of the k range [k0, k1) of every lane of panel g (lanes past n: value +0,
 * exponent byte 255, a zero); returns whether every element is tame.
 */
@inline export function packLanes(
  src: usize, n: i32, kp: i32, fmt: i32, val: usize, exp: usize, g: i32, k0: i32, k1: i32,
): bool {
  let ok = true;
  for (let l = 0; l < PANEL; l++) {
    const j = g * PANEL + l;
    for (let k = k0; k < k1; k++) {
      const slot = <usize>(g * kp + k) * PANEL + l;
      const eSlot = panelExpSlot(g, kp, k, l);
      if (j < n) {
        const bits = <i32>load<u16>(src + (<usize>(j * kp + k) << 1));
        ok = putPanel(bits, fmt, val + (slot << 2), exp + eSlot) && ok;
      } else {
        store<f32>(val + (slot << 2), 0);
        store<u8>(exp + eSlot, 255);
      }
    }
  }
  return ok;
}
