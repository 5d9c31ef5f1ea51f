/**
 * The checkpoint a model record names, fetched from the blob store by digest: the record's files
 * must hash to its checkpoint digest, the config and every weight file it commits to must be
 * produced with exactly those bytes (else the record FAILs with `obligation: "committed-input"`:
 * a prover must not turn the FAIL of a falsified record into NOT_VERIFIED by withholding a file),
 * and the config's model type must be the record's.
 *
 * @module
 */
import { BLOB_MAX_BYTES, type BlobStore } from "../assets/mod.ts";
import type { ModelRef } from "../claims/mod.ts";
import { BitauditError } from "../errors.ts";
import {
  bytesByteSource,
  type ByteSource,
  type DecoderCheckpoint,
  digestOfFiles,
  openDecoderCheckpoint,
} from "../model/mod.ts";
import { sharedBuffers } from "../engine/mod.ts";
import { _committedBlob, _missingBlob, _Stop } from "./_stop.ts";

/**
 * Opens the checkpoint of a model record.
 *
 * @param blobs the blob store
 * @param model the record's model reference
 * @returns the opened checkpoint (tensors on recycled shared memory) and `releaseTensor`, which
 *   hands a tensor's buffer back for a later read once its layer is done
 * @throws {_Stop} FAIL (digest or type contradiction, a file that cannot be a checkpoint), FAIL
 *   with `obligation: "committed-input"` (a committed file missing, mismatching or unreadable) or
 *   NOT_VERIFIED (a configuration feature this version does not model)
 */
export async function _claimCheckpoint(
  blobs: BlobStore,
  model: ModelRef,
): Promise<
  { ckpt: DecoderCheckpoint; releaseTensor: (t: Uint16Array) => void; close: () => void }
> {
  if (digestOfFiles(model.files) !== model.checkpointSha256) {
    throw new _Stop(
      "FAIL",
      "record contradicts itself: its files do not hash to its checkpoint digest",
    );
  }
  const buffers = sharedBuffers();
  const opened: { close(): void }[] = [];
  const close = () => {
    for (const f of opened.splice(0)) f.close();
  };
  try {
    const ckpt = await _open(blobs, model, { alloc: buffers.alloc, opened });
    if (ckpt.config.modelType !== model.type) {
      throw new _Stop(
        "FAIL",
        `record names model type '${model.type}', the config is '${ckpt.config.modelType}'`,
      );
    }
    return { ckpt, releaseTensor: (t) => buffers.release(t.buffer), close };
  } catch (e) {
    close();
    throw e;
  }
}

async function _open(
  blobs: BlobStore,
  model: ModelRef,
  o: { alloc: (bytes: number) => ArrayBufferLike; opened: { close(): void }[] },
): Promise<DecoderCheckpoint> {
  const { alloc } = o;
  const sources = new Map<string, ByteSource>();
  const missing = (name: string, digest: string) =>
    _missingBlob({ digest, what: `checkpoint file ${name}` });
  const committed = <T>(read: () => Promise<T | null>, name: string, digest: string) =>
    _committedBlob(read, {
      digest,
      what: `checkpoint file ${name}`,
      tooLarge: "is over the limit",
    });
  const fetch = async (name: string, digest: string) => {
    const limit = name === "config.json" ? { maxBytes: BLOB_MAX_BYTES.config } : {};
    const b = await committed(() => blobs.get(digest, limit), name, digest);
    if (b === null) throw missing(name, digest);
    sources.set(name, bytesByteSource(b));
  };
  await fetch("config.json", model.configSha256);
  for (const [name, digest] of Object.entries(model.files)) {
    if (blobs.open === undefined) {
      await fetch(name, digest);
      continue;
    }
    // Weight files are read from disk as the forward needs them, not held in memory.
    const open = blobs.open.bind(blobs);
    const f = await committed(() => open(digest), name, digest);
    if (f === null) throw missing(name, digest);
    o.opened.push(f);
    sources.set(name, f);
  }
  try {
    return await openDecoderCheckpoint({
      open: (name) => Promise.resolve(sources.get(name) ?? null),
    }, {
      weightFiles: Object.keys(model.files),
      alloc, // shared memory: the GEMM pool's workers read the tensors in place
    });
  } catch (e) {
    if (e instanceof BitauditError) {
      // A feature this version does not model is no evidence against the record; a checkpoint
      // that cannot be a model at all is, and so is a config of another architecture than the
      // model type the record names (a prover could otherwise commit a falsified record to a
      // config of any unknown architecture and turn its FAIL into NOT_VERIFIED).
      const unmodelled = e.code === "CONFIG_UNSUPPORTED";
      throw new _Stop(
        unmodelled ? "NOT_VERIFIED" : "FAIL",
        e.code === "CONFIG_MODEL_TYPE"
          ? `record names model type '${model.type}', its checkpoint contradicts it: ${e.message}`
          : `checkpoint: ${e.message}`,
      );
    }
    throw e;
  }
}
