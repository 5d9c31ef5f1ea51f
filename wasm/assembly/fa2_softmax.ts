// The online softmax of an FA2 tile (src/kernels/attention/_fa2_tile_softmax.ts, whose bits it
// reproduces) for the table-model SFU: per row the lane maxima over the tile's scores, the scaled
// maximum, P = EX2(S * scale_log2 - max_scaled) rounded to BF16 for the P·V product, the rescale
// of O and of the four lane sums on later tiles, and each lane's columns added in order.
//
// Every instruction runs on four FP32 lanes at once (SIMD128), without data-dependent branches:
// the per-column work (exp2 argument, EX2, BF16 rounding) takes four columns of a row, the O
// rescale four entries of O, and the lane maxima and lane sums hold FA2's four lanes of a row
// (lane t owns columns 8a + 2t and 8a + 2t + 1) in one vector, each lane visiting its columns in
// FA2's order. The instruction models, as the FP32 unit models them (src/hardware/fp32_unit):
// - FADD and FMUL are the IEEE binary32 operations (f32x4.add / f32x4.mul round to nearest-even,
//   subnormals kept); then a NaN result becomes the canonical 0x7FFFFFFF and, with FTZ,
//   subnormal inputs and results become zeros of the same sign.
// - FFMA a * b + c is computed in f64: the product of two binary32 values is exact; the sum is
//   rounded to odd (TwoSum gives its exact error; an inexact sum with an even significand moves
//   one ulp toward the exact value) and then once to binary32 (f32x4.demote_f64x2_zero), which
//   is the correctly rounded fused result (binary64 has more than 24 + 2 bits). Exact zeros take
//   IEEE's signs, which are the fused operation's; a NaN or infinite sum leaves TwoSum's error NaN
//   and is not adjusted.
// - MUFU.EX2 is the table model of src/hardware/sfu/mufu_ex2.ts: the argument's sign + 7.23
//   fixed point (|x| * 2^23 truncated: exact, since |x| < 128 on this path and scaling by a power
//   of two is exact), a quadratic over 64 table rows with the SFU's squarer, evaluated in f64 (every
//   term is an integer below 2^50, so exactly) and floored by 2^15.
// - On the `ieee` SFU, MUFU.EX2 is the correctly rounded 2^x of ieee_ex2.ts (`ieeeEx2x4`, lane by
//   lane, with the SFU's FTZ flag; the bare instruction's `.ftz` flushes its result).
// Tests compare every instruction with the TypeScript models (all 2^32 EX2 inputs in the slow
// suite) and whole tiles with the TypeScript step on adversarial scores.

/** The EX2 table: 64 rows of three i32 coefficients and one unused word (set by the host). */
const EX2: usize = memory.data(64 * 16, 16);
/** The SFU squarer's result for every 17-bit input (u16), built on first use. */
const SQUARES: usize = memory.data(0x20000 * 2, 16);
let squaresBuilt = false;

import { ieeeEx2x4 } from "./ieee_ex2";

const NEG_INF: u32 = 0xff800000;

/**
 * Vector constants, read from static data where they are used: V8 builds a v128 literal anew at
 * every use (two general-register moves and a shuffle), while a load from a constant address
 * inside the module's initial memory is one instruction. Four u32 lanes a slot (f64 and i64
 * constants as their two little-endian halves).
 */
