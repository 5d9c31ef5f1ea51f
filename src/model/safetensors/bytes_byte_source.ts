/**
 * A {@link ByteSource} over bytes already in memory.
 *
 * @module
 */
import { type ByteSource, checkRange } from "./byte_source.ts";

/**
 * Wraps a byte array as a source. Reads return views into the same memory (no copy).
 *
 * @param bytes the whole content; not copied, so it must not change while in use
 * @returns a source whose `size` is `bytes.length`
 * @throws {TypeError} when `bytes` is not a `Uint8Array`
 * @example
 * ```ts
 * import { bytesByteSource } from "./bytes_byte_source.ts";
 * const src = bytesByteSource(new Uint8Array([9, 8, 7]));
 * const tail = await src.read(1, 2);
 * if (src.size !== 3 || tail[0] !== 8 || tail[1] !== 7) throw new Error();
 * ```
 */
export function bytesByteSource(bytes: Uint8Array): ByteSource {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`Cannot wrap bytes: expected a Uint8Array, got ${typeof bytes}`);
  }
  return Object.freeze({
    size: bytes.length,
    read(offset: number, length: number): Promise<Uint8Array> {
      try {
        checkRange(bytes.length, offset, length);
      } catch (e) {
        return Promise.reject(e);
      }
      return Promise.resolve(bytes.subarray(offset, offset + length));
    },
    readInto(offset: number, into: Uint8Array): Promise<void> {
      try {
        checkRange(bytes.length, offset, into.length);
      } catch (e) {
        return Promise.reject(e);
      }
      into.set(bytes.subarray(offset, offset + into.length));
      return Promise.resolve();
    },
  });
}
