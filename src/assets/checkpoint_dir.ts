/**
 * A checkpoint directory on disk as the named byte sources `openDecoderCheckpoint` reads (files
 * opened on first use, random-access reads, never read whole).
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { type FileByteSource, fileByteSource } from "./file_byte_source.ts";

/** The files of a directory, opened on demand; close when done. */
export interface CheckpointDir {
  /** Directory path. */
  readonly dir: string;
  /**
   * Opens a plain file name of the directory, or null when there is no such file; throws
   * `InputError` `CHECKPOINT_DIR` when it cannot be reached (a link loop) and `FILE_OPEN` when it
   * cannot be opened.
   */
  open(name: string): Promise<FileByteSource | null>;
  /**
   * Every entry name of the directory, of any kind, read as it is iterated (so that a weight
   * file beside the checkpoint's is seen); throws `InputError` `CHECKPOINT_DIR` when the
   * directory cannot be listed.
   */
  names(): AsyncIterable<string>;
  /** Closes every opened file. */
  close(): void;
  /** Same as `close`, for `using`. */
  [Symbol.dispose](): void;
}

/**
 * Opens a directory for checkpoint reads. Needs `--allow-read`.
 *
 * @param dir directory path
 * @returns the directory's files
 * @throws {InputError} `CHECKPOINT_DIR` when the path is not a directory;
 *   {Deno.errors.NotCapable} when the runtime does not grant reading it
 * @example
 * ```ts ignore
 * using files = await checkpointDir("tables/models/qwen3-tiny-dense");
 * ```
 */
export async function checkpointDir(dir: string): Promise<CheckpointDir> {
  try {
    if (!(await Deno.stat(dir)).isDirectory) throw new Error("not a directory");
  } catch (e) {
    // The runtime's refusal is the caller's missing permission (the CLI's PERMISSION), not the
    // checkpoint's fault.
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "CHECKPOINT_DIR",
      `Cannot open checkpoint '${dir}': ${(e as Error).message.split("\n")[0]}`,
    );
  }
  const opened = new Map<string, FileByteSource>();
  const close = () => {
    for (const f of opened.values()) f.close();
    opened.clear();
  };
  return {
    dir,
    async open(name: string): Promise<FileByteSource | null> {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..")) return null;
      const have = opened.get(name);
      if (have !== undefined) return have;
      try {
        if (!(await Deno.stat(`${dir}/${name}`)).isFile) return null;
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return null;
        if (e instanceof Deno.errors.NotCapable) throw e;
        // Any other way the file cannot be reached (a link loop) is the checkpoint's fault.
        throw new InputError(
          "CHECKPOINT_DIR",
          `Cannot open '${name}' in checkpoint '${dir}': ${(e as Error).message.split("\n")[0]}`,
        );
      }
      const f = await fileByteSource(`${dir}/${name}`);
      opened.set(name, f);
      return f;
    },
    async *names(): AsyncIterable<string> {
      try {
        for await (const e of Deno.readDir(dir)) yield e.name;
      } catch (e) {
        if (e instanceof Deno.errors.NotCapable) throw e;
        throw new InputError(
          "CHECKPOINT_DIR",
          `Cannot list checkpoint '${dir}': ${(e as Error).message.split("\n")[0]}`,
        );
      }
    },
    close,
    [Symbol.dispose]: close,
  };
}
