/**
 * Content-addressed tensor blobs: a directory whose files are named by the lowercase hex SHA-256
 * of their bytes (raw little-endian tensor data). Every read is checked against its name, and
 * every size against a limit before a byte is read (the store's, lowered per call by the blob's
 * kind: {@link BLOB_MAX_BYTES}).
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { HostResourceError, InputError } from "../errors.ts";
import { BLOB_MAX_BYTES, type BlobReadOptions } from "./blob_limits.ts";
import { type FileByteSource, fileByteSource } from "./file_byte_source.ts";
import { chunkDigests, verifiedSource } from "./verified_source.ts";

/** A read-only, digest-checked blob directory. */
export interface BlobStore {
  /** Directory path. */
  readonly dir: string;
  /**
   * Returns the blob with that digest, or null when absent. The size is checked before the file
   * is read, so a blob over the limit costs one `stat`.
   * @param sha256 the digest (lowercase hex)
   * @param options `maxBytes`: this read's limit (e.g. `BLOB_MAX_BYTES.history`, or the exact
   *   length of a tensor); it lowers the store's limit, never raises it
   * @throws {InputError} `BLOB_DIGEST_MISMATCH` when the file's bytes do not hash to its name,
   *   `BLOB_TOO_LARGE` beyond the limit, `BLOB_READ` when it is no regular file or unreadable
   * @throws {Deno.errors.NotCapable} / {Deno.errors.PermissionDenied} when this process may not
   *   read it (the reader's set-up, passed on as it is)
   * @throws {RangeError} when `maxBytes` is negative or NaN
   */
  get(sha256: string, options?: BlobReadOptions): Promise<Uint8Array | null>;
  /**
   * Optional: opens the blob with that digest for random-access reads without loading it (large
   * blobs such as checkpoint shards), or null when absent. The size is checked first, then the
   * bytes are hashed through the returned handle before it is returned, whole and in 1 MiB chunks
   * (once per store for an unchanged file: same size, modification time and inode); every read
   * of the returned source hashes the chunks it covers again and refuses bytes that changed
   * since (`BLOB_CHANGED`); close it when done.
   * @param sha256 the digest (lowercase hex)
   * @param options `maxBytes`: this open's limit; it lowers `maxOpenBytes`, never raises it
   * @throws {InputError} `BLOB_DIGEST_MISMATCH`, `BLOB_TOO_LARGE`, `BLOB_READ` (and
   *   `BLOB_CHANGED` from the source's reads)
   * @throws {Deno.errors.NotCapable} / {Deno.errors.PermissionDenied} as `get`
   * @throws {RangeError} when `maxBytes` is negative or NaN
   */
  open?(sha256: string, options?: BlobReadOptions): Promise<FileByteSource | null>;
}

/** A streaming SHA-256 (e.g. the runtime's native one, injected by the command line). */
export interface BlobHasher {
  /** Appends bytes. */
  update(bytes: Uint8Array): void;
  /** The digest, lowercase hex (called once). */
  hex(): string;
}

/**
 * A blob is absent only from a folder that is there: a folder that does not exist (a mistyped
 * path) would make every committed input look withheld by the prover and FAIL honest records.
 */
async function _folderExists(dir: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dir);
  } catch (e) {
    if (_denied(e)) throw e;
    throw new InputError(
      "INPUT_MISSING",
      `Cannot read blobs: the blob folder '${dir}' does not exist (${(e as Error).name})`,
    );
  }
  if (!info.isDirectory) {
    throw new InputError("INPUT_MISSING", `Cannot read blobs: '${dir}' is not a folder`);
  }
}

/**
 * Opens a blob directory.
 *
 * @param dir directory
 * @param options `maxBytes` per blob read whole by `get` (default `BLOB_MAX_BYTES.tensor`, 4 GiB);
 *   `maxOpenBytes` per blob opened by `open` (default `BLOB_MAX_BYTES.weights`, 256 GiB: nothing
 *   is held in memory, only hashed); `hasher`: makes the SHA-256 used to check blobs (default the
 *   portable one)
 * @returns the store
 * @throws {RangeError} when a limit is not a number >= 0
 * @example
 * ```ts ignore
 * const blobs = openBlobStore("demo-out/blobs");
 * const bytes = await blobs.get("9f86d0...", { maxBytes: BLOB_MAX_BYTES.history });
 * ```
 */
