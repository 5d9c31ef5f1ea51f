/**
 * One tile of query rows (the rows of one m-block of one head in one sequence) through the kernel
 * a launch runs: the standard forward kernel, or the split kernel followed by the combine. Rows
 * never mix in FA2 (max, sums and MMA outputs are per row); the m-block fixes which KV blocks
 * its rows visit, and the tile lets the S and P·V products run as whole-tile K-walks.
 *
 * @module
 */
import type { Fa2TileSoftmax } from "./fa2_tile_softmax.ts";
import type { Datapath } from "../../hardware/mod.ts";
import type { Fa2Arith } from "./_fa2_arith.ts";
import { _fa2Epilogue, type _RowOutput } from "./_fa2_epilogue.ts";
import { _fa2TileWalk } from "./_fa2_tile_walk_many.ts";
import type {
  _TileWalkInput,
  Fa2KeptTiles,
  Fa2KvRows,
  Fa2KvTile,
  SyncKWalk,
} from "./_fa2_tile_walk.ts";
import type { Fa2Build } from "./fa2_build.ts";
import { _fa2CombineRow } from "./fa2_combine.ts";
import { fa2BlocksPerSplit, type Fa2SplitRange } from "./fa2_split_range.ts";
import type { Fa2Tiles } from "./fa2_tiles.ts";
import type { _RowState } from "./_fa2_softmax_step.ts";

const NEG_INF = 0xff800000;

/** What is fixed for the whole launch. */
/** The decisions every query tile of a launch shares (the data part of a `Fa2Plan`). */
export interface Fa2Launch {
  /** The tensor-core datapath of the tile products (bf16 -> fp32 `mma`). */
  readonly dp: Datapath;
  /** The FA2 build (fast-math or PyTorch-bundled). */
  readonly build: Fa2Build;
  /** `fl32(softmax_scale * log2 e)` pattern. */
  readonly scaleLog2: number;
  /** `fl32(softmax_scale)` pattern. */
  readonly softmaxScale: number;
  /** Causal mask in effect (already dropped when the longest query is 1). */
  readonly causal: boolean;
  /** KV splits (1: standard kernel, unless `splitKernel`). */
  readonly splits: number;
  /**
   * The split kernel runs (more than one split, or a paged KV cache, which forces it with one
   * split that writes BF16 directly).
   */
  readonly splitKernel: boolean;
  /** The launch's seqlen_k (fixes n_blocks_per_split under the `launch` rule). */
  readonly seqlenK: number;
  /**
   * What fixes each split's key blocks (`fa2BlocksPerSplit`): the launch's seqlen_k (Dao) or the
   * sequence's own key length (vllm-flash-attn).
   */
  readonly splitRange: Fa2SplitRange;
  /** Standard kernel tiles. */
  readonly tiles: Fa2Tiles;
  /** Split kernel tiles (`fa2SplitTiles` of the head dimension). */
  readonly splitTiles: Fa2Tiles;
  /** Rows per CTA of the split-KV combine (`fa2CombineBlockM` of the head dimension). */
  readonly combineBlockM: number;
  /** Whether the standard kernel's LSE is wanted (the split path always has one). */
  readonly lse: boolean;
  /**
   * `n_masking_steps` of the kernel that runs (`fa2MaskingSteps`): the leading KV tiles of each
   * CTA's walk (each split's) whose rescale takes a -inf row max as 0.
   */
  readonly maskingSteps: number;
}

/** A launch's decisions with the thread-local instructions and K-walk. */
export interface _LaunchCtx extends Fa2Launch {
  /** The build's FP32 instructions around one MUFU model. */
  readonly arith: Fa2Arith;
  /** The K-walk of the tile products. */
  readonly kWalk: SyncKWalk;
  /** The tile softmax when not the TypeScript step. */
  readonly tileSoftmax?: Fa2TileSoftmax | undefined;
  /**
   * Runs a tile walk (default `_fa2TileWalk`); a batch of launches records the walks first and
   * runs them together (`_fa2TileWalkMany`), then replays their states.
   */
  readonly walker?: ((input: _TileWalkInput) => _RowState[]) | undefined;
}

/** A tile: consecutive query rows `i0 .. i0 + rows - 1` of one m-block, their K/V accessors. */
export interface _QueryTile {
  /** The rows' queries, BF16 patterns, row-major [rows, d]. */
  readonly q: Uint16Array;
  readonly key: (j: number) => ArrayLike<number>;
  readonly value: (j: number) => ArrayLike<number>;
  /** Index of the first row in its sequence. */
  readonly i0: number;
  readonly rows: number;
  readonly sq: number;
  readonly sk: number;
  /** KV tiles of this sequence and KV head already built (shared by its query heads). */
  readonly tiles?: Map<string, Fa2KvTile>;
  /** The K and V rows in place (see `_TileWalkInput.kvRows`). */
  readonly kvRows?: Fa2KvRows;
  /** Complete tiles kept across launches (see `_TileWalkInput.kept`). */
  readonly kept?: Fa2KeptTiles;
  /**
   * Query heads stacked in `q` (default 1): q holds `stack` blocks of `rows` rows, block g for
   * the g-th query head of the KV head, every block at the same positions. Rows never mix in
   * FA2 (each row's scores, softmax and P·V are its own), so a stacked tile gives each row the
   * bits it gets alone; the tile products just run once for all of them.
   */
  readonly stack?: number;
}

