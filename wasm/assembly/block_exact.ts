// The exact scalar block FMA (the fallback path): a transcription of the reference `blockFma`
// for 16-bit inputs, fp32 accumulator, round-toward-zero output, on integers only. Every aligned
// term is below 2^(F+2) <= 2^27 and at most 17 terms are summed, so the i64 sum is exact.

import { fracBitsOf, isSpecial16, NEG, sig16, topExp16 } from "./decode";

const CANONICAL_NAN: u32 = 0x7fffffff;
const POS_INF: u32 = 0x7f800000;
const NEG_INF: u32 = 0xff800000;

/**
 * Rounds the exact value sum * 2^grid toward zero to an fp32 pattern, with gradual underflow,
 * -0 for a negative sum that truncates to zero and infinity on overflow. sum != 0.
 */
export function roundRz(sum: i64, grid: i32): u32 {
  const sign: u32 = sum < 0 ? 0x80000000 : 0;
  const m: u64 = <u64>(sum < 0 ? -sum : sum);
  const lead = 63 - <i32>clz(m);
  const top = grid + lead;
  if (top >= 128) return sign | POS_INF;
  if (top >= -126) {
    const s: u64 = lead > 23 ? m >> <u64>(lead - 23) : m << <u64>(23 - lead);
    return sign | (<u32>(top + 127) << 23) | (<u32>s & 0x7fffff);
  }
  const shift = grid + 149; // quantum of the subnormal range is 2^-149
  const s: u64 = shift >= 0 ? m << <u64>shift : (shift > -64 ? m >> <u64>(-shift) : 0);
  return sign | <u32>s;
}

/** Special-value pre-check; returns 0 when none applies (0 is never a special result). */
function specialResult(a: usize, b: usize, len: i32, c: u32, fmt: i32): u32 {
  let nan = false;
  let pinf = false;
  let ninf = false;
  if ((c & POS_INF) == POS_INF) {
    if ((c & 0x7fffff) != 0) nan = true;
    else if ((c >> 31) != 0) ninf = true;
    else pinf = true;
  }
  const fb = fracBitsOf(fmt);
  const fracMask = (1 << fb) - 1;
  for (let k = 0; k < len; k++) {
    const x = <i32>load<u16>(a + (<usize>k << 1));
    const y = <i32>load<u16>(b + (<usize>k << 1));
    const xs = isSpecial16(x, fmt);
    const ys = isSpecial16(y, fmt);
    if (!xs && !ys) continue;
    if ((xs && (x & fracMask) != 0) || (ys && (y & fracMask) != 0)) nan = true;
    else if ((x & 0x7fff) == 0 || (y & 0x7fff) == 0) nan = true; // inf * 0
    else if (((x ^ y) & 0x8000) == 0) pinf = true;
    else ninf = true;
  }
  if (nan || (pinf && ninf)) return CANONICAL_NAN;
  if (pinf) return POS_INF;
  if (ninf) return NEG_INF;
  return 0;
}

/**
 * One fused block: d = c + sum(a_k * b_k) over `len` u16 pattern pairs at a and b, exactly as
 * the reference `blockFma` computes it for a contiguous, early-accumulator, RZ fp32 datapath.
 */
export function blockExact(
  a: usize, b: usize, len: i32, c: u32, fmt: i32, fracBits: i32, floor: i32,
): u32 {
  const special = specialResult(a, b, len, c, fmt);
  if (special != 0) return special;
  const fin = fracBitsOf(fmt);
  const cField = <i32>((c >> 23) & 0xff);
  const cSig: i64 = <i64>(c & 0x7fffff) | (cField == 0 ? 0 : 0x800000);
  const cTop = cSig == 0 ? NEG : (cField == 0 ? -126 : cField - 127);
  let emax = cTop;
  for (let k = 0; k < len; k++) {
    const x = <i32>load<u16>(a + (<usize>k << 1));
    const y = <i32>load<u16>(b + (<usize>k << 1));
    const ex = topExp16(x, fmt);
    const ey = topExp16(y, fmt);
    if (ex != NEG && ey != NEG && ex + ey > emax) emax = ex + ey;
  }
  if (emax == NEG) return 0; // no non-zero addend: +0
  const e = emax > floor ? emax : floor;
  const grid = e - fracBits;
  let sum: i64 = 0;
  for (let k = 0; k < len; k++) {
    const x = <i32>load<u16>(a + (<usize>k << 1));
    const y = <i32>load<u16>(b + (<usize>k << 1));
    const ex = topExp16(x, fmt);
    const ey = topExp16(y, fmt);
    if (ex == NEG || ey == NEG) continue;
    const shift = ex + ey - 2 * fin - grid;
    const t = align(<i64>sig16(x, fmt) * <i64>sig16(y, fmt), shift);
    sum += ((x ^ y) & 0x8000) != 0 ? -t : t;
  }
  if (cTop != NEG) {
    const t = align(cSig, cTop - 23 - grid);
    sum += (c >> 31) != 0 ? -t : t;
  }
  if (sum == 0) return 0; // exact cancellation: +0
  return roundRz(sum, grid);
}

/** floor(m * 2^shift) for m >= 0 (shift <= 11 here, so no overflow). */
@inline function align(m: i64, shift: i32): i64 {
  if (shift >= 0) return m << <i64>shift;
  return shift > -63 ? m >> <i64>(-shift) : 0;
}
