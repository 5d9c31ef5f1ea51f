/**
 * A byte source whose every read is checked against the bytes hashed when it was opened: the file
 * is hashed once in chunks of {@link VERIFIED_CHUNK} bytes (beside its whole-file digest), and a
 * later read hashes the chunks it covers again and compares. Without this, bytes written into a
 * blob after it was hashed (a local writer, or a network file system whose server changes the
 * file) would be computed with unchecked, while the result named the hashed digest.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import type { FileByteSource } from "./file_byte_source.ts";

/** Bytes per checked chunk (1 MiB: 8,192 digests for an 8 GB weight file). */
export const VERIFIED_CHUNK = 1 << 20;

/** A streaming SHA-256 (the blob store's). */
export interface ChunkHasher {
  /** Appends bytes. */
  update(bytes: Uint8Array): void;
  /** The digest, lowercase hex (called once). */
  hex(): string;
}

/**
 * Wraps an open source: reads are widened to whole chunks, each chunk's digest compared with
 * `digests` before any byte of it is handed out.
 *
 * @param source the open file (its size is the size the digests cover)
 * @param o `digests`: the hex SHA-256 of each chunk in order; `hasher`: makes a SHA-256; `path`:
 *   named in errors
 * @returns a source with the same size and reads
 * @throws {RangeError} when the digests do not cover the size
 * @example
 * ```ts ignore
 * const checked = verifiedSource(source, { digests, hasher, path });
 * const header = await checked.read(0, 8);
 * ```
 */
export function verifiedSource(
  source: FileByteSource,
  o: {
    readonly digests: readonly string[];
    readonly hasher: () => ChunkHasher;
    readonly path: string;
  },
): FileByteSource {
  const { size } = source;
  if (o.digests.length !== Math.ceil(size / VERIFIED_CHUNK)) {
    throw new RangeError(
      `Cannot check '${o.path}': ${o.digests.length} chunk digests for ${size} bytes`,
    );
  }
  const check = (bytes: Uint8Array, chunk: number): void => {
    const h = o.hasher();
    h.update(bytes);
    if (h.hex() !== o.digests[chunk]) {
      throw new InputError(
        "BLOB_CHANGED",
        `Cannot read blob '${o.path}': its bytes at ${chunk * VERIFIED_CHUNK} changed after it ` +
          "was hashed (the file was written while in use)",
      );
    }
  };
  const readInto = async (offset: number, into: Uint8Array): Promise<void> => {
    const length = into.length;
    if (
      !Number.isSafeInteger(offset) || offset < 0 || offset + length > size || length === 0
    ) {
      // The source's own refusal of a bad range (and nothing to check for an empty read).
      return await source.readInto(offset, into);
    }
    const first = Math.floor(offset / VERIFIED_CHUNK);
    const last = Math.floor((offset + length - 1) / VERIFIED_CHUNK);
    for (let c = first; c <= last; c++) {
      const c0 = c * VERIFIED_CHUNK;
      const c1 = Math.min(size, c0 + VERIFIED_CHUNK);
      if (c0 >= offset && c1 <= offset + length) {
        // A whole chunk inside the range: read in place, checked where it landed.
        const at = into.subarray(c0 - offset, c1 - offset);
        await source.readInto(c0, at);
        check(at, c);
      } else {
        const whole = await source.read(c0, c1 - c0);
        check(whole, c);
        const from = Math.max(offset, c0);
        const to = Math.min(offset + length, c1);
        into.set(whole.subarray(from - c0, to - c0), from - offset);
      }
    }
  };
  return Object.freeze({
    size,
    async read(offset: number, length: number): Promise<Uint8Array> {
      if (!Number.isSafeInteger(length) || length < 0 || length > size) {
        return await source.read(offset, length); // the source's refusal
      }
      const out = new Uint8Array(length);
      await readInto(offset, out);
      return out;
    },
    readInto,
    close: () => source.close(),
    [Symbol.dispose]: () => source.close(),
  });
}

/**
 * Hashes a source in chunks of {@link VERIFIED_CHUNK} bytes: the whole-file digest and each
 * chunk's, from one read of every byte.
 *
 * @param read reads a range of the source (the store's checked read)
 * @param o `size`: the source's size; `hasher`: makes a SHA-256
 * @returns the whole digest and the chunk digests (hex)
 * @example
 * ```ts ignore
 * const { digest, digests } = await chunkDigests((at, n) => source.read(at, n), { size, hasher });
 * ```
 */
export async function chunkDigests(
  read: (at: number, length: number) => Promise<Uint8Array>,
  o: { readonly size: number; readonly hasher: () => ChunkHasher },
): Promise<{ digest: string; digests: string[] }> {
  const whole = o.hasher();
  const digests: string[] = [];
  const step = 16 * VERIFIED_CHUNK;
  for (let at = 0; at < o.size; at += step) {
    const bytes = await read(at, Math.min(step, o.size - at));
    whole.update(bytes);
    for (let c = 0; c < bytes.length; c += VERIFIED_CHUNK) {
      const h = o.hasher();
      h.update(bytes.subarray(c, c + VERIFIED_CHUNK));
      digests.push(h.hex());
    }
  }
  return { digest: whole.hex(), digests };
}