const KONST: usize = memory.data<u32>([
  0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, // EXP_MASK
  0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff, // ABS_MASK, also the canonical NaN
  0x80000000, 0x80000000, 0x80000000, 0x80000000, // SIGN
  0xff800000, 0xff800000, 0xff800000, 0xff800000, // NEG_INF_V
  0x43000000, 0x43000000, 0x43000000, 0x43000000, // BIG_EX2
  0x4b000000, 0x4b000000, 0x4b000000, 0x4b000000, // TWO_23
  0x7fffff, 0x7fffff, 0x7fffff, 0x7fffff, // FRAC_MASK
  0x1ffff, 0x1ffff, 0x1ffff, 0x1ffff, // LO_MASK
  127, 127, 127, 127, // BIAS
  0x800000, 0x800000, 0x800000, 0x800000, // FRAC_ONE
  255, 255, 255, 255, // EXP_MAX
  0x7fff, 0x7fff, 0x7fff, 0x7fff, // BF16_HALF
  1, 1, 1, 1, // ONE_I32
  0xc2fc0000, 0xc2fc0000, 0xc2fc0000, 0xc2fc0000, // MINUS_126
  0x3f000000, 0x3f000000, 0x3f000000, 0x3f000000, // HALF
  0, 0x40c00000, 0, 0x40c00000, // F64_8192
  0, 0x40ddf880, 0, 0x40ddf880, // F64_77E2
  0, 0x3f000000, 0, 0x3f000000, // F64_2M15
  1, 0, 1, 0, // I64_ONE
  0, 2, 4, 6, // LANE_COL: FA2 lane t's first column
  0, 1, 2, 3, // COL4
]);
const EXP_MASK: usize = 0;
const ABS_MASK: usize = 1;
const SIGN: usize = 2;
const NEG_INF_V: usize = 3;
const BIG_EX2: usize = 4;
const TWO_23: usize = 5;
const FRAC_MASK: usize = 6;
const LO_MASK: usize = 7;
const BIAS: usize = 8;
const FRAC_ONE: usize = 9;
const EXP_MAX: usize = 10;
const BF16_HALF: usize = 11;
const ONE_I32: usize = 12;
const MINUS_126: usize = 13;
const HALF: usize = 14;
const F64_8192: usize = 15;
const F64_77E2: usize = 16;
const F64_2M15: usize = 17;
const I64_ONE: usize = 18;
const LANE_COL: usize = 19;
const COL4: usize = 20;

/** The vector constant in `slot`. */
@inline function k(slot: usize): v128 {
  return v128.load(KONST + (slot << 4));
}

/** Flags of `fa2SoftmaxTile`: the FA2 build's choices. */
const FTZ = 1; // every FP32 instruction with .ftz
const ARG_FFMA = 2; // S * scale_log2 - max_scaled as one FFMA (else FMUL then FADD)
const EX2_FTZ = 4; // exp2 as bare MUFU.EX2 (else ex2.approx.f32: squared below -126)
const RESCALE_FFMA = 8; // row_sum * scale + p as one FFMA (else FMUL then FADD)
const IEEE = 16; // the `ieee` SFU's MUFU.EX2 (else the table model)
const IEEE_FTZ = 32; // the `ieee` SFU flushes subnormal results

/** Copies the 64 x 3 EX2 coefficients from `table` (16 bytes a row) and builds the squarer. */
export function fa2SetEx2Table(table: usize): void {
  for (let r: usize = 0; r < 64; r++) memory.copy(EX2 + (r << 4), table + r * 12, 12);
  if (squaresBuilt) return;
  for (let x: u32 = 0; x < 0x20000; x++) {
    let sum: u32 = 0;
    for (let i: u32 = 0; i < 17; i++) if (((x >> i) & 1) != 0) sum += x >> (18 - i);
    store<u16>(SQUARES + (<usize>x << 1), <u16>(sum >> 1));
  }
  squaresBuilt = true;
}

/**
 * a where the mask lane is all ones, b where it is all zeros. Every mask here is a comparison's
 * result (each lane all ones or all zeros), for which the relaxed lane select is defined to give
 * exactly that on every implementation; V8 lowers it to one blend instead of three bitwise ops.
 */
@inline function sel(a: v128, b: v128, m: v128): v128 {
  return i32x4.relaxed_laneselect(a, b, m);
}

/** Subnormal lanes (exponent field 0) become zeros of the same sign. */
@inline function flush(x: v128): v128 {
  const tiny = i32x4.eq(v128.and(x, k(EXP_MASK)), i32x4.splat(0));
  return v128.andnot(x, v128.and(tiny, k(ABS_MASK)));
}

/** `x` flushed when FTZ is on. */
@inline function ftzIn(x: v128, ftz: bool): v128 {
  return ftz ? flush(x) : x;
}

