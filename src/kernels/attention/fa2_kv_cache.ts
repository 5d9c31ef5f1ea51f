/**
 * KV tiles kept across FA2 launches that read one growing KV cache (the decode steps of a served
 * sequence, each a launch over every key so far). A tile is the K rows and transposed V of
 * `blockN` keys of one KV head as the tile products read them (`Fa2KvTile`); a complete tile
 * (every key inside the launch's sequence) depends only on those keys' rows, so a later launch
 * over the same, longer cache reads the same tile. Building it once instead of once a launch
 * removes the gather and transposition that dominate a one-row decode tile.
 *
 * The caller vouches for the storage: launches that name a cache read their sequence's K and V
 * at the same offsets of rows that never change while the cache is in use (the serving replay
 * writes every position of a layer's cache before its first launch). Partial tiles (the last,
 * cut by the sequence's end) are never kept. A pool's workers keep their own tiles under the
 * cache's `id`.
 *
 * @module
 */
import type { Fa2KvTile } from "./_fa2_tile_walk.ts";

/** Tiles kept across launches over one KV cache. */
export interface Fa2KvCache {
  /** Names the cache to other threads (a worker keeps its tiles under it). */
  readonly id: number;
  /** This thread's kept tiles, by {@link fa2KeptTileKey}. */
  readonly tiles: Map<string, Fa2KvTile>;
}

let _next = 1;

/**
 * A fresh, empty cache with an id no other cache of this thread has.
 *
 * @returns the cache
 * @example
 * ```ts
 * import { fa2KvCache } from "./fa2_kv_cache.ts";
 * const a = fa2KvCache(), b = fa2KvCache();
 * if (a.id === b.id || a.tiles.size !== 0) throw new Error();
 * ```
 */
export function fa2KvCache(): Fa2KvCache {
  return { id: _next++, tiles: new Map() };
}

/**
 * Where a complete tile is kept: the sequence's first key row in the K buffer (its element
 * offset), the KV head layout, the tile width and the block.
 *
 * @param at `first`: element offset of the sequence's key 0 in the K buffer (its view's offset
 *   included); `kvHeads`, `d`, `kvh`, `blockN`, `block`
 * @returns the key
 * @example
 * ```ts
 * import { fa2KeptTileKey } from "./fa2_kv_cache.ts";
 * const k = fa2KeptTileKey({ first: 0, kvHeads: 8, d: 128, kvh: 3, blockN: 128, block: 2 });
 * if (k !== "0:8:128:3:128:2") throw new Error();
 * ```
 */
export function fa2KeptTileKey(
  at: {
    readonly first: number;
    readonly kvHeads: number;
    readonly d: number;
    readonly kvh: number;
    readonly blockN: number;
    readonly block: number;
  },
): string {
  return `${at.first}:${at.kvHeads}:${at.d}:${at.kvh}:${at.blockN}:${at.block}`;
}
