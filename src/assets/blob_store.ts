/**
 * Content-addressed tensor blobs: a directory whose files are named by the lowercase hex SHA-256
 * of their bytes (raw little-endian tensor data). Every read is checked against its name.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { InputError } from "../errors.ts";
import { sha256Hex } from "../sha256_hex.ts";
import { type FileByteSource, fileByteSource } from "./file_byte_source.ts";

/** A read-only, digest-checked blob directory. */
export interface BlobStore {
  /** Directory path. */
  readonly dir: string;
  /**
   * Returns the blob with that digest, or null when absent.
   * @throws {InputError} `BLOB_DIGEST_MISMATCH` when the file's bytes do not hash to its name,
   *   `BLOB_TOO_LARGE` beyond the limit
   */
  get(sha256: string): Promise<Uint8Array | null>;
  /**
   * Optional: opens the blob with that digest for random-access reads without loading it (large
   * blobs such as checkpoint shards), or null when absent. The bytes are hashed through the
   * returned handle before it is returned (once per store for an unchanged file: same size,
   * modification time and inode); close it when done.
   * @throws {InputError} `BLOB_DIGEST_MISMATCH`, `BLOB_TOO_LARGE` (beyond `maxOpenBytes`),
   *   `BLOB_READ`
   */
  open?(sha256: string): Promise<FileByteSource | null>;
}

/** A streaming SHA-256 (e.g. the runtime's native one, injected by the command line). */
export interface BlobHasher {
  /** Appends bytes. */
  update(bytes: Uint8Array): void;
  /** The digest, lowercase hex (called once). */
  hex(): string;
}

/** Bytes read per step when a blob is hashed through an open handle. */
const _CHUNK = 16 << 20;

/**
 * Opens a blob directory.
 *
 * @param dir directory
 * @param options `maxBytes` per blob read whole by `get` (default 4 GiB); `maxOpenBytes` per blob
 *   opened by `open` (default 256 GiB: nothing is held in memory, only hashed); `hasher`: makes
 *   the SHA-256 used to check blobs (default the portable one)
 * @returns the store
 * @example
 * ```ts ignore
 * const blobs = openBlobStore("demo-out/blobs");
 * const bytes = await blobs.get("9f86d0...");
 * ```
 */
export function openBlobStore(
  dir: string,
  options: { maxBytes?: number; maxOpenBytes?: number; hasher?: () => BlobHasher } = {},
): BlobStore {
  const maxBytes = options.maxBytes ?? 4 * 1024 ** 3;
  const maxOpenBytes = options.maxOpenBytes ?? 256 * 1024 ** 3;
  const digestOf = (bytes: Uint8Array) => {
    if (options.hasher === undefined) return sha256Hex(bytes);
    const h = options.hasher();
    h.update(bytes);
    return h.hex();
  };
  const checked = new Set<string>(); // "<sha256> <size> <mtime> <inode>" of blobs hashed by open
  const stat = async (sha256: string, limit: number) => {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    const path = `${dir}/${sha256}`;
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw new InputError("BLOB_READ", `Cannot read blob '${path}': ${(e as Error).name}`);
    }
    if (info.size > limit) {
      throw new InputError("BLOB_TOO_LARGE", `Cannot read blob '${path}': ${info.size} bytes`);
    }
    return { path, info };
  };
  const mismatch = (path: string) =>
    new InputError(
      "BLOB_DIGEST_MISMATCH",
      `Cannot use blob '${path}': its bytes do not hash to its name`,
    );
  return {
    dir,
    async get(sha256: string): Promise<Uint8Array | null> {
      const found = await stat(sha256, maxBytes);
      if (found === null) return null;
      const bytes = await Deno.readFile(found.path);
      if (digestOf(bytes) !== sha256) throw mismatch(found.path);
      return bytes;
    },
    async open(sha256: string): Promise<FileByteSource | null> {
      const found = await stat(sha256, maxOpenBytes);
      if (found === null) return null;
      const source = await fileByteSource(found.path);
      try {
        const { info } = found;
        const key = `${sha256} ${source.size} ${info.mtime?.getTime()} ${info.ino}`;
        if (!checked.has(key)) {
          const h = options.hasher?.() ?? _portable();
          for (let at = 0; at < source.size; at += _CHUNK) {
            h.update(await source.read(at, Math.min(_CHUNK, source.size - at)));
          }
          if (h.hex() !== sha256) throw mismatch(found.path);
          checked.add(key);
        }
        return source;
      } catch (e) {
        source.close();
        throw e;
      }
    },
  };
}

/** The portable streaming SHA-256. */
function _portable(): BlobHasher {
  const h = sha256.create();
  return { update: (b) => void h.update(b), hex: () => bytesToHex(h.digest()) };
}