/** Binary32 results as the FP32 unit returns them: canonical NaN, FTZ flush when asked. */
@inline function result(r: v128, ftz: bool): v128 {
  const bits = sel(k(ABS_MASK), r, f32x4.ne(r, r));
  return ftz ? flush(bits) : bits;
}

// The instruction models on operands already flushed when FTZ is on (`ftzIn`; every result is):
// loop-invariant operands are flushed once outside the loops.

@inline function fmulIn(a: v128, b: v128, ftz: bool): v128 {
  return result(f32x4.mul(a, b), ftz);
}

@inline function faddIn(a: v128, b: v128, ftz: bool): v128 {
  return result(f32x4.add(a, b), ftz);
}

/** Two lanes of FFMA in f64 (a, b, c promoted): the sum rounded to odd, then to binary32. */
@inline function ffmaHalf(a: v128, b: v128, c: v128): v128 {
  const zero = f64x2.splat(0);
  const p = f64x2.mul(a, b); // exact
  const s = f64x2.add(p, c);
  const bb = f64x2.sub(s, p);
  const e = f64x2.add(f64x2.sub(p, f64x2.sub(s, bb)), f64x2.sub(c, bb)); // TwoSum: s's error
  const inexact = v128.and(f64x2.ne(e, zero), f64x2.eq(e, e));
  const one = k(I64_ONE);
  const even = i64x2.eq(v128.and(s, one), i64x2.splat(0));
  // One ulp away from zero when the error has the sum's sign, else toward it: +1 or -1.
  const step = v128.or(v128.xor(f64x2.gt(e, zero), f64x2.gt(s, zero)), one);
  return f32x4.demote_f64x2_zero(i64x2.add(s, v128.and(step, v128.and(inexact, even))));
}

/** FFMA a * b + c on four lanes, one rounding to nearest-even (fma_f32.ts `_fmaF32`, rne). */
@inline function ffmaIn(a: v128, b: v128, c: v128, ftz: bool): v128 {
  const lo = ffmaHalf(
    f64x2.promote_low_f32x4(a),
    f64x2.promote_low_f32x4(b),
    f64x2.promote_low_f32x4(c),
  );
  const hi = ffmaHalf(
    f64x2.promote_low_f32x4(i64x2.shuffle(a, a, 1, 1)),
    f64x2.promote_low_f32x4(i64x2.shuffle(b, b, 1, 1)),
    f64x2.promote_low_f32x4(i64x2.shuffle(c, c, 1, 1)),
  );
  return result(i64x2.shuffle(lo, hi, 0, 2), ftz);
}

@inline function fmul(a: v128, b: v128, ftz: bool): v128 {
  return fmulIn(ftzIn(a, ftz), ftzIn(b, ftz), ftz);
}

@inline function fadd(a: v128, b: v128, ftz: bool): v128 {
  return faddIn(ftzIn(a, ftz), ftzIn(b, ftz), ftz);
}

@inline function ffma(a: v128, b: v128, c: v128, ftz: bool): v128 {
  return ffmaIn(ftzIn(a, ftz), ftzIn(b, ftz), ftzIn(c, ftz), ftz);
}

/** The EX2 table row (c0, c1, c2) of each lane's 6-bit index: three vectors of four lanes. */
@inline function ex2Sum(row: v128, lo: v128, sq: v128): v128 {
  const r0 = v128.load(EX2 + (<usize>i32x4.extract_lane(row, 0) << 4));
  const r1 = v128.load(EX2 + (<usize>i32x4.extract_lane(row, 1) << 4));
  const r2 = v128.load(EX2 + (<usize>i32x4.extract_lane(row, 2) << 4));
  const r3 = v128.load(EX2 + (<usize>i32x4.extract_lane(row, 3) << 4));
  const t01 = i32x4.shuffle(r0, r1, 0, 4, 1, 5); // c0 c0 c1 c1
  const t23 = i32x4.shuffle(r2, r3, 0, 4, 1, 5);
  const u01 = i32x4.shuffle(r0, r1, 2, 6, 2, 6); // c2 c2
  const u23 = i32x4.shuffle(r2, r3, 2, 6, 2, 6);
  const c0 = i64x2.shuffle(t01, t23, 0, 2);
  const c1 = i64x2.shuffle(t01, t23, 1, 3);
  const c2 = i64x2.shuffle(u01, u23, 0, 2);
  const lowHalf = ex2SumHalf(c0, c1, c2, lo, sq);
  const highHalf = ex2SumHalf(
    i64x2.shuffle(c0, c0, 1, 1),
    i64x2.shuffle(c1, c1, 1, 1),
    i64x2.shuffle(c2, c2, 1, 1),
    i64x2.shuffle(lo, lo, 1, 1),
    i64x2.shuffle(sq, sq, 1, 1),
  );
  return i64x2.shuffle(lowHalf, highHalf, 0, 2);
}

