/**
 * The claim log file of `claims append` (held under its lock for the whole append:
 * `claims_log_lock.ts`): read and chain-checked, then replaced at once by a complete new version
 * (written to a temporary sibling and renamed over it), so a reader sees the old log or the new
 * one, never half a line.
 *
 * @module
 */
import { dirname } from "node:path";
import { type ClaimLog, parseClaimLog } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import {
  type FileIdentity,
  fileIdentity,
  namesFile,
  removeOnInterrupt,
  sayOnInterrupt,
} from "../cleanup.ts";
import { MAX_LOG_BYTES } from "../load_inputs.ts";
import { readTextFile } from "../read_json_file.ts";
import { tempSibling } from "../temp_sibling.ts";

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
 * @param o the new `text`, the log as it was read (`read`), and `appended`: what an interrupt says
 *   once the new log is in place, until the returned function is called (the record is in the
 *   log though the command has not said so yet: a rerun would append it twice)
 * @returns `forget()`: call it once the append has been reported
 * @throws {InputError} `LOG_CHAIN` when the file changed since it was read, `OUTPUT_WRITE` on I/O
 *   failure (the old log is then unchanged)
 * @example
 * ```ts ignore
 * const forget = await replaceLog("log/claims.jsonl", { text, read, appended: "record 3 ..." });
 * ```
 */
export async function replaceLog(
  path: string,
  o: { readonly text: string; readonly read: LogForAppend; readonly appended?: string },
): Promise<() => void> {
  const tmp = tempSibling(path);
  const release = removeOnInterrupt(tmp);
  let forget = () => {};
  try {
    let identity: FileIdentity | undefined;
    {
      // On the disk before it replaces the log: a power cut after the rename finds the new log
      // whole, not a renamed file whose data never reached the disk.
      using f = await Deno.open(tmp, { write: true, createNew: true, mode: o.read.mode });
      await _keepAccess(tmp, o.read);
      const bytes = new TextEncoder().encode(o.text);
      for (let at = 0; at < bytes.length;) at += await f.write(bytes.subarray(at));
      await f.syncData();
      identity = fileIdentity(await f.stat());
    }
    // Said from before the rename: an interrupt may be handled before this append sees the rename
    // return, so the handler looks whether the log is the new file by now.
    let renamed = false;
    const { appended } = o;
    if (appended !== undefined) {
      const written = identity;
      forget = sayOnInterrupt(() =>
        renamed || (written !== undefined && namesFile(path, written)) ? appended : null
      );
    }
    const now = await _stat(path);
    if ((now === null ? null : _stamp(now)) !== o.read.stamp) {
      throw new InputError(
        "LOG_CHAIN",
        `Cannot append to '${path}': it changed while the record was being built (not written)`,
      );
    }
    await Deno.rename(tmp, path);
    renamed = true;
    await syncFolder(dirname(path)); // the rename itself on the disk
  } catch (e) {
    forget();
    if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot write '${path}': ${(e as Error).message.split("\n")[0]}`,
    );
  } finally {
    await release(true); // renamed: nothing left to remove
  }
  return forget;
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
