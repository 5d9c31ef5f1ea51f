/**
 * The claim log file of `claims append`: held under a lock file for the whole append (one
 * appender at a time), read and chain-checked, then replaced at once by a complete new version
 * (written to a temporary sibling and renamed over it), so a reader sees the old log or the new
 * one, never half a line.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { type ClaimLog, parseClaimLog } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import { removeOnInterrupt } from "../cleanup.ts";
import { ioCause } from "../io_cause.ts";
import { MAX_LOG_BYTES } from "../load_inputs.ts";
import { readTextFile } from "../read_json_file.ts";

/** A log read for appending. */
export interface LogForAppend {
  /** The log's text ("" when the file does not exist yet or is empty). */
  readonly text: string;
  /** The parsed log, or null when it has no record yet. */
  readonly log: ClaimLog | null;
  /** Size, modification time and inode when read (null: no file), to notice a change. */
  readonly stamp: string | null;
  /** The file's permission bits (0o644 for a new log). */
  readonly mode: number;
  /** The file's group (null for a new log, or where the platform has none). */
  readonly gid: number | null;
}

/**
 * Takes the log's lock: creates `<log>.lock`, which must not exist.
 *
 * @param path the log file
 * @returns `unlock()`, which removes the lock file
 * @throws {InputError} `LOG_LOCKED` when the lock exists (another append runs, or one was killed:
 *   remove the lock file by hand then; the message names the process that took it),
 *   `OUTPUT_WRITE` when it cannot be created
 * @example
 * ```ts ignore
 * const unlock = await lockLog("log/claims.jsonl");
 * try { ... } finally { await unlock(); }
 * ```
 */
export async function lockLog(path: string): Promise<() => Promise<void>> {
  const lock = `${path}.lock`;
  let file: Deno.FsFile | undefined;
  try {
    file = await Deno.open(lock, { write: true, createNew: true });
    // Created: the lock is this process's from here on, and goes again if naming the holder
    // fails (a full disk left an empty lock that refused every later append).
    await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
  } catch (e) {
    if (file !== undefined) await Deno.remove(lock).catch(() => {});
    if (file === undefined && e instanceof Deno.errors.AlreadyExists) {
      throw new InputError(
        "LOG_LOCKED",
        `Cannot append to '${path}': '${lock}' exists, taken by ${await _holder(lock)} ` +
          "(another append is running; if none is, one was killed: remove the lock file)",
      );
    }
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("OUTPUT_WRITE", `Cannot lock '${path}': ${ioCause(e)}`);
  } finally {
    file?.close();
  }
  const release = removeOnInterrupt(lock);
  await _removeLeftovers(path);
  return () => release(true);
}

/**
 * Removes the temporary copies of this log that killed appends left (`<log>.tmp-<uuid>`): only an
 * append holding the lock writes one, so with the lock held none of them is in use.
 */
async function _removeLeftovers(path: string): Promise<void> {
  const name = basename(path);
  const pattern = new RegExp(
    `^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.tmp-[0-9a-f-]{36}$`,
  );
  try {
    for await (const e of Deno.readDir(dirname(path))) {
      if (e.isFile && pattern.test(e.name)) {
        await Deno.remove(join(dirname(path), e.name)).catch(() => {});
      }
    }
  } catch { /* an unreadable folder: nothing to tidy */ }
}

/**
 * Reads and chain-checks the log, or notes that there is none yet.
 *
 * @param path the log file
 * @returns its text, parsed records and stamp
 * @throws {InputError} the codes of `readTextFile` and `parseClaimLog`
 * @example
 * ```ts ignore
 * const { log } = await readLogForAppend("log/claims.jsonl");
 * ```
 */
export async function readLogForAppend(path: string): Promise<LogForAppend> {
  const info = await _stat(path);
  if (info === null) return { text: "", log: null, stamp: null, mode: 0o644, gid: null };
  const text = await readTextFile(path, { maxBytes: MAX_LOG_BYTES });
  return {
    text,
    log: text === "" ? null : parseClaimLog(text),
    stamp: _stamp(info),
    mode: (info.mode ?? 0o644) & 0o777,
    gid: info.gid,
  };
}

