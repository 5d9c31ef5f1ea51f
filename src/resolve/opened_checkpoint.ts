/**
 * A checkpoint opened onto shared memory: its tensors are read into recycled SharedArrayBuffers
 * that the GEMM pool's workers read in place, and a layer's buffers are handed back for a later
 * layer's weights once it is done. The one way both openers of resolve (by digest from a blob
 * store, and from a directory) build it.
 *
 * @module
 */
import { sharedBuffers } from "../engine/mod.ts";
import {
  type CheckpointFiles,
  type DecoderCheckpoint,
  openDecoderCheckpoint,
} from "../model/mod.ts";

/** An opened checkpoint, its tensors on recycled shared memory; close it when done. */
export interface OpenedCheckpoint {
  /** The checkpoint (config, digests, tensor reads). */
  readonly ckpt: DecoderCheckpoint;
  /**
   * Hands a tensor's buffer back for a later read (e.g. a layer's weights once the layer is done);
   * the caller and every worker must be done with it. Bound: it may be passed on alone.
   */
  readonly releaseTensor: (t: Uint16Array) => void;
  /** Closes every file the checkpoint holds open (again: nothing). */
  readonly close: () => void;
  /** Same as `close`, for `using`. */
  [Symbol.dispose](): void;
}

/**
 * Opens a checkpoint onto a fresh recycling allocator of shared memory; the files are closed when
 * it fails.
 *
 * @param files the checkpoint's files by name
 * @param o `weightFiles` and `unmodelled` (as `openDecoderCheckpoint`'s options; `weightFiles`
 *   when known without the index) and `close`, which closes the files
 * @returns the opened checkpoint
 * @throws whatever `openDecoderCheckpoint` throws (the files closed)
 * @example
 * ```ts ignore
 * const opened = await _openOnSharedBuffers(files, { close: () => files.close() });
 * ```
 */
export async function _openOnSharedBuffers(
  files: CheckpointFiles,
  o: {
    readonly weightFiles?: readonly string[];
    readonly unmodelled?: "refuse" | "keep";
    readonly close: () => void;
  },
): Promise<OpenedCheckpoint> {
  const buffers = sharedBuffers();
  try {
    const ckpt = await openDecoderCheckpoint(files, {
      ...(o.weightFiles === undefined ? {} : { weightFiles: o.weightFiles }),
      ...(o.unmodelled === undefined ? {} : { unmodelled: o.unmodelled }),
      alloc: buffers.alloc, // shared memory: the GEMM pool's workers read the tensors in place
    });
    return {
      ckpt,
      releaseTensor: (t) => buffers.release(t.buffer),
      close: o.close,
      [Symbol.dispose]: o.close,
    };
  } catch (e) {
    o.close();
    throw e;
  }
}
