/**
 * Content-addressed tensor blobs: a directory whose files are named by the lowercase hex SHA-256
 * of their bytes (raw little-endian tensor data). Every read is checked against its name.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { sha256Hex } from "../sha256_hex.ts";

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
}

/**
 * Opens a blob directory.
 *
 * @param dir directory
 * @param options `maxBytes` per blob (default 4 GiB)
 * @returns the store
 * @example
 * ```ts ignore
 * const blobs = openBlobStore("demo-out/blobs");
 * const w = await blobs.get(record.predicate.workload.weights.sha256);
 * ```
 */
export function openBlobStore(dir: string, options: { maxBytes?: number } = {}): BlobStore {
  const maxBytes = options.maxBytes ?? 4 * 1024 ** 3;
  return {
    dir,
    async get(sha256: string): Promise<Uint8Array | null> {
      if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
      const path = `${dir}/${sha256}`;
      let info: Deno.FileInfo;
      try {
        info = await Deno.stat(path);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return null;
        throw new InputError("BLOB_READ", `Cannot read blob '${path}': ${(e as Error).name}`);
      }
      if (info.size > maxBytes) {
        throw new InputError("BLOB_TOO_LARGE", `Cannot read blob '${path}': ${info.size} bytes`);
      }
      const bytes = await Deno.readFile(path);
      if (sha256Hex(bytes) !== sha256) {
        throw new InputError(
          "BLOB_DIGEST_MISMATCH",
          `Cannot use blob '${path}': its bytes do not hash to its name`,
        );
      }
      return bytes;
    },
  };
}