/** floor((c0 * 8192 + c1 * lo + c2 * sq + 0x77e2) / 32768) of the two low lanes, exact in f64. */
@inline function ex2SumHalf(c0: v128, c1: v128, c2: v128, lo: v128, sq: v128): v128 {
  const sum = f64x2.add(
    f64x2.add(
      f64x2.mul(f64x2.convert_low_i32x4_s(c0), k(F64_8192)),
      f64x2.mul(f64x2.convert_low_i32x4_s(c1), f64x2.convert_low_i32x4_s(lo)),
    ),
    f64x2.add(
      f64x2.mul(f64x2.convert_low_i32x4_s(c2), f64x2.convert_low_i32x4_s(sq)),
      k(F64_77E2),
    ),
  );
  return i32x4.trunc_sat_f64x2_s_zero(f64x2.floor(f64x2.mul(sum, k(F64_2M15))));
}

/** MUFU.EX2 on four lanes, table model (mufu_ex2.ts with pre_ex2.ts's conversion). */
@inline function mufuEx2(x: v128): v128 {
  const abs = v128.and(x, k(ABS_MASK));
  const neg = i32x4.lt_s(x, i32x4.splat(0));
  const nan = i32x4.gt_u(abs, k(EXP_MASK));
  const big = i32x4.ge_u(abs, k(BIG_EX2)); // |x| >= 128, infinities, NaN
  // Sign + 7.23 fixed point of |x| (zero for subnormals and zeros; saturated lanes are `big`).
  const t = i32x4.trunc_sat_f32x4_s(f32x4.mul(abs, k(TWO_23)));
  const n = i32x4.shr_u(t, 23);
  let f = v128.and(t, k(FRAC_MASK));
  const fz = i32x4.eq(f, i32x4.splat(0));
  // Negative arguments: 2^(-n - 1) * 2^(1 - frac) with the fraction complemented, or 2^-n.
  f = v128.xor(f, v128.and(v128.andnot(neg, fz), k(FRAC_MASK)));
  let eo = i32x4.add(i32x4.sub(v128.xor(n, neg), v128.and(neg, fz)), k(BIAS));
  const lo = v128.and(f, k(LO_MASK));
  let sq = i32x4.splat(0);
  sq = v128.load16_lane(SQUARES + (<usize>i32x4.extract_lane(lo, 0) << 1), sq, 0);
  sq = v128.load16_lane(SQUARES + (<usize>i32x4.extract_lane(lo, 1) << 1), sq, 2);
  sq = v128.load16_lane(SQUARES + (<usize>i32x4.extract_lane(lo, 2) << 1), sq, 4);
  sq = v128.load16_lane(SQUARES + (<usize>i32x4.extract_lane(lo, 3) << 1), sq, 6);
  let frac = i32x4.sub(ex2Sum(i32x4.shr_u(f, 17), lo, sq), k(FRAC_ONE));
  const carry = i32x4.ge_s(frac, k(FRAC_ONE));
  frac = i32x4.sub(frac, v128.and(carry, k(FRAC_ONE)));
  eo = i32x4.sub(eo, carry);
  let r = v128.or(i32x4.shl(eo, 23), frac);
  r = v128.andnot(r, i32x4.le_s(eo, i32x4.splat(0)));
  r = sel(k(EXP_MASK), r, i32x4.ge_s(eo, k(EXP_MAX)));
  r = sel(v128.andnot(k(EXP_MASK), neg), r, big);
  return sel(k(ABS_MASK), r, nan);
}

