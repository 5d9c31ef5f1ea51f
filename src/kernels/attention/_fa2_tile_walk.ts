/**
 * What a tile walk of FA2's main loop reads (`_fa2TileWalk`, `_fa2TileWalkMany`): its inputs, the
 * KV tiles as the products read them (launch-local, kept across launches, or built from the rows)
 * and the TypeScript tile softmax on flat state arrays.
 *
 * @module
 */
import type { Datapath, KWalkGemmOperands, OperandMemo } from "../../hardware/mod.ts";
import type { Fa2Arith } from "./_fa2_arith.ts";
import type { _RowState } from "./_fa2_softmax_step.ts";
import { _fa2TileSoftmax } from "./_fa2_tile_softmax.ts";
import type { Fa2TileSoftmax } from "./fa2_tile_softmax.ts";

/**
 * One KV tile as the products read it: K rows [blockN, d] and V transposed [d, blockN], zero past
 * the sequence's keys. It depends only on the sequence, the KV head, the tile width and the
 * block, so the query heads of one KV head (and every query tile) can share it.
 */
export interface Fa2KvTile {
  /** K rows of the tile, BF16 patterns. */
  readonly kb: Uint16Array;
  /** V transposed, BF16 patterns. */
  readonly vt: Uint16Array;
  /**
   * The K-walk's prepared form of `kb` (`KWalkGemmOperands.bMemo`), kept with a complete tile
   * (a partial one, the last of a launch, is read by that launch alone).
   */
  readonly kbMemo?: OperandMemo;
  /** The K-walk's prepared form of `vt`, likewise. */
  readonly vtMemo?: OperandMemo;
}

/** A synchronous K-walk with `kWalkReference`'s contract (e.g. `GemmEngine.kWalkAuto`). */
export type SyncKWalk = (dp: Datapath, ops: KWalkGemmOperands) => Uint32Array;

/** Inputs of {@link _fa2TileWalk}. */
export interface _TileWalkInput {
  /** Tensor-core datapath (BF16 in, FP32 out, `mma` family). */
  readonly dp: Datapath;
  /** The build's FP32 instructions. */
  readonly arith: Fa2Arith;
  /** The K-walk that computes the tile products. */
  readonly kWalk: SyncKWalk;
  /** The tile's query rows, BF16 patterns, row-major [rows, d]. */
  readonly q: Uint16Array;
  /** Head dimension. */
  readonly d: number;
  /** Key row `j` of the sequence and the tile's KV head, BF16 patterns (length d). */
  readonly key: (j: number) => ArrayLike<number>;
  /** Value row `j`, BF16 patterns (length d). */
  readonly value: (j: number) => ArrayLike<number>;
  /** Per row, the key columns it sees: `col < visible[r]` (causal limit and S_k folded in). */
  readonly visible: readonly number[];
  /** Keys in the sequence: columns at or past it are zero-filled (FA2 clears those smem rows). */
  readonly sk: number;
  /** KV tile width (kBlockN). */
  readonly blockN: number;
  /** The n-blocks to visit, in walk order (FA2: highest first); the same for every row. */
  readonly blocks: readonly number[];
  /**
   * FA2's masking iterations (`fa2MaskingSteps`): steps `0 .. maskingSteps - 1` of this walk
   * rescale with `Check_inf` (a -inf row max counts as 0), later steps without it.
   */
  readonly maskingSteps: number;
  /** `fl32(softmax_scale * log2 e)` pattern. */
  readonly scaleLog2: number;
  /** The tile softmax on flat state arrays, when not the TypeScript step (same bits). */
  readonly tileSoftmax?: Fa2TileSoftmax;
  /** KV tiles of this sequence and KV head built so far, by `${blockN}:${block}` (reused). */
  readonly tiles?: Map<string, Fa2KvTile>;
  /**
   * The sequence's K and V rows of the tile's KV head in place, read directly (`key` and `value`
   * give the same rows through a call each).
   */
  readonly kvRows?: Fa2KvRows;
  /** Complete tiles kept across launches (`Fa2KvCache`), and where a block is kept there. */
  readonly kept?: Fa2KeptTiles;
}

