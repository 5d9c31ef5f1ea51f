/**
 * One query row of one head through the kernel a launch runs: the standard forward kernel, or
 * the split kernel followed by the combine. Rows never mix in FA2 (max, sums and MMA outputs
 * are per row), so a row can be computed alone; its row block only fixes which KV blocks it
 * visits.
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import type { _Fa2Arith } from "./_fa2_arith.ts";
import { _fa2Epilogue, type _RowOutput } from "./_fa2_epilogue.ts";
import { _fa2RowWalk } from "./_fa2_row_walk.ts";
import { _fa2SplitRow } from "./_fa2_split_row.ts";
import type { Fa2Build } from "./fa2_build.ts";
import { _fa2CombineRow } from "./fa2_combine.ts";
import { FA2_SPLIT_TILES, type Fa2Tiles } from "./fa2_tiles.ts";

/** What is fixed for the whole launch. */
export interface _LaunchCtx {
  readonly dp: Datapath;
  readonly arith: _Fa2Arith;
  readonly build: Fa2Build;
  /** `fl32(softmax_scale * log2 e)` pattern. */
  readonly scaleLog2: number;
  /** `fl32(softmax_scale)` pattern. */
  readonly softmaxScale: number;
  /** Causal mask in effect (already dropped when the longest query is 1). */
  readonly causal: boolean;
  /** KV splits (1: standard kernel). */
  readonly splits: number;
  /** The launch's seqlen_k (fixes n_blocks_per_split). */
  readonly seqlenK: number;
  /** Standard kernel tiles. */
  readonly tiles: Fa2Tiles;
  /** Whether the standard kernel's LSE is wanted (the split path always has one). */
  readonly lse: boolean;
}

/** One row: its query, K/V accessors, index in its sequence and the sequence lengths. */
export interface _QueryRow {
  readonly q: ArrayLike<number>;
  readonly key: (j: number) => ArrayLike<number>;
  readonly value: (j: number) => ArrayLike<number>;
  readonly i: number;
  readonly sq: number;
  readonly sk: number;
}

/** C++ `ceil_div` on ints: truncates toward zero, so a negative range gives <= 0. */
const _ceilDiv = (a: number, b: number) => Math.trunc((a + b - 1) / b);

/** `n_block_max` of the row block holding row i: S_k, and the bottom-right causal limit. */
function _nBlockMax(ctx: _LaunchCtx, r: _QueryRow, t: Fa2Tiles): number {
  const n = _ceilDiv(r.sk, t.blockN);
  if (!ctx.causal) return n;
  const mb = Math.floor(r.i / t.blockM);
  return Math.min(n, _ceilDiv((mb + 1) * t.blockM + r.sk - r.sq, t.blockN));
}

/**
 * Computes one row: O (BF16 and FP32) and, when asked or split, its LSE. The standard kernel
 * writes O = 0 and LSE = +inf for a row block with no KV block; the split path gets the same
 * from the combine (every split empty).
 *
 * @param ctx the launch
 * @param r the row
 * @returns the row output
 */
export function _fa2QueryRow(ctx: _LaunchCtx, r: _QueryRow): _RowOutput {
  const visible = ctx.causal ? Math.min(r.sk, r.i + 1 + r.sk - r.sq) : r.sk;
  const base = { dp: ctx.dp, arith: ctx.arith, q: r.q, key: r.key, value: r.value, visible };
  if (ctx.splits > 1) {
    const t = FA2_SPLIT_TILES;
    const slots = _fa2SplitRow({
      ...base,
      blockN: t.blockN,
      scaleLog2: ctx.scaleLog2,
      splits: ctx.splits,
      blocksPerSplit: _ceilDiv(_ceilDiv(ctx.seqlenK, t.blockN), ctx.splits),
      nBlockMax: _nBlockMax(ctx, r, t),
      walk: ctx.build.kvWalk,
      softmaxScale: ctx.softmaxScale,
    }, ctx.arith);
    return _fa2CombineRow(slots, ctx.arith);
  }
  const nMax = _nBlockMax(ctx, r, ctx.tiles);
  if (nMax <= 0) {
    const d = r.q.length;
    const empty = { out: new Uint16Array(d), outF32: new Uint32Array(d) };
    return ctx.lse ? { ...empty, lse: 0x7f800000 } : empty;
  }
  const blocks = Array.from({ length: nMax }, (_, j) => j);
  if (ctx.build.kvWalk === "descending") blocks.reverse();
  const state = _fa2RowWalk({
    ...base,
    blockN: ctx.tiles.blockN,
    blocks,
    scaleLog2: ctx.scaleLog2,
  });
  return _fa2Epilogue(state, {
    arith: ctx.arith,
    softmaxScale: ctx.softmaxScale,
    lse: ctx.lse,
    split: false,
  });
}
