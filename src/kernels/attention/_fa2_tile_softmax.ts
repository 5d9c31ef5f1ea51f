/**
 * The online-softmax step of every row of a tile at once: the same instructions in the same order
 * as `_fa2SoftmaxStep` (the per-row reference, used by `_fa2RowWalk`), written for the tile walk
 * without per-row allocations or closures: scores read in place with the causal mask folded in,
 * maxima compared as floats through one view of the score buffer, P written straight to the BF16
 * operand of the P·V product. Tests compare the tile walk with the per-row walk bit for bit.
 *
 * @module
 */
import { f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import type { Fa2Arith } from "./_fa2_arith.ts";
import type { _RowState } from "./_fa2_softmax_step.ts";

const NEG_INF = 0xff800000;

/** One KV tile of a tile of rows. */
export interface _TileSoftmaxInput {
  /** Raw scores S of the tile, FP32 patterns, [rows, blockN] (read only). */
  readonly scores: Uint32Array;
  /** Per row, the first masked column of this tile (`visible[r] - c0`; ≤ 0: all masked). */
  readonly limits: Int32Array;
  /** Tile width. */
  readonly blockN: number;
  /** The four lanes' columns, lane order (see `_laneColumns`). */
  readonly lanes: readonly (readonly number[])[];
  readonly arith: Fa2Arith;
  /** `fl32(softmax_scale * log2 e)` pattern. */
  readonly scaleLog2: number;
  /** Whether this is the rows' first tile. */
  readonly first: boolean;
  /** Whether the rescale takes a -inf row max as 0 (FA2's masking iterations: `Check_inf`). */
  readonly checkInf: boolean;
}

/**
 * Applies a tile's scores to every row's state (as `_fa2SoftmaxStep` does for one row) and writes
 * P, rounded to BF16, into `pb` [rows, blockN].
 *
 * @param states the rows' states, updated in place
 * @param input the tile
 * @param pb the BF16 P operand, written
 */
export function _fa2TileSoftmax(
  states: readonly _RowState[],
  input: _TileSoftmaxInput,
  pb: Uint16Array,
): void {
  const { scores, limits, blockN, lanes, arith, scaleLog2, first, checkInf } = input;
  const sf = new Float32Array(scores.buffer, scores.byteOffset, scores.length);
  const p = new Uint32Array(blockN);
  const m = new Uint32Array(4);
  const mf = new Float64Array(4);
  for (let r = 0; r < states.length; r++) {
    const state = states[r] as _RowState;
    const base = r * blockN;
    const lim = limits[r] as number;
    // Lane maxima: MaxOp `x > y ? x : y` over the lane's columns, from the previous max (or from
    // the lane's first column on the first tile); a masked column is -inf.
    for (let t = 0; t < 4; t++) {
      const cols = lanes[t] as readonly number[];
      const c0 = cols[0] as number;
      let acc = first ? (c0 < lim ? scores[base + c0] as number : NEG_INF) : state.rowMax;
      let accF = f32FromBits(acc);
      for (let i = 0; i < cols.length; i++) {
        const c = cols[i] as number;
        const vF = c < lim ? sf[base + c] as number : -Infinity;
        if (!(accF > vF)) {
          acc = c < lim ? scores[base + c] as number : NEG_INF;
          accF = vF;
        }
      }
      m[t] = acc;
      mf[t] = accF;
    }
    // Allreduce over the quad: xor 2, then xor 1.
    const a = mf[0]! > mf[2]! ? 0 : 2, b = mf[1]! > mf[3]! ? 1 : 3;
    const cur = mf[a]! > mf[b]! ? m[a] as number : m[b] as number;
    const prev = state.rowMax;
    state.rowMax = cur;
    // The rescale's `scores_max_cur`: a -inf max counts as 0 only with Check_inf.
    const maxCur = checkInf && cur === NEG_INF ? 0 : cur;
    const maxScaled = cur === NEG_INF ? 0 : arith.mul(cur, scaleLog2);
    for (let c = 0; c < blockN; c++) {
      const s = c < lim ? scores[base + c] as number : NEG_INF;
      const e = arith.ex2(arith.exp2Arg(s, scaleLog2, maxScaled));
      p[c] = e;
      pb[base + c] = fp32ToBf16(e);
    }
    _laneSums(state, { p, lanes, arith, first, prev, maxCur, scaleLog2 });
  }
}

/** The rescale of O and of the lane sums (later tiles), then each lane's columns added in order. */
function _laneSums(
  state: _RowState,
  o: {
    p: Uint32Array;
    lanes: readonly (readonly number[])[];
    arith: Fa2Arith;
    first: boolean;
    prev: number;
    maxCur: number;
    scaleLog2: number;
  },
): void {
  const { p, lanes, arith } = o;
  const sums = state.laneSums;
  let rescale = 0;
  if (!o.first) {
    const diff = arith.add(o.prev, (o.maxCur ^ 0x80000000) >>> 0);
    rescale = arith.ex2(arith.mul(diff, o.scaleLog2));
    const acc = state.o;
    for (let j = 0; j < acc.length; j++) acc[j] = arith.mul(acc[j] as number, rescale);
  }
  for (let t = 0; t < 4; t++) {
    const cols = lanes[t] as readonly number[];
    const p0 = p[cols[0] as number] as number;
    let acc = o.first ? p0 : arith.rescaleAdd(sums[t] as number, rescale, p0);
    for (let i = 1; i < cols.length; i++) acc = arith.add(acc, p[cols[i] as number] as number);
    sums[t] = acc;
  }
}
