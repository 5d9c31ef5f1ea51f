/**
 * An abstract random-access byte source, so that parsers work on bytes rather than on files.
 *
 * A model file of many GiB is never read whole: the parser asks for the header, then for one
 * tensor at a time. Files, in-memory buffers and HTTP ranges can all implement this interface
 * (the file adapter lives in `src/assets/file_byte_source.ts`, since the pure core does no I/O).
 *
 * @module
 */
import { InputError } from "../../errors.ts";

/** A read-only, random-access sequence of bytes of known size. */
export interface ByteSource {
  /** Total size in bytes (a safe integer). */
  readonly size: number;
  /**
   * Reads `length` bytes starting at `offset`. Implementations may return a view that shares
   * memory with the source; callers must not write to it.
   *
   * @param offset first byte, `0 <= offset <= size`
   * @param length number of bytes, `offset + length <= size`
   * @returns exactly `length` bytes
   */
  read(offset: number, length: number): Promise<Uint8Array>;
  /**
   * Optional: reads `into.length` bytes starting at `offset` straight into the caller's array
   * (e.g. one on shared memory), without an intermediate copy. Rejects as `read` does; the
   * array's contents are unspecified after a rejection.
   *
   * @param offset first byte, `offset + into.length <= size`
   * @param into the destination, filled completely
   */
  readInto?(offset: number, into: Uint8Array): Promise<void>;
}

/**
 * Reads a range from a source and checks that the source returned exactly what was asked.
 *
 * @param source where to read from
 * @param range `offset` and `length` in bytes, plus `what` names the range in errors
 * @returns exactly `range.length` bytes
 * @throws {RangeError} when the range is not made of safe non-negative integers inside the source
 * @throws {InputError} `BYTE_SOURCE_SHORT_READ` when the source returns the wrong number of bytes
 * @example
 * ```ts
 * import { readExactly } from "./byte_source.ts";
 * import { bytesByteSource } from "./bytes_byte_source.ts";
 * const src = bytesByteSource(new Uint8Array([1, 2, 3, 4]));
 * const got = await readExactly(src, { offset: 1, length: 2, what: "middle" });
 * if (got.length !== 2 || got[0] !== 2) throw new Error();
 * ```
 */
export async function readExactly(
  source: ByteSource,
  range: { readonly offset: number; readonly length: number; readonly what: string },
): Promise<Uint8Array> {
  const { offset, length, what } = range;
  checkRange(source.size, offset, length);
  const bytes = await source.read(offset, length);
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    const got = bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes;
    throw new InputError(
      "BYTE_SOURCE_SHORT_READ",
      `Cannot read ${what}: asked for ${length} bytes at offset ${offset}, got ${got}`,
    );
  }
  return bytes;
}

/**
 * Checks that `[offset, offset + length)` is a valid range of a source of `size` bytes.
 *
 * @param size source size in bytes
 * @param offset first byte
 * @param length number of bytes
 * @throws {RangeError} when offset or length is not a safe non-negative integer or the range
 *   runs past the end
 * @example
 * ```ts
 * import { checkRange } from "./byte_source.ts";
 * checkRange(10, 2, 8);
 * ```
 */
export function checkRange(size: number, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`Cannot read bytes: offset ${offset} is not a safe non-negative integer`);
  }
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`Cannot read bytes: length ${length} is not a safe non-negative integer`);
  }
  if (offset + length > size) {
    throw new RangeError(
      `Cannot read bytes: range [${offset}, ${offset + length}) runs past the end (${size} bytes)`,
    );
  }
}
