/**
 * A committed tensor checked without being held: for a record whose recomputation is refused
 * (over the verifier's size limit or the audit's budget) but whose committed tensors may still
 * show its FAIL, so that the refusal bounds the verifier's memory as well as its time.
 *
 * @module
 */
import type { BlobStore } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import {
  _committedBlob,
  _hashedTensorBytes,
  _lengthContradiction,
  _missingBlob,
  _tensor16,
  _tensorBytes,
  MAX_RECOMPUTE_ELEMENTS,
} from "./_stop.ts";

/**
 * Checks a committed tensor as `_tensorBytes` does (present, hashing to its digest, of the length
 * its shape holds), holding none of it: the store's chunked hashing reader (`blobs.open`) hashes
 * it a chunk at a time. A store without one reads a tensor within the element limit and drops
 * it, and leaves one over it unread; a tensor over the element limit is hashed only if its blob
 * is no larger than one within it can be, else left unchecked, as is a blob over the store's limit
 * on a shape that holds more. Either way the refusal that kept it from being read stands.
 *
 * @param blobs the blob store
 * @param t digest, shape, bytes per element (2 or 4) and a name for the reason
 * @returns whether it was checked (false: left unread)
 * @throws {_Stop} FAIL with `obligation: "committed-input"` when missing, corrupted or longer
 *   than its shape holds; FAIL when its length contradicts the record
 */
export async function _checkTensorUnheld(
  blobs: BlobStore,
  t: { digest: string; shape: readonly number[]; width: 2 | 4; what: string },
): Promise<boolean> {
  const elements = t.shape.reduce((a, b) => a * b, 1);
  if (blobs.open === undefined) {
    if (elements > MAX_RECOMPUTE_ELEMENTS) return false;
    await _tensorBytes(blobs, t);
    return true;
  }
  const what = `${t.what} tensor`;
  const blob = { digest: t.digest, what };
  // Exact past 2^53, where the element count above is only rounded.
  const length = t.shape.reduce((a, b) => a * BigInt(b), 1n) * BigInt(t.width);
  // Hashed only up to the bytes a tensor the verifier would hold can have, so a refused record
  // costs at most that much hashing a tensor, not the store's 4 GiB: a larger blob on a shape
  // over the element limit is left unchecked (its refusal stands), on one within it the prover's
  // unmet obligation, as `_tensorBytes` says.
  const limit = _hashedTensorBytes(t.width);
  const open = async () => {
    try {
      return await blobs.open!(t.digest, { maxBytes: limit });
    } catch (e) {
      if (e instanceof InputError && e.code === "BLOB_TOO_LARGE" && length > BigInt(limit)) {
        return undefined;
      }
      throw e;
    }
  };
  const source = await _committedBlob(open, {
    ...blob,
    tooLarge: `is larger than the ${length} bytes its shape holds`,
  });
  if (source === undefined) return false;
  if (source === null) throw _missingBlob(blob);
  using held = source;
  if (BigInt(held.size) !== length) {
    throw _lengthContradiction({ ...t, what }, { bytes: held.size, length });
  }
  return true;
}

/**
 * A record's 16-bit committed tensors, in order: read and held when nothing is refused, else each
 * checked a chunk at a time and held by nothing (`_checkTensorUnheld`), the refusal bounding the
 * verifier's memory as well as its time.
 *
 * @param blobs the blob store
 * @param tensors digest, shape and a name for the reason of each
 * @param refused whether a refusal waits (then nothing is held)
 * @returns the tensors (null when refused) and whether every one was checked
 * @throws {_Stop} as `_tensor16` and {@link _checkTensorUnheld}
 */
export async function _tensors16(
  blobs: BlobStore,
  tensors: readonly { digest: string; shape: readonly number[]; what: string }[],
  refused: boolean,
): Promise<{ held: Uint16Array[] | null; checked: boolean }> {
  if (refused) {
    let checked = true;
    for (const t of tensors) {
      checked = await _checkTensorUnheld(blobs, { ...t, width: 2 }) && checked;
    }
    return { held: null, checked };
  }
  const held: Uint16Array[] = [];
  for (const t of tensors) held.push(await _tensor16(blobs, t));
  return { held, checked: true };
}

/**
 * A check's result that `_sayRefusal` has made sure of: tensors not held are held back only for
 * a refusal, said before they would be used.
 *
 * @param held the tensors, or null where a refusal kept them from being read
 * @returns them
 * @throws {Error} when they are null (no refusal was waiting: a bug, not the record's)
 */
export function _held<T>(held: T | null): T {
  if (held === null) throw new Error("internal: tensors left unread without a refusal");
  return held;
}
