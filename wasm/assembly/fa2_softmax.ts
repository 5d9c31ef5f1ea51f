// The online softmax of an FA2 tile (src/kernels/attention/_fa2_tile_softmax.ts, whose bits it
// reproduces) for the table-model SFU: per row the lane maxima over the tile's scores, the scaled
// maximum, P = EX2(S * scale_log2 - max_scaled) rounded to BF16 for the P·V product, the rescale
// of O and of the four lane sums on later tiles, and each lane's columns added in order.
//
// FP32 instructions as the FP32 unit models them (src/hardware/fp32_unit): FADD and FMUL are the
// IEEE binary32 operations (wasm f32.add / f32.mul round to nearest-even, subnormals kept), then a
// NaN result becomes the canonical 0x7FFFFFFF and, with FTZ, subnormal inputs and results become
// zeros of the same sign. FFMA is computed in f64: the product of two binary32 values is exact,
// the sum is rounded to odd (TwoSum gives its exact error) and then to binary32 once, which is the
// correctly rounded fused result. MUFU.EX2 is the table model of src/hardware/sfu/mufu_ex2.ts
// (pre-conversion to fixed point, a quadratic over 64 table rows with the SFU's squarer).

/** The EX2 table: 64 rows of three i32 coefficients (SFU asset, set by the host). */
const EX2: usize = memory.data(64 * 3 * 4, 16);
/** The SFU squarer's result for every 17-bit input (u16), built on first use. */
const SQUARES: usize = memory.data(0x20000 * 2, 16);
let squaresBuilt = false;

const CANONICAL_NAN: u32 = 0x7fffffff;
const NEG_INF: u32 = 0xff800000;

/** Flags of `fa2SoftmaxTile`: the FA2 build's choices. */
const FTZ = 1; // every FP32 instruction with .ftz
const ARG_FFMA = 2; // S * scale_log2 - max_scaled as one FFMA (else FMUL then FADD)
const EX2_FTZ = 4; // exp2 as bare MUFU.EX2 (else ex2.approx.f32: squared below -126)
const RESCALE_FFMA = 8; // row_sum * scale + p as one FFMA (else FMUL then FADD)

/** Copies the 192 EX2 coefficients from `table` and builds the squarer table once. */
export function fa2SetEx2Table(table: usize): void {
  memory.copy(EX2, table, 64 * 3 * 4);
  if (squaresBuilt) return;
  for (let x: u32 = 0; x < 0x20000; x++) {
    let sum: u32 = 0;
    for (let i: u32 = 0; i < 17; i++) if (((x >> i) & 1) != 0) sum += x >> (18 - i);
    store<u16>(SQUARES + (<usize>x << 1), <u16>(sum >> 1));
  }
  squaresBuilt = true;
}

@inline function flush(bits: u32): u32 {
  return (bits & 0x7f800000) == 0 ? bits & 0x80000000 : bits;
}

@inline function f32Of(bits: u32): f32 {
  return reinterpret<f32>(bits);
}

/** A binary32 result as the FP32 unit returns it: canonical NaN, FTZ flush when asked. */
@inline function result(r: f32, ftz: bool): u32 {
  if (r != r) return CANONICAL_NAN;
  const bits = reinterpret<u32>(r);
  return ftz ? flush(bits) : bits;
}

@inline function fmul(a: u32, b: u32, ftz: bool): u32 {
  if (ftz) {
    a = flush(a);
    b = flush(b);
  }
  return result(f32Of(a) * f32Of(b), ftz);
}

@inline function fadd(a: u32, b: u32, ftz: bool): u32 {
  if (ftz) {
    a = flush(a);
    b = flush(b);
  }
  return result(f32Of(a) + f32Of(b), ftz);
}

