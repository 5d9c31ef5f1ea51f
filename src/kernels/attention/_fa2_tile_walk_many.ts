/**
 * A tile of query rows through FA2's main loop (`compute_attn_1rowblock`, spec `ops.md` §4.3),
 * alone (`_fa2TileWalk`) or with others (`_fa2TileWalkMany`), the S = Q·K^T and O += P·V products
 * of each KV tile computed as two K-walks over the whole tile (the wasm engine when it covers the
 * datapath). The online softmax between them is `_fa2TileSoftmax`, the per-row `_fa2SoftmaxStep`
 * written for a whole tile; the bits equal those of the per-row reference `_fa2RowWalk` (tested on
 * every row).
 *
 * Many tile walks run together: the walks of a batch of launches over one KV cache (a served
 * sequence's decode steps, each one query row a head) share most of their KV tiles, so each
 * shared tile's S = Q·K^T and O += P·V products run once for the rows of every walk that visits
 * it, as one tall K-walk instead of one two-row walk per launch.
 *
 * Rows never mix in FA2 (each row's scores, softmax and P·V are its own: `_fa2TileWalk`), so
 * what a row gets depends only on its own tiles and their order. Every walk still visits its
 * blocks in its own order: the schedule takes, at each step, the block that comes first in the
 * build's direction among the walks' next blocks, and runs every walk whose next block it is.
 * The states equal `inputs.map(_fa2TileWalk)` (tested).
 *
 * @module
 */
import { _laneColumns, type _RowState } from "./_fa2_softmax_step.ts";
import {
  _kvTile,
  _memo,
  _NEG_INF,
  type _TileWalkInput,
  _typescriptSoftmax,
  type Fa2KvTile,
} from "./_fa2_tile_walk.ts";
import type { Fa2TileSoftmax } from "./fa2_tile_softmax.ts";

/** One walk's progress and state. */
interface _Walk {
  readonly input: _TileWalkInput;
  readonly rows: number;
  /** Index of the next block in `input.blocks`. */
  pos: number;
  readonly rowMax: Uint32Array;
  readonly sums: Uint32Array;
  readonly o: Uint32Array;
}

/**
 * Walks the tile's rows over their KV tiles. Per tile: S from a zero accumulator over d (masked
 * columns then -inf), the softmax step of every row, P rounded to BF16, and O += P·V with O as
 * the initial accumulator. Key columns past the sequence are fed as zeros; masked columns inside
 * it carry their real K and V, as on the GPU: their P is 0, and a zero product takes no part in
 * the block FMA (unless V is infinite or NaN there, which makes the sum NaN on the GPU too).
 *
 * @param input the rows, K/V accessors, tiling, build and K-walk
 * @returns each row's O accumulator, row max and lane sums
 */
export function _fa2TileWalk(input: _TileWalkInput): _RowState[] {
  // One walk: its next block is always the one taken, whichever the direction.
  return _fa2TileWalkMany([input], true)[0]!;
}

/**
 * Runs the walks together. They must share the datapath, head dimension, K-walk, instructions,
 * tile softmax and scale (the launches of one batch do).
 *
 * @param inputs the walks
 * @param descending whether the build walks KV blocks from the highest (`kvWalk`)
 * @returns each walk's row states, as `_fa2TileWalk` returns them
 */
export function _fa2TileWalkMany(
  inputs: readonly _TileWalkInput[],
  descending: boolean,
): _RowState[][] {
  const walks: _Walk[] = inputs.map((input) => {
    const rows = input.visible.length;
    return {
      input,
      rows,
      pos: 0,
      rowMax: new Uint32Array(rows).fill(_NEG_INF),
      sums: new Uint32Array(rows * 4),
      o: new Uint32Array(rows * input.d),
    };
  });
  const softmaxes = new Map<number, Fa2TileSoftmax>();
  const softmaxOf = (input: _TileWalkInput) => {
    if (input.tileSoftmax !== undefined) return input.tileSoftmax;
    let s = softmaxes.get(input.blockN);
    if (s === undefined) {
      s = _typescriptSoftmax(input.arith, _laneColumns(input.blockN));
      softmaxes.set(input.blockN, s);
    }
    return s;
  };
  const scratch = _scratch();
  let active = walks.filter((w) => w.input.blocks.length > 0);
  while (active.length > 0) {
    // The next block in the build's direction among the walks of the first one's tile width.
    const blockN = active[0]!.input.blockN;
    let nb = -1;
    for (const w of active) {
      if (w.input.blockN !== blockN) continue;
      const b = w.input.blocks[w.pos]!;
      if (nb < 0 || (descending ? b > nb : b < nb)) nb = b;
    }
    const groups = new Map<Fa2KvTile, _Walk[]>();
    for (const w of active) {
      if (w.input.blockN !== blockN || w.input.blocks[w.pos] !== nb) continue;
      const tile = _kvTile(w.input, nb);
      const g = groups.get(tile);
      if (g === undefined) groups.set(tile, [w]);
      else g.push(w);
    }
    for (const [tile, group] of groups) _step(group, { tile, nb, softmax: softmaxOf, scratch });
    active = active.filter((w) => w.pos < w.input.blocks.length);
  }
  return walks.map((w) =>
    Array.from({ length: w.rows }, (_, r) => ({
      o: w.o.slice(r * w.input.d, (r + 1) * w.input.d),
      rowMax: w.rowMax[r] as number,
      laneSums: w.sums.slice(r * 4, r * 4 + 4),
    }))
  );
}