/**
 * Replaces the log with its new text, unless it changed since it was read.
 *
 * @param path the log file
 * @param o the new `text` and the log as it was read (`read`)
 * @throws {InputError} `LOG_CHAIN` when the file changed since it was read, `OUTPUT_WRITE` on I/O
 *   failure (the old log is then unchanged)
 * @example
 * ```ts ignore
 * await replaceLog("log/claims.jsonl", { text, read });
 * ```
 */
export async function replaceLog(
  path: string,
  o: { readonly text: string; readonly read: LogForAppend },
): Promise<void> {
  const tmp = `${path}.tmp-${crypto.randomUUID()}`;
  const release = removeOnInterrupt(tmp);
  try {
    {
      // On the disk before it replaces the log: a power cut after the rename finds the new log
      // whole, not a renamed file whose data never reached the disk.
      using f = await Deno.open(tmp, { write: true, createNew: true, mode: o.read.mode });
      await _keepAccess(tmp, o.read);
      const bytes = new TextEncoder().encode(o.text);
      for (let at = 0; at < bytes.length;) at += await f.write(bytes.subarray(at));
      await f.syncData();
    }
    const now = await _stat(path);
    if ((now === null ? null : _stamp(now)) !== o.read.stamp) {
      throw new InputError(
        "LOG_CHAIN",
        `Cannot append to '${path}': it changed while the record was being built (not written)`,
      );
    }
    await Deno.rename(tmp, path);
    await syncFolder(dirname(path)); // the rename itself on the disk
  } catch (e) {
    if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot write '${path}': ${(e as Error).message.split("\n")[0]}`,
    );
  } finally {
    await release(true); // renamed: nothing left to remove
  }
}

/**
 * Gives the new log the old one's permission bits (the mode given at creation is narrowed by the
 * umask) and, where this process may, its group: readers the log had keep reading it. A group the
 * process does not belong to cannot be kept (the file keeps the process's group).
 */
async function _keepAccess(path: string, read: LogForAppend): Promise<void> {
  // A new log: the umask decides, as for any new file.
  if (Deno.build.os === "windows" || read.stamp === null) return;
  await Deno.chmod(path, read.mode);
  if (read.gid === null || (await Deno.lstat(path)).gid === read.gid) return;
  try {
    await Deno.chown(path, null, read.gid);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
  }
}

/**
 * The log file's own metadata. A link is refused: the log is replaced by renaming over its path,
 * which would replace the link, not the file it names (and the blobs would land beside the link).
 */
async function _stat(path: string): Promise<Deno.FileInfo | null> {
  try {
    const info = await Deno.lstat(path);
    if (info.isSymlink) {
      throw new InputError(
        "INPUT_MISSING",
        `Cannot append to '${path}': it is a symbolic link (name the log file itself)`,
      );
    }
    if (!info.isFile) throw new InputError("INPUT_MISSING", `Cannot read '${path}': not a file`);
    return info;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

function _stamp(info: Deno.FileInfo): string {
  return `${info.size} ${info.mtime?.getTime()} ${info.ino}`;
}

/** Who took a lock, from its content (`<pid>`), for the refusal; bounded and plain. */
async function _holder(lock: string): Promise<string> {
  let head = "";
  try {
    using f = await Deno.open(lock, { read: true });
    const buf = new Uint8Array(32);
    head = new TextDecoder().decode(buf.subarray(0, (await f.read(buf)) ?? 0));
  } catch { /* removed meanwhile, or unreadable */ }
  const m = /^(\d{1,10})\n?$/.exec(head);
  return m === null ? "an unknown process" : `process ${m[1]}`;
}

/**
 * Flushes a folder's entries to the disk (a rename or a new name in it), where the platform lets a
 * folder be opened; elsewhere nothing is done.
 *
 * @param dir the folder
 * @example
 * ```ts ignore
 * await syncFolder("log");
 * ```
 */
export async function syncFolder(dir: string): Promise<void> {
  try {
    using f = await Deno.open(dir, { read: true });
    await f.sync();
  } catch { /* not supported here: the data itself was synced */ }
}