/** FFMA a * b + c, one rounding to nearest-even (fma_f32.ts `_fmaF32`, mode rne). */
function ffma(a: u32, b: u32, c: u32, ftz: bool): u32 {
  if (ftz) {
    a = flush(a);
    b = flush(b);
    c = flush(c);
  }
  const p = <f64>f32Of(a) * <f64>f32Of(b); // exact
  const z = <f64>f32Of(c);
  if (p != p || z != z) return CANONICAL_NAN;
  const s = p + z;
  if (s != s) return CANONICAL_NAN;
  if (s == 0) {
    // Exact zero: the sign of two zeros that agree, else +0 (round to nearest).
    const pNeg = reinterpret<u64>(p) >> 63 != 0;
    const zNeg = reinterpret<u64>(z) >> 63 != 0;
    if (p == 0 && z == 0 && pNeg == zNeg) return pNeg ? 0x80000000 : 0;
    return 0;
  }
  if (s == Infinity) return 0x7f800000;
  if (s == -Infinity) return 0xff800000;
  const bb = s - p;
  const e = (p - (s - bb)) + (z - bb); // TwoSum: the exact error of s
  let odd = s;
  if (e != 0) {
    const bits = reinterpret<u64>(s);
    if ((bits & 1) == 0) odd = reinterpret<f64>((e > 0) == (s > 0) ? bits + 1 : bits - 1);
  }
  return result(<f32>odd, ftz);
}

/** The MUFU.EX2 pre-conversion to sign + 7.23 fixed point (pre_ex2.ts). */
@inline function preEx2(x: u32): u32 {
  const sign = x & 0x80000000;
  const e = <i32>((x >> 23) & 0xff);
  const m = x & 0x7fffff;
  if (e == 255) return sign | (m != 0 ? 0x40000000 : 0x40800000);
  if (e == 0) return sign;
  const shift = e - 127;
  if (shift >= 7) return sign | 0x40800000;
  const f = m | 0x800000;
  const t: u32 = shift >= 0 ? f << shift : (shift <= -24 ? 0 : f >> <u32>(-shift));
  return sign | t;
}

/** MUFU.EX2, table model (mufu_ex2.ts). */
function mufuEx2(x: u32): u32 {
  const p = preEx2(x);
  if ((p & 0x40000000) != 0) {
    if ((p & 0x7fffffff) == 0x40000000) return 0x7fffffff;
    return (p & 0x80000000) != 0 ? 0 : 0x7f800000;
  }
  const n = <i32>((p >> 23) & 0x7f);
  let f = p & 0x7fffff;
  let eo: i32;
  if ((p & 0x80000000) == 0) eo = n;
  else if (f != 0) {
    eo = -n - 1;
    f = ~f & 0x7fffff;
  } else eo = -n;
  eo += 127;
  const row = EX2 + (<usize>(f >> 17) * 12);
  const lo = <i64>(f & 0x1ffff);
  const sq = <i64>load<u16>(SQUARES + (<usize>(f & 0x1ffff) << 1));
  const sum = <i64>load<i32>(row) * 8192 + <i64>load<i32>(row, 4) * lo +
    <i64>load<i32>(row, 8) * sq + 0x77e2;
  let frac = <i32>((sum >> 15) - 0x800000); // floor division by 32768
  if (frac >= 0x800000) {
    frac -= 0x800000;
    eo += 1;
  }
  if (eo <= 0) return 0;
  if (eo >= 255) return 0x7f800000;
  return <u32>((eo << 23) | frac);
}

/** exp2 as the build lowers it: bare MUFU.EX2, or ex2.approx.f32 (squared below -126). */
@inline function ex2(x: u32, flags: i32): u32 {
  if ((flags & EX2_FTZ) != 0) return mufuEx2(x);
  const v = f32Of(x);
  if (v >= -126 || v != v) return mufuEx2(x);
  const r = f32Of(mufuEx2(reinterpret<u32>(v * 0.5)));
  return reinterpret<u32>(r * r);
}

