/**
 * One KV tile of FA2's online softmax for one query row (spec `ops.md` §4.3): lane maxima and
 * their quad allreduce, the exp2 arguments, the rescale of the O accumulator and the per-lane row
 * sums. Shared by the per-row reference walk and the tile walk, which differ only in how they
 * compute the S and P·V products.
 *
 * @module
 */
import { f32FromBits } from "../../numerics/mod.ts";
import type { Fa2Arith } from "./_fa2_arith.ts";

const NEG_INF = 0xff800000;

/** The running state of one row (mutated in place). */
export interface _RowState {
  /** Unnormalised O accumulator, FP32 patterns (length d). */
  readonly o: Uint32Array;
  /** Row max of the raw scores so far, FP32 pattern (-inf when nothing was visible). */
  rowMax: number;
  /** The four per-lane row sums, FP32 patterns, lane order. */
  readonly laneSums: Uint32Array;
}

/**
 * A fresh row state: O = +0, row max -inf, lane sums +0.
 *
 * @param d head dimension
 * @returns the state
 */
export function _newRowState(d: number): _RowState {
  return { o: new Uint32Array(d), rowMax: NEG_INF, laneSums: new Uint32Array(4) };
}

/**
 * Columns of a tile owned by each lane of a quad: {8a + 2t, 8a + 2t + 1}, atom-major.
 *
 * @param blockN tile width (a multiple of 8)
 * @returns the four lanes' column lists
 */
export function _laneColumns(blockN: number): number[][] {
  return [0, 1, 2, 3].map((t) => {
    const cols: number[] = [];
    for (let a = 0; a < blockN / 8; a++) cols.push(8 * a + 2 * t, 8 * a + 2 * t + 1);
    return cols;
  });
}

function _max(x: number, y: number): number {
  return f32FromBits(x) > f32FromBits(y) ? x : y;
}

/**
 * Applies one tile's scores to a row: new row max (lane maxima from the previous max, or from
 * the lane's first column on the first tile; then Allreduce<4> xor 2, xor 1; MaxOp `x > y ? x :
 * y` is exact), `p = EX2(exp2Arg(s, scale_log2, max·scale_log2))` (a -inf max scales to 0, on
 * every tile), and on later tiles the rescale `EX2((prev - cur)·scale_log2)` of O and of the lane
 * sums (the build's `rescaleAdd`), then each lane's columns added in order. In the rescale a -inf
 * `cur` counts as 0 only on FA2's masking iterations (`checkInf`, see `fa2MaskingSteps`); on the
 * others `(-inf) - (-inf)` is NaN, and O and the lane sums become NaN, as on the GPU.
 *
 * @param state the row (O rescaled, row max and lane sums updated in place)
 * @param s the tile's raw scores, FP32 patterns (masked columns -inf), length blockN
 * @param ctx the build's instructions, `scale_log2`, the lane columns, whether this is the
 *   row's first tile and whether its rescale has `Check_inf`
 * @returns P, FP32 patterns (before the BF16 rounding of the P·V product)
 */
export function _fa2SoftmaxStep(
  state: _RowState,
  s: ArrayLike<number>,
  ctx: {
    readonly arith: Fa2Arith;
    readonly scaleLog2: number;
    readonly lanes: readonly (readonly number[])[];
    readonly first: boolean;
    readonly checkInf: boolean;
  },
): Uint32Array {
  const { arith, scaleLog2, lanes, first } = ctx;
  const m = lanes.map((cols) =>
    cols.reduce(
      (acc, c) => _max(acc, s[c] as number),
      first ? s[cols[0] as number] as number : state.rowMax,
    )
  );
  const m2 = [0, 1, 2, 3].map((t) => _max(m[t] as number, m[t ^ 2] as number));
  const cur = _max(m2[0] as number, m2[1] as number);
  const prev = state.rowMax;
  state.rowMax = cur;
  // softmax_rescale_o: `scores_max_cur = !Check_inf ? row_max : (row_max == -inf ? 0 : row_max)`.
  const maxCur = ctx.checkInf && cur === NEG_INF ? 0 : cur;
  const maxScaled = cur === NEG_INF ? 0 : arith.mul(cur, scaleLog2);
  const p = new Uint32Array(s.length);
  for (let c = 0; c < s.length; c++) {
    p[c] = arith.ex2(arith.exp2Arg(s[c] as number, scaleLog2, maxScaled));
  }
  const sums = state.laneSums;
  if (first) {
    lanes.forEach((cols, t) => {
      let acc = p[cols[0] as number] as number;
      for (let i = 1; i < cols.length; i++) acc = arith.add(acc, p[cols[i] as number] as number);
      sums[t] = acc;
    });
  } else {
    const diff = arith.add(prev, (maxCur ^ 0x80000000) >>> 0);
    const rescale = arith.ex2(arith.mul(diff, scaleLog2));
    const o = state.o;
    for (let j = 0; j < o.length; j++) o[j] = arith.mul(o[j] as number, rescale);
    lanes.forEach((cols, t) => {
      let acc = arith.rescaleAdd(sums[t] as number, rescale, p[cols[0] as number] as number);
      for (let i = 1; i < cols.length; i++) acc = arith.add(acc, p[cols[i] as number] as number);
      sums[t] = acc;
    });
  }
  return p;
}
