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
//  4. Lane sums of L <= 16 terms each <= 2^27 - 1 stay below 2^31: exact in i32. The accumulator
//     term trunc(c * scale) (< 2^(F+1), same exactness argument) is added in f64 (exact, < 2^32).
//  5. RZ to fp32: masking the f64 integer's low 29 fraction bits keeps its leading 24 bits,
//     truncating toward zero; that value demotes to f32 exactly (24 bits, below 2^33). Then one
//     f32 multiplication by 2^(E-F) (a normal power of two since F - 126 <= E <= 127): exact
//     while the result is finite, and any result >= 2^128 rounds to infinity (the overflow rule
//     "infinity"). Because E - F >= -126, a non-zero sum is never below 2^-126, so gradual
//     underflow cannot occur on this path. An exact zero sum gives +0.
//  Lanes with E outside [F - 126, 127] (tiny blocks, all-zero blocks, c NaN/Inf: see cTop) are
//  recomputed with the exact scalar `blockExact`.
// No relaxed-SIMD instruction is used.

import { blockExact } from "./block_exact";
import { NEG } from "./decode";

/** Parameters of one walk, set by `setWalk` before `walk`. */
let gL: i32 = 8;
let gF: i32 = 24;
let gFloor: i32 = -132;
let gFmt: i32 = 0;

/** Sets the datapath parameters: block size L, fraction bits F, align floor, input format. */
export function setWalk(blockSize: i32, fracBits: i32, floor: i32, fmt: i32): void {
  gL = blockSize;
  gF = fracBits;
  gFloor = floor;
  gFmt = fmt;
}

/** Exact scalar walk of one output (row i of A, column j of B). */
export function walkScalarOutput(aRaw: usize, bRaw: usize, kp: i32, c: u32): u32 {
  for (let k0 = 0; k0 < kp; k0 += gL) {
    const off = <usize>k0 << 1;
    c = blockExact(aRaw + off, bRaw + off, gL, c, gFmt, gF, gFloor);
  }
  return c;
}

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

/** Static scratch (16 bytes each) for patching lanes: results, bad flags, old accumulators. */
const SCRATCH: usize = memory.data(16, 16);
const FLAGS: usize = memory.data(16, 16);
const OLDS: usize = memory.data(16, 16);

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
  const floorV = i32x4.splat(gFloor);
  const minE = i32x4.splat(gF - 126);
  const bias = i32x4.splat(127 + gF);
  const unbias = i32x4.splat(gF - 127);
  const span = i32x4.splat(127 - (gF - 126));
  for (let k0 = 0; k0 < kp; k0 += L) {
    const kEnd = k0 + L;
    let e = i32x4.splat(2 * NEG);
    for (let k = k0; k < kEnd; k++) {
      const ea = v128.load32_splat(aExp + (<usize>k << 2));
      e = i32x4.max_s(e, i32x4.add(ea, v128.load(bExp + (<usize>k << 4))));
    }
    const big = i32x4.max_s(i32x4.max_s(e, cTop(c)), floorV);
    const scale = i32x4.shl(i32x4.sub(bias, big), 23);
    let s = i32x4.splat(0);
    for (let k = k0; k < kEnd; k++) {
      const p = f32x4.mul(v128.load32_splat(aVal + (<usize>k << 2)), v128.load(bVal + (<usize>k << 4)));
      s = i32x4.add(s, i32x4.trunc_sat_f32x4_s(f32x4.mul(p, scale)));
    }
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
    const d = f32x4.mul(t, i32x4.shl(i32x4.sub(big, unbias), 23));
    const bad = i32x4.gt_u(i32x4.sub(big, minE), span);
    c = v128.any_true(bad) ? fixLanes(d, c, bad, aRaw, bRaw, lanes, kp, k0) : d;
  }
  return c;
}

/** Recomputes the flagged lanes of one block with the exact scalar path. */
function fixLanes(
  d: v128, cOld: v128, bad: v128, aRaw: usize, bRaw: usize, lanes: i32, kp: i32, k0: i32,
): v128 {
  v128.store(SCRATCH, d);
  const off = <usize>k0 << 1;
  v128.store(FLAGS, bad);
  v128.store(OLDS, cOld);
  for (let l = 0; l < lanes; l++) {
    if (load<i32>(FLAGS + (<usize>l << 2)) == 0) continue;
    const c = load<u32>(OLDS + (<usize>l << 2));
    const col = bRaw + (<usize>(l * kp) << 1);
    store<u32>(SCRATCH + (<usize>l << 2), blockExact(aRaw + off, col + off, gL, c, gFmt, gF, gFloor));
  }
  return v128.load(SCRATCH);
}