/** BF16 round to nearest-even of an FP32 pattern; every NaN becomes 0x7FFF (fast_fp32.ts). */
@inline function bf16(bits: u32): u16 {
  if ((bits & 0x7f800000) == 0x7f800000 && (bits & 0x7fffff) != 0) return 0x7fff;
  return <u16>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

/**
 * The softmax step of every row of a tile. scores [rows][blockN] (FP32 patterns, read); limits
 * [rows] (i32: the first masked column, <= 0 for all masked); rowMax [rows], sums [rows][4] and
 * o [rows][d] (FP32 patterns, updated); pb [rows][blockN] (BF16, written); p: blockN u32 of
 * scratch. `fa2SetEx2Table` must have been called.
 */
export function fa2SoftmaxTile(
  rows: i32, blockN: i32, d: i32, scores: usize, limits: usize, rowMax: usize, sums: usize,
  o: usize, pb: usize, p: usize, first: bool, scaleLog2: u32, flags: i32,
): void {
  const ftz = (flags & FTZ) != 0;
  const groups = blockN >> 3;
  for (let r = 0; r < rows; r++) {
    const s = scores + (<usize>(r * blockN) << 2);
    const lim = load<i32>(limits + (<usize>r << 2));
    const state = sums + (<usize>r << 4);
    const prev = load<u32>(rowMax + (<usize>r << 2));
    // Lane maxima (MaxOp x > y ? x : y over each lane's columns, from the previous max or the
    // lane's first column), then the quad allreduce: xor 2, then xor 1.
    let m0: u32 = 0, m1: u32 = 0, m2: u32 = 0, m3: u32 = 0;
    for (let t = 0; t < 4; t++) {
      const c0 = 2 * t;
      let acc: u32 = first ? (c0 < lim ? load<u32>(s + (<usize>c0 << 2)) : NEG_INF) : prev;
      let accF = f32Of(acc);
      for (let a = 0; a < groups; a++) {
        for (let h = 0; h < 2; h++) {
          const c = 8 * a + c0 + h;
          const v: u32 = c < lim ? load<u32>(s + (<usize>c << 2)) : NEG_INF;
          const vF = f32Of(v);
          if (!(accF > vF)) {
            acc = v;
            accF = vF;
          }
        }
      }
      if (t == 0) m0 = acc;
      else if (t == 1) m1 = acc;
      else if (t == 2) m2 = acc;
      else m3 = acc;
    }
    const a02 = f32Of(m0) > f32Of(m2) ? m0 : m2;
    const b13 = f32Of(m1) > f32Of(m3) ? m1 : m3;
    const cur = f32Of(a02) > f32Of(b13) ? a02 : b13;
    store<u32>(rowMax + (<usize>r << 2), cur);
    const curOr0: u32 = cur == NEG_INF ? 0 : cur;
    const negMax: u32 = (cur == NEG_INF ? 0 : fmul(cur, scaleLog2, ftz)) ^ 0x80000000;
    const pbRow = pb + (<usize>(r * blockN) << 1);
    for (let c = 0; c < blockN; c++) {
      const sc: u32 = c < lim ? load<u32>(s + (<usize>c << 2)) : NEG_INF;
      const arg = (flags & ARG_FFMA) != 0
        ? ffma(sc, scaleLog2, negMax, ftz)
        : fadd(fmul(sc, scaleLog2, ftz), negMax, ftz);
      const e = ex2(arg, flags);
      store<u32>(p + (<usize>c << 2), e);
      store<u16>(pbRow + (<usize>c << 1), bf16(e));
    }
    let rescale: u32 = 0;
    if (!first) {
      const diff = fadd(prev, curOr0 ^ 0x80000000, ftz);
      rescale = ex2(fmul(diff, scaleLog2, ftz), flags);
      const oRow = o + (<usize>(r * d) << 2);
      for (let j = 0; j < d; j++) {
        const q = oRow + (<usize>j << 2);
        store<u32>(q, fmul(load<u32>(q), rescale, ftz));
      }
    }
    for (let t = 0; t < 4; t++) {
      const p0 = load<u32>(p + (<usize>(2 * t) << 2));
      let acc: u32;
      if (first) acc = p0;
      else {
        const old = load<u32>(state + (<usize>t << 2));
        acc = (flags & RESCALE_FFMA) != 0
          ? ffma(old, rescale, p0, ftz)
          : fadd(fmul(old, rescale, ftz), p0, ftz);
      }
      for (let a = 0; a < groups; a++) {
        for (let h = 0; h < 2; h++) {
          if (a == 0 && h == 0) continue;
          acc = fadd(acc, load<u32>(p + (<usize>(8 * a + 2 * t + h) << 2)), ftz);
        }
      }
      store<u32>(state + (<usize>t << 2), acc);
    }
  }
}

/**
 * The instruction models above, one call each, for checks against the TypeScript models: op 0
 * MUFU.EX2 (a), 1 FFMA (a * b + c), 2 FMUL, 3 FADD, 4 exp2 as ex2.approx.f32; `ftz` as the
 * instructions' flag. `fa2SetEx2Table` must have been called for ops 0 and 4.
 */
export function fa2Instruction(op: i32, a: u32, b: u32, c: u32, ftz: bool): u32 {
  if (op == 0) return mufuEx2(a);
  if (op == 1) return ffma(a, b, c, ftz);
  if (op == 2) return fmul(a, b, ftz);
  if (op == 3) return fadd(a, b, ftz);
  return ex2(a, 0);
}