/** exp2 as the build lowers it: bare MUFU.EX2, or ex2.approx.f32 (squared below -126). */
@inline function ex2(x: v128, bare: bool): v128 {
  if (bare) return mufuEx2(x);
  const small = f32x4.lt(x, k(MINUS_126)); // false for NaN
  const r = mufuEx2(sel(f32x4.mul(x, k(HALF)), x, small));
  return sel(f32x4.mul(r, r), r, small);
}

/**
 * exp2 as the build lowers it on the SFU given: the table model (`ex2`), or the `ieee` SFU's
 * correctly rounded MUFU.EX2, bare (its `.ftz` flushes the result: `ieeeEx2` with FTZ; a
 * subnormal argument gives 1.0 either way) or as ex2.approx.f32 (squared below -126, the SFU's
 * own FTZ flag `ieeeFtz`).
 */
@inline function ex2On(x: v128, bare: bool, ieee: bool, ieeeFtz: bool): v128 {
  if (!ieee) return ex2(x, bare);
  if (bare) return ieeeEx2x4(x, true);
  const small = f32x4.lt(x, k(MINUS_126)); // false for NaN
  const r = ieeeEx2x4(sel(f32x4.mul(x, k(HALF)), x, small), ieeeFtz);
  return sel(f32x4.mul(r, r), r, small);
}

/** BF16 round to nearest-even of FP32 patterns; every NaN becomes 0x7FFF (fast_fp32.ts). */
@inline function bf16(bits: v128): v128 {
  const nan = i32x4.gt_u(v128.and(bits, k(ABS_MASK)), k(EXP_MASK));
  const odd = v128.and(i32x4.shr_u(bits, 16), k(ONE_I32));
  const r = i32x4.shr_u(i32x4.add(i32x4.add(bits, k(BF16_HALF)), odd), 16);
  return sel(k(BF16_HALF), r, nan);
}

/** Lanes (x0, x2, x4, x6) of the eight u32 at `at`: h = 0 gives FA2 lane t's column 2t. */
@inline function laneColumns(at: usize, h: i32): v128 {
  const a = v128.load(at);
  const b = v128.load(at, 16);
  return h == 0 ? i32x4.shuffle(a, b, 0, 2, 4, 6) : i32x4.shuffle(a, b, 1, 3, 5, 7);
}

/**
 * The softmax step of every row of a tile. scores [rows][blockN] (FP32 patterns, read); limits
 * [rows] (i32: the first masked column, <= 0 for all masked); rowMax [rows], sums [rows][4] and
 * o [rows][d] (FP32 patterns, updated; d a multiple of 4); pb [rows][blockN] (BF16, written); p:
 * blockN u32 of scratch. blockN is a multiple of 8. `fa2SetEx2Table` must have been called.
 * `checkInf`: the rescale of a later tile takes a row max of -inf as 0 (FA2's Check_inf, on its
 * masking iterations); without it such a row's O and sums become NaN, as on the GPU.
 * Flag 16 selects the `ieee` SFU's MUFU.EX2 (flag 32: with its FTZ flag) instead of the table.
 * The two builds FA2 models (flags 15 and 8), on either SFU, run copies of the step whose flag
 * branches fold away; any other combination runs the general copy.
 */
