/**
 * Recycled shared memory for tensors that thread pools read in place (e.g. a checkpoint's weights
 * read layer by layer): a buffer handed back with `release` is handed out again for the next
 * request of the same size, so a forward over many layers of equal shapes keeps a few layers'
 * buffers alive instead of leaving every layer's to the collectors of several isolates (a
 * SharedArrayBuffer is freed only when every thread that saw it has collected it).
 *
 * @module
 */

/** A recycling allocator of SharedArrayBuffers. */
export interface SharedBuffers {
  /** A zero-filled or recycled buffer of exactly `bytes` bytes (contents unspecified). */
  alloc(bytes: number): SharedArrayBuffer;
  /**
   * Hands a buffer back for reuse: the caller and every thread must be done with it. Buffers
   * this allocator did not hand out, or handed back twice, are ignored.
   */
  release(buffer: ArrayBufferLike): void;
  /** Bytes handed out and not handed back. */
  readonly inUse: number;
}

/**
 * Creates an allocator.
 *
 * @returns the allocator
 * @example
 * ```ts
 * import { sharedBuffers } from "./shared_buffers.ts";
 * const pool = sharedBuffers();
 * const a = pool.alloc(64);
 * pool.release(a);
 * if (pool.alloc(64) !== a || pool.inUse !== 64) throw new Error();
 * ```
 */
export function sharedBuffers(): SharedBuffers {
  const free = new Map<number, SharedArrayBuffer[]>();
  const out = new Set<SharedArrayBuffer>();
  let inUse = 0;
  return {
    alloc(bytes) {
      const buffer = free.get(bytes)?.pop() ?? new SharedArrayBuffer(bytes);
      out.add(buffer);
      inUse += bytes;
      return buffer;
    },
    release(buffer) {
      if (!(buffer instanceof SharedArrayBuffer) || !out.delete(buffer)) return;
      inUse -= buffer.byteLength;
      const list = free.get(buffer.byteLength);
      if (list === undefined) free.set(buffer.byteLength, [buffer]);
      else list.push(buffer);
    },
    get inUse() {
      return inUse;
    },
  };
}
