/**
 * A random-access byte source over a file on disk, for the pure parsers of `src/model` (which
 * take any `{ size, read(offset, length) }` and never touch `Deno.*` themselves).
 *
 * Reads are served with `seek` + `read` on one open `Deno.FsFile`. Since a seek and the read
 * after it must not interleave with another read, reads are queued and run one at a time, so
 * callers may issue them concurrently. The size is taken once at open time; a file that shrinks
 * afterwards makes reads fail with `FILE_SHORT_READ` instead of returning short data.
 *
 * @module
 */
import { InputError } from "../errors.ts";

/** A byte source over an open file; close it when done (or use `using`). */
export interface FileByteSource {
  /** File size in bytes when opened. */
  readonly size: number;
  /** Reads exactly `length` bytes at `offset` into a fresh array. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** Reads exactly `into.length` bytes at `offset` into the caller's array (no extra copy). */
  readInto(offset: number, into: Uint8Array): Promise<void>;
  /** Closes the file; later reads reject. Safe to call twice. */
  close(): void;
  /** Same as `close`, for `using` declarations. */
  [Symbol.dispose](): void;
}

/**
 * Opens a file for random-access reads. Needs `--allow-read`.
 *
 * @param path file path
 * @returns the source; structurally a `ByteSource` of `src/model/safetensors`
 * @throws {InputError} `FILE_OPEN` when the file cannot be opened or is not a regular file
 * @throws {Deno.errors.NotCapable} when Deno was not given read access to it
 * @example
 * ```ts ignore
 * import { fileByteSource } from "./file_byte_source.ts";
 * using src = await fileByteSource("model.safetensors");
 * const prefix = await src.read(0, 8);
 * ```
 */
export async function fileByteSource(path: string): Promise<FileByteSource> {
  let file: Deno.FsFile;
  try {
    // Looked at first: opening a FIFO waits for a writer that may never come.
    if (!(await Deno.stat(path)).isFile) {
      throw new InputError("FILE_OPEN", `Cannot open '${path}': not a regular file`);
    }
    file = await Deno.open(path, { read: true });
  } catch (cause) {
    if (cause instanceof InputError || cause instanceof Deno.errors.NotCapable) throw cause;
    throw new InputError("FILE_OPEN", `Cannot open '${path}': ${_why(cause)}`, { cause });
  }
  const info = await file.stat();
  if (!info.isFile) {
    file.close();
    throw new InputError("FILE_OPEN", `Cannot open '${path}': not a regular file`);
  }
  const size = info.size;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  const close = (): void => {
    if (!closed) file.close();
    closed = true;
  };
  // Reads run one at a time (each seeks first), in the order they were asked for.
  const queued = <T>(read: () => Promise<T>): Promise<T> => {
    const run = queue.then(() => {
      if (closed) throw new InputError("FILE_CLOSED", `Cannot read '${path}': file is closed`);
      return read();
    });
    queue = run.catch(() => undefined);
    return run;
  };
  return Object.freeze({
    size,
    read(offset: number, length: number): Promise<Uint8Array> {
      return queued(() => _readAt(file, { path, size, offset, length }));
    },
    readInto(offset: number, into: Uint8Array): Promise<void> {
      return queued(() => _readAt(file, { path, size, offset, length: into.length }, into))
        .then(() => undefined);
    },
    close,
    [Symbol.dispose]: close,
  });
}

async function _readAt(
  file: Deno.FsFile,
  at: { path: string; size: number; offset: number; length: number },
  into?: Uint8Array,
): Promise<Uint8Array> {
  const { path, size, offset, length } = at;
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw new RangeError(
      `Cannot read '${path}': offset ${offset} and length ${length} must be safe non-negative integers`,
    );
  }
  if (offset + length > size) {
    throw new RangeError(
      `Cannot read '${path}': range [${offset}, ${offset + length}) runs past ${size} bytes`,
    );
  }
  const out = into ?? new Uint8Array(length);
  await file.seek(offset, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < length) {
    const n = await file.read(out.subarray(filled));
    if (n === null) {
      throw new InputError(
        "FILE_SHORT_READ",
        `Cannot read '${path}': file ended after ${offset + filled} bytes, expected ${
          offset + length
        }`,
      );
    }
    filled += n;
  }
  return out;
}

function _why(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
