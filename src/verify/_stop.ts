/**
 * Shared pieces of the per-record pipeline: the early-exit signal and the lookups that turn an
 * unknown asset into NOT_VERIFIED, a committed blob the prover did not produce (missing,
 * mismatching, unreadable) into FAIL with its obligation, and a self-contradicting record into
 * FAIL.
 *
 * @module
 */
import { BLOB_MAX_BYTES, type BlobStore } from "../assets/mod.ts";
import { clipText } from "../clip_text.ts";
import { InputError, isHostResourceError, isUnknownAsset } from "../errors.ts";
import type { ProverObligation } from "./record_result.ts";
import { budgetText, productBudget } from "./record_products.ts";

/**
 * Longest reason or step detail a record's result keeps: reasons quote the record's own text,
 * and a result is signed into the attestation, which every checker must still be able to read.
 */
export const _MAX_REASON = 2000;
/** Longest evidence component a result states; the verifier's own are about 100 characters. */
export const _MAX_COMPONENT = 200;

/** Ends the pipeline for one record with a status and its reason. */
export class _Stop extends Error {
  /** The reason, clipped to {@link _MAX_REASON}. */
  readonly why: string;
  /**
   * @param status FAIL or NOT_VERIFIED
   * @param why the reason (one line)
   * @param obligation the prover obligation that was not met, when that is the reason
   */
  constructor(
    readonly status: "FAIL" | "NOT_VERIFIED",
    why: string,
    readonly obligation?: ProverObligation,
  ) {
    const clipped = clipText(why, _MAX_REASON);
    super(clipped);
    this.why = clipped;
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
 * Fetches a tensor by digest and checks its byte length. Its element count is checked against
 * {@link MAX_RECOMPUTE_ELEMENTS} before the blob store is asked for it, and the blob is read into
 * one buffer (no copy, unless the store hands back a view that is not aligned to the element).
 * A blob of another length than the record's shape holds, shorter or longer, that hashes to its
 * digest is the record's contradiction with its own tensor (finding `contradiction`), bytes
 * against bytes; one that does not hash is the prover's unmet obligation.
 *
 * @param blobs the blob store
 * @param t digest, shape, bytes per element (2 or 4) and a name for the reason
 * @returns the raw bytes (the store's buffer; read, never written)
 * @throws {_Stop} NOT_VERIFIED over the element limit; FAIL with `obligation: "committed-input"`
 *   when missing, corrupted or over the blob limit; FAIL when its length contradicts the record
 */
export async function _tensorBytes(
  blobs: BlobStore,
  t: { digest: string; shape: readonly number[]; width: 2 | 4; what: string },
): Promise<Uint8Array> {
  const what = `${t.what} tensor`;
  const length = _checkSize(t.shape, what) * t.width;
  const blob = { digest: t.digest, what };
  const contradiction = (bytes: number) => _lengthContradiction({ ...t, what }, { bytes, length });
  // Read no more than the record's tensor can hold: a larger blob is refused before a byte is read.
  const read = async () => {
    try {
      return await blobs.get(t.digest, { maxBytes: length });
    } catch (e) {
      const larger = e instanceof InputError && e.code === "BLOB_TOO_LARGE";
      if (!larger || blobs.open === undefined) throw e;
      // Hashed in chunks, never held in memory (up to the most a tensor the verifier would hold
      // can have), to tell the record's contradiction with its own tensor from a blob that is not
      // the committed one; a larger blob stays the prover's unmet obligation, unhashed.
      using source = await blobs.open(t.digest, { maxBytes: _hashedTensorBytes(t.width) });
      if (source === null) return null; // removed since
      throw contradiction(source.size);
    }
  };
  const bytes = await _committedBlob(read, {
    ...blob,
    tooLarge: `is larger than the ${length} bytes its shape holds`,
  });
  if (bytes === null) throw _missingBlob(blob);
  if (bytes.length !== length) throw contradiction(bytes.length);
  return bytes.byteOffset % t.width === 0 ? bytes : bytes.slice();
}

/**
 * The FAIL of a committed tensor that hashes to its digest but whose length is not the one its
 * shape holds: the record's contradiction with its own tensor, bytes against bytes.
 *
 * @param t the tensor's shape, bytes per element and name (e.g. `input tensor`)
 * @param o the blob's length and the length the shape holds (bytes)
 * @returns the stop to throw
 */
export function _lengthContradiction(
  t: { readonly shape: readonly number[]; readonly width: 2 | 4; readonly what: string },
  o: { readonly bytes: number; readonly length: number | bigint },
): _Stop {
  return new _Stop(
    "FAIL",
    `record contradicts its ${t.what}: ${o.bytes} bytes, its shape [${t.shape.join(", ")}] of ` +
      `${8 * t.width}-bit elements holds ${o.length}`,
  );
}

/**
 * Fetches a 16-bit tensor by digest.
 *
 * @param blobs the blob store
 * @param t digest, shape and a name for the reason
 * @returns the elements
 * @throws {_Stop} as {@link _tensorBytes}
 */
export async function _tensor16(
  blobs: BlobStore,
  t: { digest: string; shape: readonly number[]; what: string },
): Promise<Uint16Array> {
  const bytes = await _tensorBytes(blobs, { ...t, width: 2 });
  return new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
}

/**
 * Largest tensor (elements) one recomputation allocates: 2^28, 1 GiB of FP32. Record shapes come
 * from the prover; a larger claim is NOT_VERIFIED instead of exhausting the verifier's memory.
 */
export const MAX_RECOMPUTE_ELEMENTS: number = 2 ** 28;

/**
 * Most bytes of a committed tensor's blob the verifier hashes without holding it (to tell its
 * length's contradiction from a blob that is not the committed one, or to check a tensor a
 * refusal keeps from being read): what a tensor within {@link MAX_RECOMPUTE_ELEMENTS} can have,
 * within the store's limit on a tensor. A larger blob is refused by its size before a byte is
 * hashed, so a record's tiny shape with a blob of the store's 4 GiB costs no more hashing than a
 * tensor the verifier holds (review h190's bound, for every tensor).
 *
 * @param width bytes per element
 * @returns the limit in bytes
 */
export function _hashedTensorBytes(width: 2 | 4): number {
  return Math.min(BLOB_MAX_BYTES.tensor, MAX_RECOMPUTE_ELEMENTS * width);
}

/**
 * Refuses (NOT_VERIFIED) a tensor over {@link MAX_RECOMPUTE_ELEMENTS}: one a recomputation would
 * allocate, or one a record names by digest, before the blob store is asked for it.
 *
 * @param shape the tensor's dimensions (positive integers)
 * @param what what the tensor is, for the reason
 * @returns its element count
 * @throws {_Stop} NOT_VERIFIED above the limit
 */
export function _checkSize(shape: readonly number[], what: string): number {
  const elements = shape.reduce((a, b) => a * b, 1);
  if (elements > MAX_RECOMPUTE_ELEMENTS) {
    // Exact in the reason even past 2^53, where the product above is only rounded (still > 2^28).
    const exact = shape.reduce((a, b) => a * BigInt(b), 1n);
    throw new _Stop(
      "NOT_VERIFIED",
      `${what} [${shape.join(", ")}] has ${exact} elements, over the verifier's limit of 2^28`,
    );
  }
  return elements;
}

/**
 * Stops a record whose recomputation would take more products than its audit's budget
 * (`maxRecordProducts`, default `MAX_RECORD_PRODUCTS`). A cost never hides a FAIL: every branch
 * runs it through {@link _refusable}, so that its reason waits for the record's contradictions
 * and committed inputs and is said only before the recomputation.
 *
 * @param products the recomputation's products (`recordProducts`, `forwardProducts`,
 *   `replayProducts`)
 * @param o `what`: the record's work, for the reason (e.g. `the attention block of 1048576
 *   tokens`); `budget`: the audit's budget a record (`productBudget`; undefined: the default)
 * @throws {_Stop} NOT_VERIFIED above the budget, naming the count and the budget
 */
export function _checkCost(
  products: number,
  o: { readonly what: string; readonly budget?: number | undefined },
): void {
  const budget = productBudget(o.budget);
  if (products > budget) {
    const whose = o.budget === undefined
      ? "the verifier's budget"
      : "the audit's budget (--max-record-products)";
    throw new _Stop(
      "NOT_VERIFIED",
      `${o.what} takes about ${products.toPrecision(3)} products to recompute, over ` +
        `${whose} of ${budgetText(budget)} a record`,
    );
  }
}

/** What a refusable check gave back when it said NOT_VERIFIED. */
export const _REFUSED = Symbol("refused");

/**
 * Runs a check whose NOT_VERIFIED must wait for the record's contradictions: its reason is kept
 * in `refusals` (in order: the first is said) and {@link _REFUSED} comes back; a FAIL goes on.
 */
export function _refusable<T>(refusals: string[], check: () => T): T | typeof _REFUSED {
  try {
    return check();
  } catch (e) {
    return _keepRefusal(refusals, e);
  }
}

/** {@link _refusable} for a check that reads assets (e.g. a record's kernel resolved by id). */
export async function _refusableAsync<T>(
  refusals: string[],
  check: () => Promise<T>,
): Promise<T | typeof _REFUSED> {
  try {
    return await check();
  } catch (e) {
    return _keepRefusal(refusals, e);
  }
}

/** Keeps a NOT_VERIFIED's reason in `refusals`; anything else is thrown on. */
function _keepRefusal(refusals: string[], e: unknown): typeof _REFUSED {
  if (!(e instanceof _Stop) || e.status !== "NOT_VERIFIED") throw e;
  refusals.push(e.why);
  return _REFUSED;
}

/**
 * Says the first refusal waiting in `refusals` (see {@link _refusable}), once every check that
 * could FAIL the record has passed: called just before the recomputation it refuses.
 *
 * @param refusals the waiting reasons
 * @throws {_Stop} NOT_VERIFIED with the first of them, if any
 */
export function _sayRefusal(refusals: readonly string[]): void {
  const first = refusals[0];
  if (first !== undefined) throw new _Stop("NOT_VERIFIED", first);
}

/**
 * The error to throw for a NOT_VERIFIED that stops the checks (e.g. a checkpoint not modelled)
 * when refusals are waiting: the first of them, as it would have been said before it.
 *
 * @param refusals the waiting reasons (see {@link _refusable})
 * @param e what was thrown
 * @returns the first refusal as NOT_VERIFIED, or `e` unchanged
 */
export function _refusedFirst(refusals: readonly string[], e: unknown): unknown {
  const first = refusals[0];
  return e instanceof _Stop && e.status === "NOT_VERIFIED" && first !== undefined
    ? new _Stop("NOT_VERIFIED", first)
    : e;
}

/**
 * What a driver's `RangeError` (the record's tokens, passes or positions against its checkpoint's
 * shapes) means for the record: its contradiction with `what`. The host short of memory is no
 * contradiction: that error, and any other, goes on.
 *
 * @param e what the driver threw
 * @param what what the record contradicts, for the reason (e.g. `its checkpoint`)
 * @returns the FAIL to throw, or `e` unchanged
 */
export function _contradiction(e: unknown, what: string): unknown {
  return e instanceof RangeError && !isHostResourceError(e)
    ? new _Stop("FAIL", `record contradicts ${what}: ${e.message}`)
    : e;
}