/**
 * How a walk's next step runs the softmax: 0 its first tile, 1 a later masking iteration
 * (`Check_inf`), 2 a later iteration without it.
 */
function _stepKind(w: _Walk): number {
  return w.pos === 0 ? 0 : w.pos < w.input.maskingSteps ? 1 : 2;
}

/**
 * One tile for a group of walks whose next block it is: their rows stacked (walks on their first
 * tile first, then those on a masking iteration, for the softmax's `first` and `checkInf`), S in
 * one K-walk, the softmax step, O += P·V in one K-walk, and the states handed back.
 */
function _step(
  group: _Walk[],
  o: {
    readonly tile: Fa2KvTile;
    readonly nb: number;
    readonly softmax: (input: _TileWalkInput) => Fa2TileSoftmax;
    readonly scratch: _Scratch;
  },
): void {
  group.sort((a, b) => _stepKind(a) - _stepKind(b));
  const { input } = group[0]!;
  const { d, blockN, dp, kWalk, scaleLog2 } = input;
  const total = group.reduce((n, w) => n + w.rows, 0);
  // A walk alone (every tile of a single launch) works on its own state in place.
  const alone = group.length === 1 ? group[0] : undefined;
  const q = alone?.input.q ?? new Uint16Array(total * d);
  const rowMax = alone?.rowMax ?? new Uint32Array(total);
  const sums = alone?.sums ?? new Uint32Array(total * 4);
  const acc = alone?.o ?? new Uint32Array(total * d);
  const limits = o.scratch.limits(total);
  const ends = [0, 0, 0]; // rows of step kinds 0, 0..1, 0..2
  let r0 = 0;
  for (const w of group) {
    if (alone === undefined) {
      q.set(w.input.q, r0 * d);
      rowMax.set(w.rowMax, r0);
      sums.set(w.sums, r0 * 4);
      acc.set(w.o, r0 * d);
    }
    for (let r = 0; r < w.rows; r++) {
      limits[r0 + r] = (w.input.visible[r] as number) - o.nb * blockN;
    }
    for (let kind = _stepKind(w); kind < 3; kind++) ends[kind]! += w.rows;
    r0 += w.rows;
  }
  const { kb, vt, kbMemo, vtMemo } = o.tile;
  const scores = kWalk(dp, {
    a: q,
    b: kb,
    m: total,
    n: blockN,
    k: d,
    ..._memo(kbMemo),
    out: o.scratch.scores(total * blockN),
  });
  // Written whole by the softmax (every column of every row).
  const pb = o.scratch.pb(total * blockN);
  const softmax = o.softmax(input);
  for (let kind = 0; kind < 3; kind++) {
    const lo = kind === 0 ? 0 : ends[kind - 1]!, hi = ends[kind]!;
    if (lo === hi) continue;
    softmax({
      rows: hi - lo,
      blockN,
      d,
      scores: scores.subarray(lo * blockN, hi * blockN),
      limits: limits.subarray(lo, hi),
      rowMax: rowMax.subarray(lo, hi),
      sums: sums.subarray(lo * 4, hi * 4),
      o: acc.subarray(lo * d, hi * d),
      pb: pb.subarray(lo * blockN, hi * blockN),
      first: kind === 0,
      checkInf: kind < 2,
      scaleLog2,
    });
  }
  // O += P·V in place (a K-walk may still hand back another array: its result is what counts).
  const pv = { a: pb, b: vt, m: total, n: d, k: blockN, init: acc, out: acc };
  const out = kWalk(dp, { ...pv, ..._memo(vtMemo) });
  r0 = 0;
  for (const w of group) {
    if (alone === undefined) {
      w.rowMax.set(rowMax.subarray(r0, r0 + w.rows));
      w.sums.set(sums.subarray(r0 * 4, (r0 + w.rows) * 4));
    }
    if (out !== w.o) w.o.set(out.subarray(r0 * d, (r0 + w.rows) * d));
    w.pos++;
    r0 += w.rows;
  }
}

/** A walk set's reused buffers (see {@link _scratch}). */
interface _Scratch {
  /** Room for S, `count` FP32 patterns. */
  readonly scores: (count: number) => Uint32Array;
  /** Room for P, `count` BF16 patterns. */
  readonly pb: (count: number) => Uint16Array;
  /** Room for the rows' column limits. */
  readonly limits: (count: number) => Int32Array;
}

/**
 * Buffers for what a step uses only within itself (S, P, the rows' column limits), grown when a
 * step needs more: one allocation per size for the whole walk set rather than three per KV tile.
 */
function _scratch(): _Scratch {
  let scores = new Uint32Array(0), pb = new Uint16Array(0), limits = new Int32Array(0);
  return {
    scores: (n) => (scores.length < n ? scores = new Uint32Array(n) : scores).subarray(0, n),
    pb: (n) => (pb.length < n ? pb = new Uint16Array(n) : pb).subarray(0, n),
    limits: (n) => (limits.length < n ? limits = new Int32Array(n) : limits).subarray(0, n),
  };
}
