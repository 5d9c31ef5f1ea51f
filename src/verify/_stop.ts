/**
 * Shared pieces of the per-record pipeline: the early-exit signal and the lookups that turn an
 * unknown asset into NOT_VERIFIED, a committed blob the prover did not produce (missing,
 * mismatching, unreadable) into FAIL with its obligation, and a self-contradicting record into
 * FAIL.
 *
 * @module
 */
import type { BlobStore } from "../assets/mod.ts";
import { InputError, isUnknownAsset } from "../errors.ts";
import type { ProverObligation } from "./record_result.ts";

/** Ends the pipeline for one record with a status and its reason. */
export class _Stop extends Error {
  /**
   * @param status FAIL or NOT_VERIFIED
   * @param why the reason (one line)
   * @param obligation the prover obligation that was not met, when that is the reason
   */
  constructor(
    readonly status: "FAIL" | "NOT_VERIFIED",
    readonly why: string,
    readonly obligation?: ProverObligation,
  ) {
    super(why);
  }
}

/**
 * Loads an asset; an unknown id becomes NOT_VERIFIED, tampering or invalid assets propagate.
 *
 * @param load the loader
 * @param what what is loaded, for the reason
 * @returns the loaded value
 * @throws {_Stop} NOT_VERIFIED for an unknown id
 */
export async function _asset<T>(load: () => Promise<T>, what: string): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if (isUnknownAsset(e)) {
      throw new _Stop("NOT_VERIFIED", `unsupported ${what}: ${e.message}`);
    }
    throw e; // tampered or invalid assets stop the whole audit
  }
}

/**
 * The FAIL of a committed blob the prover did not produce as committed.
 *
 * @param t the blob's digest and a name for the reason
 * @param why what is wrong with it (e.g. "does not hash to its committed digest")
 * @returns the stop to throw (FAIL with `obligation: "committed-input"`)
 */
export function _unmet(t: { readonly digest: string; readonly what: string }, why: string): _Stop {
  return new _Stop(
    "FAIL",
    `prover did not produce committed input: ${t.what} ${t.digest.slice(0, 16)}… ${why}`,
    "committed-input",
  );
}

/**
 * The FAIL of a committed blob that is not in the blob store: whatever the record commits to by
 * digest (tensors, weight files, config, history) is the prover's to produce, so its absence is
 * the record's FAIL, never NOT_VERIFIED (a prover could otherwise withhold the inputs of a
 * falsified record to turn FAILED into INCONCLUSIVE).
 *
 * @param t the blob's digest and a name for the reason
 * @returns the stop to throw (FAIL with `obligation: "committed-input"`)
 */
export function _missingBlob(t: { readonly digest: string; readonly what: string }): _Stop {
  return _unmet(t, "is missing from the blob store");
}

/**
 * Reads a committed blob (whole or opened) and turns the prover's broken obligations into the
 * record's FAIL: bytes that do not hash to the digest the record commits to, a blob over the
 * limit, or one that cannot be read as a file (a directory, a FIFO, no permission). Missing blobs
 * come back as null for the caller to judge (see {@link _missingBlob}).
 *
 * @param read reads the blob (e.g. `blobs.get(digest)` or `blobs.open(digest)`)
 * @param t its digest, a name for the reason and the reason for a blob over the limit
 * @returns what `read` returned
 * @throws {_Stop} FAIL with `obligation: "committed-input"`
 */
export async function _committedBlob<T>(
  read: () => Promise<T | null>,
  t: { readonly digest: string; readonly what: string; readonly tooLarge: string },
): Promise<T | null> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof InputError && e.code === "BLOB_DIGEST_MISMATCH") {
      throw _unmet(t, "does not hash to its committed digest");
    }
    if (e instanceof InputError && e.code === "BLOB_TOO_LARGE") throw _unmet(t, t.tooLarge);
    if (e instanceof InputError && e.code === "BLOB_READ") {
      throw _unmet(t, "cannot be read as a file");
    }
    throw e;
  }
}

/**
 * Fetches a tensor by digest and checks its byte length.
 *
 * @param blobs the blob store
 * @param t digest, element count, bytes per element (2 or 4) and a name for the reason
 * @returns the raw bytes (a private copy)
 * @throws {_Stop} FAIL with `obligation: "committed-input"` when missing, corrupted or over the
 *   limit; FAIL when its length contradicts the record
 */
export async function _tensorBytes(
  blobs: BlobStore,
  t: { digest: string; count: number; width: 2 | 4; what: string },
): Promise<Uint8Array> {
  const what = `${t.what} tensor`;
  // Read no more than the record's tensor can hold: a larger blob is refused before a byte is read.
  const maxBytes = Math.min(t.count * t.width, Number.MAX_SAFE_INTEGER);
  const bytes = await _committedBlob(() => blobs.get(t.digest, { maxBytes }), {
    digest: t.digest,
    what,
    tooLarge: `is not ${t.count * t.width} bytes (larger than the blob limit)`,
  });
  if (bytes === null) throw _missingBlob({ digest: t.digest, what });
  if (bytes.length !== t.count * t.width) {
    throw new _Stop(
      "FAIL",
      `record contradicts its ${t.what} tensor: ${bytes.length} bytes for ${t.count} ` +
        `${8 * t.width}-bit elements`,
    );
  }
  return bytes.slice();
}

/**
 * Fetches a 16-bit tensor by digest.
 *
 * @param blobs the blob store
 * @param t digest, element count and a name for the reason
 * @returns the elements
 * @throws {_Stop} as {@link _tensorBytes}
 */
export async function _tensor16(
  blobs: BlobStore,
  t: { digest: string; count: number; what: string },
): Promise<Uint16Array> {
  const bytes = await _tensorBytes(blobs, { ...t, width: 2 });
  return new Uint16Array(bytes.buffer, bytes.byteOffset, t.count);
}

/**
 * Largest tensor (elements) one recomputation allocates: 2^28, 1 GiB of FP32. Record shapes come
 * from the prover; a larger claim is NOT_VERIFIED instead of exhausting the verifier's memory.
 */
export const MAX_RECOMPUTE_ELEMENTS = 2 ** 28;

/**
 * Refuses (NOT_VERIFIED) a recomputation whose tensor would exceed {@link MAX_RECOMPUTE_ELEMENTS}.
 *
 * @param shape the tensor's dimensions
 * @param what what the tensor is, for the reason
 * @throws {_Stop} NOT_VERIFIED above the limit
 */
export function _checkSize(shape: readonly number[], what: string): void {
  const elements = shape.reduce((a, b) => a * b, 1);
  if (elements > MAX_RECOMPUTE_ELEMENTS) {
    throw new _Stop(
      "NOT_VERIFIED",
      `${what} [${shape.join(", ")}] exceeds the verifier's limit of 2^28 elements`,
    );
  }
}
