/**
 * The largest blob of each kind a reader accepts, checked on the file's size before a byte of it
 * is read (issue 25, item 2: a 2 GiB history with a matching digest was read and hashed whole,
 * 20 s and 4.3 GB, before its parser refused it).
 *
 * @module
 */

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

/** Per-kind limits (bytes) for {@link BlobReadOptions}`.maxBytes`. */
export interface BlobLimits {
  /**
   * A serving history: 64 MiB, the `MAX_HISTORY_BYTES` of `src/claims` (its parser refuses more,
   * so a larger blob can only be refused later at a higher cost).
   */
  readonly history: number;
  /**
   * A checkpoint's `config.json`: 1 MiB, the limit `openDecoderCheckpoint` applies to the same file
   * (`MAX_CONFIG_JSON_BYTES` of `src/model`). A published Qwen3 config is about 1 KiB.
   */
  readonly config: number;
  /**
   * A checkpoint's `model.safetensors.index.json`: 64 MiB, `openDecoderCheckpoint`'s
   * `MAX_INDEX_JSON_BYTES` (the index of a 235B MoE checkpoint is about 2 MiB).
   */
  readonly checkpointIndex: number;
  /**
   * A tensor read whole when its length is not known to the caller: 4 GiB (2^31 BF16 elements,
   * above an LM head of 151936 x 8192). A caller that knows the element count passes the exact
   * byte length instead.
   */
  readonly tensor: number;
  /**
   * A weight file opened for random access (`BlobStore.open`): 256 GiB. It is hashed in 16 MiB
   * steps and never held in memory, so only the hashing time grows with it.
   */
  readonly weights: number;
}

/**
 * The limits by blob kind.
 *
 * @example
 * ```ts
 * import { BLOB_MAX_BYTES } from "./blob_limits.ts";
 * if (BLOB_MAX_BYTES.history !== 64 * 1024 * 1024 || !Object.isFrozen(BLOB_MAX_BYTES)) {
 *   throw new Error();
 * }
 * ```
 */
export const BLOB_MAX_BYTES: BlobLimits = Object.freeze({
  history: 64 * MiB,
  config: 1 * MiB,
  checkpointIndex: 64 * MiB,
  tensor: 4 * GiB,
  weights: 256 * GiB,
});

/** Options of one blob read. */
export interface BlobReadOptions {
  /**
   * Largest accepted size in bytes (a number >= 0), checked on the file's size before it is
   * read: a kind's limit from {@link BLOB_MAX_BYTES}, or the exact length a caller expects (e.g.
   * elements x bytes per element of a tensor). It can only lower the store's own limit, never
   * raise it; a call given a negative number or NaN rejects with a `RangeError`.
   */
  readonly maxBytes?: number;
}