/** C++ `ceil_div` on ints: truncates toward zero, so a negative range gives <= 0. */
const _ceilDiv = (a: number, b: number) => Math.trunc((a + b - 1) / b);

/**
 * The m-block height of the kernel the launch runs: tiles must not straddle one.
 *
 * @param ctx the launch
 * @returns kBlockM of the split kernel or of the standard kernel
 */
export function _tileHeight(ctx: _LaunchCtx): number {
  return ctx.splitKernel ? ctx.splitTiles.blockM : ctx.tiles.blockM;
}

/** `n_block_max` of the row block holding row i: S_k, and the bottom-right causal limit. */
function _nBlockMax(ctx: _LaunchCtx, tile: _QueryTile, t: Fa2Tiles): number {
  const n = _ceilDiv(tile.sk, t.blockN);
  if (!ctx.causal) return n;
  const mb = Math.floor(tile.i0 / t.blockM);
  return Math.min(n, _ceilDiv((mb + 1) * t.blockM + tile.sk - tile.sq, t.blockN));
}

/** Blocks [lo, hi) in the build's walk order. */
function _blocks(lo: number, hi: number, walk: Fa2Build["kvWalk"]): number[] {
  const blocks = Array.from({ length: hi - lo }, (_, j) => lo + j);
  return walk === "descending" ? blocks.reverse() : blocks;
}

/**
 * Computes every row of a tile: O (BF16 and FP32) and, when asked or split, its LSE. The
 * standard kernel writes O = 0 and LSE = +inf for a row block with no KV block; the split path
 * gets the same from the combine (every split empty: LSE_s = -inf, O_s = 0).
 *
 * @param ctx the launch
 * @param tile the rows (all in one m-block of the kernel that runs), possibly stacked
 * @returns one output per row, stacked blocks in order
 */
export function _fa2QueryTile(ctx: _LaunchCtx, tile: _QueryTile): _RowOutput[] {
  const stacked = tile.rows * (tile.stack ?? 1);
  const d = tile.q.length / stacked;
  const visible = Array.from({ length: stacked }, (_, r) => {
    const i = tile.i0 + (r % tile.rows);
    return ctx.causal ? Math.min(tile.sk, i + 1 + tile.sk - tile.sq) : tile.sk;
  });
  const walker = ctx.walker ?? _fa2TileWalk;
  const walk = (blockN: number, blocks: number[]) =>
    walker({
      dp: ctx.dp,
      arith: ctx.arith,
      kWalk: ctx.kWalk,
      ...(ctx.tileSoftmax === undefined ? {} : { tileSoftmax: ctx.tileSoftmax }),
      q: tile.q,
      d,
      key: tile.key,
      value: tile.value,
      visible,
      sk: tile.sk,
      blockN,
      blocks,
      maskingSteps: ctx.maskingSteps,
      scaleLog2: ctx.scaleLog2,
      ...(tile.tiles === undefined ? {} : { tiles: tile.tiles }),
      ...(tile.kvRows === undefined ? {} : { kvRows: tile.kvRows }),
      ...(tile.kept === undefined ? {} : { kept: tile.kept }),
    });
  const epilogue = { arith: ctx.arith, softmaxScale: ctx.softmaxScale };
  if (ctx.splits > 1) {
    const t = ctx.splitTiles;
    const nbps = fa2BlocksPerSplit(ctx.splitRange, {
      launchSeqlenK: ctx.seqlenK,
      seqlenK: tile.sk,
      blockN: t.blockN,
      splits: ctx.splits,
    });
    const nMax = _nBlockMax(ctx, tile, t);
    const o = visible.map(() => [] as Uint32Array[]);
    const lse = visible.map(() => new Uint32Array(ctx.splits));
    for (let s = 0; s < ctx.splits; s++) {
      const lo = s * nbps;
      const hi = Math.min((s + 1) * nbps, nMax);
      const states = lo < hi ? walk(t.blockN, _blocks(lo, hi, ctx.build.kvWalk)) : undefined;
      for (let r = 0; r < stacked; r++) {
        const st = states?.[r];
        if (st === undefined) {
          (o[r] as Uint32Array[]).push(new Uint32Array(d));
          (lse[r] as Uint32Array)[s] = NEG_INF;
          continue;
        }
        const out = _fa2Epilogue(st, { ...epilogue, lse: true, split: true });
        (o[r] as Uint32Array[]).push(out.outF32);
        (lse[r] as Uint32Array)[s] = out.lse as number;
      }
    }
    const combine = { arith: ctx.arith, blockM: ctx.combineBlockM };
    return o.map((os, r) => _fa2CombineRow({ o: os, lse: lse[r] as Uint32Array }, combine));
  }
  // One split: the standard kernel, or the split kernel with `Split = false` (paged KV), whose
  // tiles differ but whose epilogue is the standard one (BF16 O, LSE +inf for an empty block).
  const tiles = ctx.splitKernel ? ctx.splitTiles : ctx.tiles;
  const nMax = _nBlockMax(ctx, tile, tiles);
  if (nMax <= 0) {
    return visible.map(() => {
      const empty = { out: new Uint16Array(d), outF32: new Uint32Array(d) };
      return ctx.lse ? { ...empty, lse: 0x7f800000 } : empty;
    });
  }
  const states = walk(tiles.blockN, _blocks(0, nMax, ctx.build.kvWalk));
  return states.map((st) => _fa2Epilogue(st, { ...epilogue, lse: ctx.lse, split: false }));
}