/** Key row j of a sequence and KV head at `k[first + j * stride]` (d entries), V alike. */
export interface Fa2KvRows {
  /** K [total_k, kvHeads, d]. */
  readonly k: Uint16Array;
  /** V, same layout. */
  readonly v: Uint16Array;
  /** Element offset of key 0's row. */
  readonly first: number;
  /** Elements between consecutive keys' rows (kvHeads * d). */
  readonly stride: number;
}

/** A launch's view of a `Fa2KvCache`: the kept tiles and the key of a block of its sequence. */
export interface Fa2KeptTiles {
  /** Kept complete tiles. */
  readonly tiles: Map<string, Fa2KvTile>;
  /** Where block `block` of width `blockN` of this sequence and KV head is kept. */
  readonly key: (blockN: number, block: number) => string;
}

/**
 * The TypeScript tile step (`_fa2TileSoftmax`) on the flat state arrays: each row's O and lane
 * sums as views into them, its maximum copied in and back.
 */
export function _typescriptSoftmax(
  arith: Fa2Arith,
  lanes: readonly (readonly number[])[],
): Fa2TileSoftmax {
  return (t) => {
    const states = Array.from({ length: t.rows }, (_, r): _RowState => ({
      o: t.o.subarray(r * t.d, (r + 1) * t.d),
      rowMax: t.rowMax[r] as number,
      laneSums: t.sums.subarray(r * 4, r * 4 + 4),
    }));
    const { scores, limits, blockN, scaleLog2, first, checkInf } = t;
    const input = { scores, limits, blockN, lanes, arith, scaleLog2, first, checkInf };
    _fa2TileSoftmax(states, input, t.pb);
    states.forEach((s, r) => (t.rowMax[r] = s.rowMax));
  };
}

/** FP32 -inf: a row's maximum before its first tile. */
export const _NEG_INF = 0xff800000;

/**
 * The KV tile of block nb: the launch's own, a kept one, or built now (and kept when complete).
 *
 * @param input the walk (its tiles, kept tiles and K/V rows)
 * @param nb the block
 * @returns the tile
 */
export function _kvTile(input: _TileWalkInput, nb: number): Fa2KvTile {
  const key = `${input.blockN}:${nb}`;
  const hit = input.tiles?.get(key);
  if (hit !== undefined) return hit;
  // A complete tile (every key inside the sequence) may come from, or go to, the kept tiles.
  const complete = (nb + 1) * input.blockN <= input.sk;
  const keptKey = complete ? input.kept?.key(input.blockN, nb) : undefined;
  const kept = keptKey === undefined ? undefined : input.kept!.tiles.get(keptKey);
  const tile = kept ?? _buildKvTile(input, nb);
  input.tiles?.set(key, tile);
  if (keptKey !== undefined && kept === undefined) input.kept!.tiles.set(keptKey, tile);
  return tile;
}

/**
 * The K-walk option that hands a tile's memo along, when it has one.
 *
 * @param memo the tile's memo of one operand
 * @returns `{ bMemo }`, or nothing
 */
export function _memo(memo: OperandMemo | undefined): { bMemo?: OperandMemo } {
  return memo === undefined ? {} : { bMemo: memo };
}

/** K rows and transposed V of block nb, zero past the sequence's keys. */
function _buildKvTile(input: _TileWalkInput, nb: number): Fa2KvTile {
  const { d, blockN } = input;
  const c0 = nb * blockN;
  const kb = new Uint16Array(blockN * d);
  const vt = new Uint16Array(d * blockN);
  const n = Math.min(blockN, input.sk - c0);
  const rows = input.kvRows;
  for (let c = 0; c < n; c++) {
    if (rows === undefined) {
      kb.set(input.key(c0 + c), c * d);
      const v = input.value(c0 + c);
      for (let j = 0; j < d; j++) vt[j * blockN + c] = v[j] as number;
      continue;
    }
    const at = rows.first + (c0 + c) * rows.stride;
    const { k, v } = rows;
    for (let j = 0; j < d; j++) {
      kb[c * d + j] = k[at + j] as number;
      vt[j * blockN + c] = v[at + j] as number;
    }
  }
  // Only a complete tile is read again by other launches: a partial one keeps no packed form.
  return n === blockN ? { kb, vt, kbMemo: {}, vtMemo: {} } : { kb, vt };
}