export function fa2SoftmaxTile(
  rows: i32, blockN: i32, d: i32, scores: usize, limits: usize, rowMax: usize, sums: usize,
  o: usize, pb: usize, p: usize, first: bool, checkInf: bool, scaleLog2: u32, flags: i32,
): void {
  const ieeeFtz = (flags & IEEE_FTZ) != 0;
  const build = flags & ~IEEE_FTZ;
  if (build == (FTZ | ARG_FFMA | EX2_FTZ | RESCALE_FFMA)) {
    tileRows(rows, blockN, d, scores, limits, rowMax, sums, o, pb, p, first, checkInf, scaleLog2, true, true, true, true, false, false);
  } else if (build == RESCALE_FFMA) {
    tileRows(rows, blockN, d, scores, limits, rowMax, sums, o, pb, p, first, checkInf, scaleLog2, false, false, false, true, false, false);
  } else if (build == (IEEE | FTZ | ARG_FFMA | EX2_FTZ | RESCALE_FFMA)) {
    tileRows(rows, blockN, d, scores, limits, rowMax, sums, o, pb, p, first, checkInf, scaleLog2, true, true, true, true, true, ieeeFtz);
  } else if (build == (IEEE | RESCALE_FFMA)) {
    tileRows(rows, blockN, d, scores, limits, rowMax, sums, o, pb, p, first, checkInf, scaleLog2, false, false, false, true, true, ieeeFtz);
  } else {
    tileRows(
      rows, blockN, d, scores, limits, rowMax, sums, o, pb, p, first, checkInf, scaleLog2,
      (flags & FTZ) != 0, (flags & ARG_FFMA) != 0, (flags & EX2_FTZ) != 0,
      (flags & RESCALE_FFMA) != 0, (flags & IEEE) != 0, ieeeFtz,
    );
  }
}

/** `fa2SoftmaxTile` for the build choices given (constants at the calls that specialise it). */
@inline function tileRows(
  rows: i32, blockN: i32, d: i32, scores: usize, limits: usize, rowMax: usize, sums: usize,
  o: usize, pb: usize, p: usize, first: bool, checkInf: bool, scaleLog2: u32,
  ftz: bool, argFfma: bool, bare: bool, rescaleFfma: bool, ieee: bool, ieeeFtz: bool,
): void {
  const groups = blockN >> 3;
  const negInf = k(NEG_INF_V);
  const scale = i32x4.splat(scaleLog2);
  const scaleIn = ftzIn(scale, ftz);
  const laneCol = k(LANE_COL); // FA2 lane t's first column
  const col4 = k(COL4);
  for (let r = 0; r < rows; r++) {
    const s = scores + (<usize>(r * blockN) << 2);
    const lim = i32x4.splat(load<i32>(limits + (<usize>r << 2)));
    const state = sums + (<usize>r << 4);
    const prev = load<u32>(rowMax + (<usize>r << 2));
    // Lane maxima (MaxOp x > y ? x : y over each lane's columns, from the previous max or the
    // lane's first column), then the quad allreduce: xor 2, then xor 1.
    let acc = first
      ? sel(laneColumns(s, 0), negInf, i32x4.lt_s(laneCol, lim))
      : i32x4.splat(prev);
    for (let a = 0; a < groups; a++) {
      for (let h = 0; h < 2; h++) {
        const col = i32x4.add(laneCol, i32x4.splat(8 * a + h));
        const v = sel(laneColumns(s + (<usize>a << 5), h), negInf, i32x4.lt_s(col, lim));
        acc = sel(acc, v, f32x4.gt(acc, v));
      }
    }
    const m0 = i32x4.extract_lane(acc, 0), m1 = i32x4.extract_lane(acc, 1);
    const m2 = i32x4.extract_lane(acc, 2), m3 = i32x4.extract_lane(acc, 3);
    const a02 = reinterpret<f32>(m0) > reinterpret<f32>(m2) ? m0 : m2;
    const b13 = reinterpret<f32>(m1) > reinterpret<f32>(m3) ? m1 : m3;
    const cur: u32 = reinterpret<f32>(a02) > reinterpret<f32>(b13) ? a02 : b13;
    store<u32>(rowMax + (<usize>r << 2), cur);
    // scale_apply_exp2 scales a -inf max to 0 on every tile; the rescale's scores_max_cur takes
    // it as 0 only with Check_inf (else (-inf) - (-inf) is NaN).
    const negMax = ftzIn(
      v128.xor(cur == NEG_INF ? i32x4.splat(0) : fmul(i32x4.splat(cur), scale, ftz), k(SIGN)),
      ftz,
    );
    const maxCur = i32x4.splat(checkInf && cur == NEG_INF ? 0 : cur);
    const pbRow = pb + (<usize>(r * blockN) << 1);
    for (let c = 0; c < blockN; c += 4) {
      const masked = i32x4.lt_s(i32x4.add(col4, i32x4.splat(c)), lim);
      const sc = ftzIn(sel(v128.load(s + (<usize>c << 2)), negInf, masked), ftz);
      const arg = argFfma
        ? ffmaIn(sc, scaleIn, negMax, ftz)
        : faddIn(fmulIn(sc, scaleIn, ftz), negMax, ftz);
      const e = ex2On(arg, bare, ieee, ieeeFtz);
      v128.store(p + (<usize>c << 2), e);
      const h = bf16(e);
      v128.store64_lane(pbRow + (<usize>c << 1), i16x8.narrow_i32x4_u(h, h), 0);
    }
    let rescale = i32x4.splat(0);
    if (!first) {
      const diff = fadd(i32x4.splat(prev), v128.xor(maxCur, k(SIGN)), ftz);
      rescale = ftzIn(ex2On(fmul(diff, scale, ftz), bare, ieee, ieeeFtz), ftz);
      const oRow = o + (<usize>(r * d) << 2);
      for (let j = 0; j < d; j += 4) {
        const q = oRow + (<usize>j << 2);
        v128.store(q, fmulIn(ftzIn(v128.load(q), ftz), rescale, ftz));
      }
    }
    // Lane sums: lane t adds its columns 8a + 2t + h in order (a, then h), from its first one or
    // from the rescaled previous sum plus its first one.
    const p0 = laneColumns(p, 0);
    let sum = ftzIn(p0, ftz);
    if (!first) {
      const old = v128.load(state);
      sum = rescaleFfma ? ffma(old, rescale, p0, ftz) : fadd(fmul(old, rescale, ftz), p0, ftz);
    }
    sum = faddIn(sum, ftzIn(laneColumns(p, 1), ftz), ftz);
    for (let a = 1; a < groups; a++) {
      const at = p + (<usize>a << 5);
      sum = faddIn(sum, ftzIn(laneColumns(at, 0), ftz), ftz);
      sum = faddIn(sum, ftzIn(laneColumns(at, 1), ftz), ftz);
    }
    v128.store(state, sum);
  }
}

