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
import { f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import type { _Fa2Arith } from "./_fa2_arith.ts";

const NEG_INF = 0xff800000;

/** Inputs of {@link _fa2RowWalk}. */
export interface _RowWalkInput {
  /** Tensor-core datapath (BF16 in, FP32 out, `mma` family). */
  readonly dp: Datapath;
  /** The build's FP32 instructions. */
  readonly arith: _Fa2Arith;
  /** The query row, BF16 patterns (length d). */
  readonly q: ArrayLike<number>;
  /** Key row `j` of the sequence and this row's KV head, BF16 patterns (length d). */
  readonly key: (j: number) => ArrayLike<number>;
  /** Value row `j`, BF16 patterns (length d). */
  readonly value: (j: number) => ArrayLike<number>;
  /** Key columns visible to this row: `col < visible` (causal limit and S_k folded in). */
  readonly visible: number;
  /** KV tile width (kBlockN). */
  readonly blockN: number;
  /** The n-blocks to visit, in walk order (FA2: highest first). */
  readonly blocks: readonly number[];
  /** `fl32(softmax_scale * log2 e)` pattern. */
  readonly scaleLog2: number;
}

/** State of a row after the main loop. */
export interface _RowState {
  /** Unnormalised O accumulator, FP32 patterns (length d). */
  readonly o: Uint32Array;
  /** Row max of the raw scores, FP32 pattern (-inf when nothing was visible). */
  readonly rowMax: number;
  /** The four per-lane row sums, FP32 patterns, lane order. */
  readonly laneSums: Uint32Array;
}

/**
 * Walks one query row over its KV tiles.
 *
 * @param input row, K/V accessors, tiling and build
 * @returns O accumulator, row max and per-lane sums
 */
export function _fa2RowWalk(input: _RowWalkInput): _RowState {
  const { arith, blockN, scaleLog2 } = input;
  const d = input.q.length;
  const o = new Uint32Array(d);
  const lanes = _laneColumns(blockN);
  const laneSums = new Uint32Array(4);
  let rowMax = NEG_INF;
  input.blocks.forEach((nb, step) => {
    const s = _scores(input, nb);
    // Lane maxima, then Allreduce<4> (xor 2, xor 1); MaxOp is `x > y ? x : y`, exact.
    const m = lanes.map((cols) =>
      cols.reduce(
        (acc, c) => _max(acc, s[c] as number),
        step === 0 ? s[cols[0] as number] as number : rowMax,
      )
    );
    const m2 = [0, 1, 2, 3].map((t) => _max(m[t] as number, m[t ^ 2] as number));
    const cur = _max(m2[0] as number, m2[1] as number);
    const prev = rowMax;
    rowMax = cur;
    const curOr0 = cur === NEG_INF ? 0 : cur; // Check_inf: a -inf max counts as 0
    const maxScaled = cur === NEG_INF ? 0 : arith.mul(cur, scaleLog2);
    const p = s.map((x) => arith.ex2(arith.exp2Arg(x, scaleLog2, maxScaled)));
    if (step === 0) {
      lanes.forEach((cols, t) => {
        let acc = p[cols[0] as number] as number;
        for (let i = 1; i < cols.length; i++) acc = arith.add(acc, p[cols[i] as number] as number);
        laneSums[t] = acc;
      });
    } else {
      const diff = arith.add(prev, (curOr0 ^ 0x80000000) >>> 0);
      const rescale = arith.ex2(arith.mul(diff, scaleLog2));
      for (let j = 0; j < d; j++) o[j] = arith.mul(o[j] as number, rescale);
      lanes.forEach((cols, t) => {
        let acc = arith.rescaleAdd(laneSums[t] as number, rescale, p[cols[0] as number] as number);
        for (let i = 1; i < cols.length; i++) acc = arith.add(acc, p[cols[i] as number] as number);
        laneSums[t] = acc;
      });
    }
    _pv(input, nb, p.map(fp32ToBf16), o);
  });
  return { o, rowMax, laneSums };
}

/** Columns of a tile owned by each lane of a quad: {8a + 2t, 8a + 2t + 1}, atom-major. */
function _laneColumns(blockN: number): number[][] {
  return [0, 1, 2, 3].map((t) => {
    const cols: number[] = [];
    for (let a = 0; a < blockN / 8; a++) cols.push(8 * a + 2 * t, 8 * a + 2 * t + 1);
    return cols;
  });
}

function _max(x: number, y: number): number {
  return f32FromBits(x) > f32FromBits(y) ? x : y;
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
 * the visible range have P = 0; their V rows are fed as zeros (any finite value gives the same
 * bits, since a zero product never contributes).
 */
function _pv(input: _RowWalkInput, nb: number, pb: number[], o: Uint32Array): void {
  const k = input.dp.k;
  const d = o.length;
  for (let k0 = 0; k0 < input.blockN; k0 += k) {
    const a = pb.slice(k0, k0 + k);
    const rows = a.map((_, i) => {
      const col = nb * input.blockN + k0 + i;
      return col < input.visible ? input.value(col) : undefined;
    });
    for (let j = 0; j < d; j++) {
      const b = rows.map((r) => (r === undefined ? 0 : r[j] as number));
      o[j] = mmaStep(input.dp, { c: o[j] as number, a, b });
    }
  }
}