export function openBlobStore(
  dir: string,
  options: { maxBytes?: number; maxOpenBytes?: number; hasher?: () => BlobHasher } = {},
): BlobStore {
  const maxBytes = _limit(options.maxBytes ?? BLOB_MAX_BYTES.tensor, "maxBytes");
  const maxOpenBytes = _limit(options.maxOpenBytes ?? BLOB_MAX_BYTES.weights, "maxOpenBytes");
  const hasher = options.hasher ?? _portable;
  // Chunk digests of blobs hashed by open, by "<sha256> <size> <mtime> <inode>": a file seen
  // unchanged is not hashed whole again, and every read of it is checked against them.
  const checked = new Map<string, readonly string[]>();
  // The file, opened only after its size passed the limit by path and again by handle (a file
  // swapped in between is refused too); null when absent or not a digest.
  const openChecked = async (sha256: string, limit: number) => {
    if (!/^[0-9a-f]{64}$/.test(sha256)) return null;
    const path = `${dir}/${sha256}`;
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (e) {
      if (_denied(e)) throw e;
      // Whatever else stops the stat may be the folder's fault (absent, a file, a link loop, a
      // name too long): that is the caller's, never a withheld blob.
      await _folderExists(dir);
      if (e instanceof Deno.errors.NotFound) return null;
      throw _unreadable(path, (e as Error).name);
    }
    // Not opened at all: a FIFO would block the open, a directory has no bytes.
    if (!info.isFile) throw _unreadable(path, "not a regular file");
    _checkSize(path, info.size, limit);
    let source: FileByteSource;
    try {
      source = await fileByteSource(path);
    } catch (e) {
      if (_denied(e)) throw e;
      // The process's open-file limit is this machine's, never the blob's (a model may commit
      // thousands of files, each held open while the record is computed).
      if (_tooManyFiles(e)) {
        throw new HostResourceError(
          `Cannot open blob '${path}': this process has too many files open (${
            (e as Error).message.split("\n")[0]
          }); raise the open-file limit (ulimit -n) and rerun`,
          { resource: "files", cause: e },
        );
      }
      throw _unreadable(path, "cannot be opened");
    }
    try {
      _checkSize(path, source.size, limit);
    } catch (e) {
      source.close();
      throw e;
    }
    return { path, info, source };
  };
  return {
    dir,
    async get(sha256: string, o: BlobReadOptions = {}): Promise<Uint8Array | null> {
      const found = await openChecked(sha256, _callLimit(o, maxBytes));
      if (found === null) return null;
      using source = found.source;
      const bytes = await _read(source, { at: 0, length: source.size, path: found.path });
      const h = hasher();
      h.update(bytes);
      if (h.hex() !== sha256) throw _mismatch(found.path);
      return bytes;
    },
    async open(sha256: string, o: BlobReadOptions = {}): Promise<FileByteSource | null> {
      const found = await openChecked(sha256, _callLimit(o, maxOpenBytes));
      if (found === null) return null;
      const { path, info, source } = found;
      try {
        const key = `${sha256} ${source.size} ${info.mtime?.getTime()} ${info.ino}`;
        let digests = checked.get(key);
        if (digests === undefined) {
          const read = (at: number, length: number) => _read(source, { at, length, path });
          const hashed = await chunkDigests(read, { size: source.size, hasher });
          if (hashed.digest !== sha256) throw _mismatch(path);
          digests = Object.freeze(hashed.digests);
          checked.set(key, digests);
        }
        return verifiedSource(source, { digests, hasher, path });
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

/** Reads a range; a file that shrank since it was opened is unreadable as a blob. */
async function _read(
  source: FileByteSource,
  r: { at: number; length: number; path: string },
): Promise<Uint8Array> {
  try {
    return await source.read(r.at, r.length);
  } catch (e) {
    if (e instanceof InputError && e.code === "FILE_SHORT_READ") {
      throw _unreadable(r.path, "it shrank while being read");
    }
    throw e;
  }
}

/** A limit: any number >= 0 (a product of record fields past 2^53, or Infinity, limits nothing). */
function _limit(v: number, name: string): number {
  if (typeof v !== "number" || !(v >= 0)) {
    throw new RangeError(`Cannot use blob limit ${name}: ${v} is not a number >= 0`);
  }
  return v;
}

function _callLimit(o: BlobReadOptions, storeLimit: number): number {
  return o.maxBytes === undefined
    ? storeLimit
    : Math.min(_limit(o.maxBytes, "maxBytes"), storeLimit);
}

function _checkSize(path: string, size: number, limit: number): void {
  if (size > limit) {
    throw new InputError(
      "BLOB_TOO_LARGE",
      `Cannot read blob '${path}': ${size} bytes exceeds the ${limit}-byte limit`,
    );
  }
}

/**
 * Whether a read failed because this process may not read the file (Deno's sandbox, or the
 * file system's permissions): the reader's own set-up, not a sign of the blob's content or its
 * absence, so it is passed on as it is (the CLI's PERMISSION error) and never judged as a
 * committed input the prover failed to produce.
 */
function _denied(e: unknown): boolean {
  return e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied;
}

/** Whether an open failed for the process's or the system's open-file limit (EMFILE, ENFILE). */
function _tooManyFiles(e: unknown): boolean {
  const cause = e instanceof Error && e.cause !== undefined ? e.cause : e;
  const code = (cause as { code?: unknown } | null)?.code;
  return code === "EMFILE" || code === "ENFILE" ||
    (cause instanceof Error && /\(os error 2[34]\)/.test(cause.message));
}

function _unreadable(path: string, why: string): InputError {
  return new InputError("BLOB_READ", `Cannot read blob '${path}': ${why}`);
}

function _mismatch(path: string): InputError {
  return new InputError(
    "BLOB_DIGEST_MISMATCH",
    `Cannot use blob '${path}': its bytes do not hash to its name`,
  );
}