/**
 * The instruction models above, one call each, for checks against the TypeScript models: op 0
 * MUFU.EX2 (a), 1 FFMA (a * b + c), 2 FMUL, 3 FADD, 4 exp2 as ex2.approx.f32; on the `ieee` SFU,
 * 5 MUFU.EX2 and 6 ex2.approx.f32; `ftz` as the instructions' flag (for 5 and 6, the SFU's). The operands go to lane `a & 3` of the vectors, the other lanes hold
 * other values, and that lane's result is returned: a lane that leaked into another would show.
 * `fa2SetEx2Table` must have been called for ops 0 and 4.
 */
export function fa2Instruction(op: i32, a: u32, b: u32, c: u32, ftz: bool): u32 {
  const lane = a & 3;
  const va = inLane(a, lane), vb = inLane(b, lane), vc = inLane(c, lane);
  let r: v128;
  if (op == 0) r = mufuEx2(va);
  else if (op == 1) r = ffma(va, vb, vc, ftz);
  else if (op == 2) r = fmul(va, vb, ftz);
  else if (op == 3) r = fadd(va, vb, ftz);
  else if (op == 4) r = ex2(va, false);
  else if (op == 5) r = ieeeEx2x4(va, ftz);
  else r = ex2On(va, false, true, ftz);
  if (lane == 0) return i32x4.extract_lane(r, 0);
  if (lane == 1) return i32x4.extract_lane(r, 1);
  if (lane == 2) return i32x4.extract_lane(r, 2);
  return i32x4.extract_lane(r, 3);
}

/** A vector holding `x` in `lane` and, elsewhere, patterns of other signs and magnitudes. */
function inLane(x: u32, lane: u32): v128 {
  const v = i32x4(x ^ 0x80400001, x ^ 0x7fc00000, ~x, x + 0x00812345);
  if (lane == 0) return i32x4.replace_lane(v, 0, x);
  if (lane == 1) return i32x4.replace_lane(v, 1, x);
  if (lane == 2) return i32x4.replace_lane(v, 2, x);
  return i32x4.replace_lane(v, 3, x);
}
