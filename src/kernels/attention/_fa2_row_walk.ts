/**
 * One query row through FA2's main loop (`compute_attn_1rowblock`, spec `ops.md` §4.3): S tiles
 * on the tensor core, online softmax with per-lane row sums, P rounded to BF16 and multiplied
 * into the live O accumulator. Rows of a CTA never mix (row max, row sums and the MMA outputs are
 * per row), so a row can be walked alone; its m-block only fixes which n-blocks it visits.
 *
 * @module
 */
import { dotKWalk, mmaStep } from "../../hardware/mod.ts";
import type { Datapath } from "../../hardware/mod.ts";
import { fp32ToBf16 } from "../../numerics/mod.ts";
import type { Fa2Arith } from "./_fa2_arith.ts";
import {
  _fa2SoftmaxStep,
  _laneColumns,
  _newRowState,
  type _RowState,
} from "./_fa2_softmax_step.ts";

const NEG_INF = 0xff800000;

/** Inputs of {@link _fa2RowWalk}. */
export interface _RowWalkInput {
  /** Tensor-core datapath (BF16 in, FP32 out, `mma` family). */
  readonly dp: Datapath;
  /** The build's FP32 instructions. */
  readonly arith: Fa2Arith;
  /** The query row, BF16 patterns (length d). */
  readonly q: ArrayLike<number>;
  /** Key row `j` of the sequence and this row's KV head, BF16 patterns (length d). */
  readonly key: (j: number) => ArrayLike<number>;
  /** Value row `j`, BF16 patterns (length d). */
  readonly value: (j: number) => ArrayLike<number>;
  /** Key columns visible to this row: `col < visible` (causal limit and S_k folded in). */
  readonly visible: number;
  /** Keys in the sequence: V rows at or past it are zeros (FA2 clears those smem rows). */
  readonly sk: number;
  /** KV tile width (kBlockN). */
  readonly blockN: number;
  /** The n-blocks to visit, in walk order (FA2: highest first). */
  readonly blocks: readonly number[];
  /** FA2's masking iterations: the first `maskingSteps` steps rescale with `Check_inf`. */
  readonly maskingSteps: number;
  /** `fl32(softmax_scale * log2 e)` pattern. */
  readonly scaleLog2: number;
}

/**
 * Walks one query row over its KV tiles: the readable per-row reference of the tile walk
 * (`_fa2TileWalk`, which computes the same products through a K-walk engine), with every
 * product through `dotKWalk` / `mmaStep`.
 *
 * @param input row, K/V accessors, tiling and build
 * @returns O accumulator, row max and per-lane sums
 */
export function _fa2RowWalk(input: _RowWalkInput): _RowState {
  const state = _newRowState(input.q.length);
  const lanes = _laneColumns(input.blockN);
  input.blocks.forEach((nb, step) => {
    const p = _fa2SoftmaxStep(state, _scores(input, nb), {
      arith: input.arith,
      scaleLog2: input.scaleLog2,
      lanes,
      first: step === 0,
      checkInf: step < input.maskingSteps,
    });
    _pv(input, nb, Array.from(p, fp32ToBf16), state.o);
  });
  return state;
}

/** S = Q K^T for one tile from a zero accumulator; masked and out-of-range columns are -inf. */
function _scores(input: _RowWalkInput, nb: number): number[] {
  const s: number[] = [];
  for (let c = 0; c < input.blockN; c++) {
    const col = nb * input.blockN + c;
    s.push(col < input.visible ? dotKWalk(input.dp, { a: input.q, b: input.key(col) }) : NEG_INF);
  }
  return s;
}

/**
 * O += Pb V over the tile in 16-wide MMA steps with O as the C operand (`gemm_rs`). Columns past
 * the visible range have P = 0 but carry their real V rows, as on the GPU (a zero product never
 * contributes unless V is infinite or NaN); rows past the sequence are zeros.
 */
function _pv(input: _RowWalkInput, nb: number, pb: number[], o: Uint32Array): void {
  const k = input.dp.k;
  const d = o.length;
  for (let k0 = 0; k0 < input.blockN; k0 += k) {
    const a = pb.slice(k0, k0 + k);
    const rows = a.map((_, i) => {
      const col = nb * input.blockN + k0 + i;
      return col < input.sk ? input.value(col) : undefined;
    });
    for (let j = 0; j < d; j++) {
      const b = rows.map((r) => (r === undefined ? 0 : r[j] as number));
      o[j] = mmaStep(input.dp, { c: o[j] as number, a, b });
    }
  }
}
