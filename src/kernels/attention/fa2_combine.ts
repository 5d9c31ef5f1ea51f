/**
 * FA2's split-KV combine (`combine_attn_seqk_parallel`, spec `stack_pytorch_hf.md` §4.4) for one
 * output row: the log-sum-exp over the splits' LSEs in the kernel's lane order, the weights
 * `exp(LSE_s - LSE)`, and the FFMA accumulation of the FP32 partial outputs in split order.
 *
 * @module
 */
import { f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import { _fa2Arith, _isNanF32, _isZeroF32, type Fa2Arith, type Fa2Mufu } from "./_fa2_arith.ts";
import type { Fa2Build } from "./fa2_build.ts";
import { fa2CombineBlockM } from "./fa2_split_tiles.ts";

const NEG_INF = 0xff800000;

/** Partial results of one row: O_s (FP32 patterns, one array per split) and LSE_s. */
export interface Fa2SplitPartials {
  /** O_s per split, FP32 patterns, all the same length. */
  readonly o: readonly Uint32Array[];
  /** LSE_s per split, FP32 patterns (-inf for an empty split). */
  readonly lse: ArrayLike<number>;
}

/** One combined row. */
export interface Fa2CombinedRow {
  /** Output row, BF16 patterns. */
  readonly out: Uint16Array;
  /** The row before the BF16 rounding, FP32 patterns. */
  readonly outF32: Uint32Array;
  /** The row's LSE, FP32 pattern (+inf when the sum of weights is 0 or NaN). */
  readonly lse: number;
}

/**
 * Combines the partial results of one row as `combine_attn_seqk_parallel` does:
 * kMaxSplits = max(2, 2^ceil(log2 n)) slots (padding slots hold -inf), R = min(128 / kBlockM,
 * kMaxSplits) lanes (`kRowsPerLoadTranspose`; kBlockM = `fa2CombineBlockM(headDim)`: R = 32 for
 * hdim 128 and 256, 16 for hdim 64, 8 for hdim 96), lane t holding slots t, t + R, t + 2R, ...;
 * `Lmax` = max over a lane's slots then an xor butterfly over the R lanes (exact), 0 if -inf;
 * `sum` = each lane's `exp(L - Lmax)` added in slot order, then the butterfly sum with xor
 * offsets R/2, ..., 1 (lane 0's value); `LSE = logf(sum) + Lmax` (+inf for a zero or NaN sum);
 * `w_s = exp(L_s - LSE)`; `O = fma(w_s, O_s, O)` from O = +0 in split order; `out = bf16(O)`.
 * `exp`/`log` are the build's (`combineMath`: fast intrinsics or libdevice).
 *
 * @param partials O_s and LSE_s of the row (at least one split)
 * @param options the build and its MUFU model (`ex2`; `lg2` for the fast build); `headDim`: the
 *   launch's head dimension, which fixes the combine's kBlockM (default 128)
 * @returns the BF16 and FP32 row and its LSE
 * @throws {RangeError} when there are no splits, more than 128, the O_s lengths differ, or the
 *   head dimension is not modelled
 * @example
 * ```ts
 * import { fa2CombineRow } from "./fa2_combine.ts";
 * import { FA2_PYTORCH_BUNDLED } from "./fa2_build.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * // Two splits with equal LSEs (ln 1 = 0) average their rows: (1 + 3) / 2 = 2.
 * const r = fa2CombineRow(
 *   { o: [new Uint32Array([0x3f800000]), new Uint32Array([0x40400000])], lse: [0, 0] },
 *   { build: FA2_PYTORCH_BUNDLED, mufu: createSfu({ mode: "ieee" }) },
 * );
 * if (r.outF32[0] !== 0x40000000 || r.out[0] !== 0x4000) throw new Error();
 * ```
 */
export function fa2CombineRow(
  partials: Fa2SplitPartials,
  options: { readonly build: Fa2Build; readonly mufu: Fa2Mufu; readonly headDim?: number },
): Fa2CombinedRow {
  const blockM = fa2CombineBlockM(options.headDim ?? 128);
  const n = partials.o.length;
  if (n < 1 || n > 128 || partials.lse.length !== n) {
    throw new RangeError(
      `Cannot combine FA2 splits: need 1 to 128 splits with one LSE each, got ${n} outputs and ` +
        `${partials.lse.length} LSEs`,
    );
  }
  const d = (partials.o[0] as Uint32Array).length;
  if (partials.o.some((x) => x.length !== d)) {
    throw new RangeError("Cannot combine FA2 splits: the partial outputs differ in length");
  }
  return _fa2CombineRow(partials, { arith: _fa2Arith(options.build, options.mufu), blockM });
}

/**
 * {@link fa2CombineRow} with the build's instructions already made (no argument checks).
 *
 * @param partials O_s and LSE_s of the row
 * @param ctx the build's instructions and the combine's kBlockM (4, 8 or 16)
 * @returns the combined row
 */
export function _fa2CombineRow(
  partials: Fa2SplitPartials,
  ctx: { readonly arith: Fa2Arith; readonly blockM: number },
): Fa2CombinedRow {
  const { arith } = ctx;
  const { o, lse: lses } = partials;
  const n = o.length;
  const kMax = Math.max(2, 2 ** Math.ceil(Math.log2(n))); // exact for n <= 128
  // kRowsPerLoadTranspose = min(kNThreads / kBlockM, kMaxSplits), kNThreads = 128.
  const lanes = Math.min(128 / ctx.blockM, kMax);
  const slots = _slots(lses, kMax);
  const lane = new Uint32Array(lanes);
  for (let t = 0; t < lanes; t++) {
    let m = slots[t] as number;
    for (let i = t + lanes; i < kMax; i += lanes) m = _maxF32(m, slots[i] as number);
    lane[t] = m;
  }
  let lmax = _butterfly(lane, _maxF32);
  if (lmax === NEG_INF) lmax = 0;
  const negMax = (lmax ^ 0x80000000) >>> 0;
  for (let t = 0; t < lanes; t++) {
    let e = arith.combineExp(arith.add(slots[t] as number, negMax));
    for (let i = t + lanes; i < kMax; i += lanes) {
      e = arith.add(e, arith.combineExp(arith.add(slots[i] as number, negMax)));
    }
    lane[t] = e;
  }
  const sum = _butterfly(lane, arith.add);
  const lse = _isZeroF32(sum) || _isNanF32(sum) ? 0x7f800000 : arith.combineLse(sum, lmax);
  const negLse = (lse ^ 0x80000000) >>> 0;
  const d = (o[0] as Uint32Array).length;
  const outF32 = new Uint32Array(d);
  for (let s = 0; s < n; s++) {
    const w = arith.combineExp(arith.add(slots[s] as number, negLse));
    arith.fmaRow(w, o[s] as Uint32Array, outF32);
  }
  const out = new Uint16Array(d);
  for (let j = 0; j < d; j++) out[j] = fp32ToBf16(outF32[j] as number);
  return { out, outF32, lse };
}

/** The kMaxSplits LSE slots: the splits' LSEs, then -inf padding. */
function _slots(lses: ArrayLike<number>, kMax: number): Uint32Array {
  const slots = new Uint32Array(kMax).fill(NEG_INF);
  for (let i = 0; i < lses.length; i++) slots[i] = lses[i] as number;
  return slots;
}

/** `max` on FP32 patterns as the combine compares them (y unless x is greater: NaN gives y). */
function _maxF32(x: number, y: number): number {
  return f32FromBits(x) > f32FromBits(y) ? x : y;
}

/**
 * `Allreduce<R>`: lane t takes `op(own, lane t ^ off)` for off = R/2, ..., 1; lane 0's result.
 * Updates `v` in place, reading each round's partners before writing them (a lane pair's two
 * results are computed from the round's old values).
 */
function _butterfly(v: Uint32Array, op: (a: number, b: number) => number): number {
  for (let off = v.length >> 1; off >= 1; off >>= 1) {
    for (let t = 0; t < v.length; t++) {
      if ((t & off) !== 0) continue;
      const a = v[t] as number, b = v[t ^ off] as number;
      v[t] = op(a, b);
      v[t ^ off] = op(b, a);
    }
  }
  return v[0] as number;
}
