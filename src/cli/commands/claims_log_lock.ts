/**
 * The lock of a claim log (`<log>.lock`): one `claims append` at a time. The lock is an advisory
 * file lock (`flock`) held on that file for the whole append, so it goes with the process that
 * holds it however it ends: an append killed outright (SIGKILL, the OOM killer, a power cut)
 * leaves a file that nobody holds, and the next append takes it over instead of refusing every
 * later append until someone removes it by hand. The file names its holder (`<pid>`) for the
 * refusal a concurrent append gets.
 *
 * An append that finishes removes the file before letting go of it; one that takes a file must
 * therefore check, once it holds it, that the path still names that file (else the file it holds
 * is a removed one that another append may also think it holds, and it starts again). A lock file
 * written without the advisory lock (by an append of an earlier version, which refused any lock
 * file that existed) is held by no process either and is taken over likewise. Only a file that an
 * append could have written is taken over (empty, or a process id line): anything else at that
 * name is someone's file, refused and left as it is.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { InputError } from "../../errors.ts";
import { type FileIdentity, fileIdentity, namesFile, removeOnInterrupt } from "../cleanup.ts";
import { ioCause } from "../../io_cause.ts";
import { ownSibling, tempSiblingPattern } from "../temp_sibling.ts";

/** Tries before giving up when the lock file keeps being replaced under this append. */
const _TRIES = 8;

/**
 * Takes the log's lock: creates `<log>.lock` or takes over one that no process holds, and holds
 * it until the returned function is called (or the process ends).
 *
 * @param path the log file
 * @returns `unlock()`, which removes the lock file, then lets go of it
 * @throws {InputError} `LOG_LOCKED` when another process holds the lock (another append runs;
 *   the message names it) or the lock's name holds a file no append wrote (not touched),
 *   `OUTPUT_WRITE` when the lock cannot be created or written, or its name
 *   is taken by something other than a plain file of that one name (a symbolic or hard link is
 *   never written through)
 * @example
 * ```ts ignore
 * const unlock = await lockLog("log/claims.jsonl");
 * try { ... } finally { await unlock(); }
 * ```
 */
export async function lockLog(path: string): Promise<() => Promise<void>> {
  const lock = ownSibling(path, ".lock");
  for (let i = 0; i < _TRIES; i++) {
    const held = await _take(path, lock);
    if (held === null) continue;
    // The file held, and only while the name still holds it (never a folder or another file put
    // there meanwhile, nor anything in it).
    const release = removeOnInterrupt(lock, {
      recursive: false,
      identity: fileIdentity(held.stat),
    });
    await _removeLeftovers(path);
    return async () => {
      await release(true); // removed while still held: see the module doc
      held.file.close();
    };
  }
  throw new InputError(
    "LOG_LOCKED",
    `Cannot append to '${path}': '${lock}' was replaced ${_TRIES} times while this append took ` +
      "it (other appends are taking turns: retry)",
  );
}

/** A lock file held, and what `stat` said of it once held. */
interface _Held {
  readonly file: Deno.FsFile;
  readonly stat: Deno.FileInfo;
}

/**
 * One try: the held lock file with this process's id written in it, or null when the path no
 * longer names the file this try opened (try again).
 */
async function _take(path: string, lock: string): Promise<_Held | null> {
  let opened: _Opened | null = null;
  let held: FileIdentity | undefined; // the lock file once held, where inode numbers exist
  try {
    opened = await _open(path, lock);
    if (opened === null) return null;
    const { file } = opened;
    if (!(await file.tryLock(true))) {
      throw new InputError(
        "LOG_LOCKED",
        `Cannot append to '${path}': '${lock}' is held by ${await _holder(file)} ` +
          "(another append is running: retry when it ends)",
      );
    }
    const stat = await file.stat();
    held = fileIdentity(stat);
    const now = await _lstat(lock);
    if (now === null || now.ino !== stat.ino) return null;
    if (!(await _lockText(file))) {
      held = undefined; // not this tool's file: left as it is
      throw new InputError(
        "LOG_LOCKED",
        `Cannot append to '${path}': '${lock}' holds something no append wrote (a lock holds ` +
          "only a process id): not touched; move it away or name another log",
      );
    }
    // A lock another user of a shared log left is held through a read-only handle: it still
    // names its last holder (the file is not ours to write).
    if (opened.writable) {
      await file.truncate(0);
      await file.seek(0, Deno.SeekMode.Start); // read up to its end by the check above
      const text = new TextEncoder().encode(`${Deno.pid}\n`);
      for (let at = 0; at < text.length;) at += await file.write(text.subarray(at));
    }
    opened = null;
    return { file, stat };
  } catch (e) {
    // Ours once held: it goes again if naming the holder fails (a full disk left an empty lock),
    // while its name still holds it; an empty lock left behind is taken over by the next append.
    if (held !== undefined && opened !== null && namesFile(lock, held)) {
      await Deno.remove(lock).catch(() => {});
    }
    if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("OUTPUT_WRITE", `Cannot lock '${path}': ${ioCause(e)}`);
  } finally {
    opened?.file.close();
  }
}

/** An open lock file, and whether this process may write it. */
interface _Opened {
  readonly file: Deno.FsFile;
  readonly writable: boolean;
}

/**
 * Opens the lock file: a new one (with the log's permission bits and group, so that the users
 * sharing a log share its lock), or the one that is there when it is a plain file of one name (a
 * symbolic or hard link, or anything else in its place, is refused, never written through), for
 * reading only where this user may not write it; null when it went meanwhile.
 */
async function _open(path: string, lock: string): Promise<_Opened | null> {
  try {
    const file = await Deno.open(lock, { read: true, write: true, createNew: true });
    await _shareLike(lock, path);
    return { file, writable: true };
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
  }
  const seen = await _lstat(lock);
  if (seen === null) return null;
  _plain(path, lock, seen);
  let file: Deno.FsFile;
  let writable = true;
  try {
    file = await Deno.open(lock, { read: true, write: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    if (!(e instanceof Deno.errors.PermissionDenied)) throw e;
    try {
      file = await Deno.open(lock, { read: true });
      writable = false;
    } catch (e2) {
      if (e2 instanceof Deno.errors.NotFound) return null;
      throw e2;
    }
  }
  // Replaced (by a link, say) between the look and the open: not the file that was looked at.
  const info = await file.stat();
  if (info.ino !== seen.ino) {
    file.close();
    return null;
  }
  try {
    _plain(path, lock, info);
  } catch (e) {
    file.close();
    throw e;
  }
  return { file, writable };
}

/** Refuses a lock name that is not a plain file with that one name. */
function _plain(path: string, lock: string, info: Deno.FileInfo): void {
  if (!info.isFile || info.isSymlink) {
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot lock '${path}': '${lock}' is not a plain file (remove it or name another log)`,
    );
  }
  if (info.nlink !== null && info.nlink !== 1) {
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot lock '${path}': '${lock}' is a plain file with other names (a hard link: remove it ` +
        "or name another log)",
    );
  }
}

/**
 * Gives a new lock the log's permission bits and group where the log exists (the umask narrows
 * a new file's mode), so that another user who may append to the log may take its lock.
 */
async function _shareLike(lock: string, path: string): Promise<void> {
  if (Deno.build.os === "windows") return;
  const log = await _lstat(path);
  if (log === null || !log.isFile || log.mode === null) return;
  try {
    await Deno.chmod(lock, log.mode & 0o666);
    if (log.gid !== null && (await Deno.lstat(lock)).gid !== log.gid) {
      await Deno.chown(lock, null, log.gid);
    }
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    // A group this user is not in cannot be given: the lock keeps the user's own.
  }
}

/** The path's own metadata (null: gone). */
async function _lstat(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/**
 * Removes the temporary copies of this log that killed appends left (`tempSibling`): only an
 * append holding the lock writes one, so with the lock held none of them is in use.
 */
async function _removeLeftovers(path: string): Promise<void> {
  const pattern = tempSiblingPattern(basename(path));
  try {
    for await (const e of Deno.readDir(dirname(path))) {
      if (e.isFile && pattern.test(e.name)) {
        await Deno.remove(join(dirname(path), e.name)).catch(() => {});
      }
    }
  } catch { /* an unreadable folder: nothing to tidy */ }
}

/**
 * Whether an open lock file holds what an append writes there: nothing (a lock just created, or
 * one whose holder could not name itself) or one process id line. Anything else at that name is
 * someone's file, which an append must neither truncate nor remove.
 */
async function _lockText(file: Deno.FsFile): Promise<boolean> {
  const size = (await file.stat()).size;
  if (size === 0) return true;
  if (size > _MAX_LOCK_BYTES) return false;
  const buf = new Uint8Array(size);
  for (let at = 0; at < size;) {
    const n = await file.read(buf.subarray(at));
    if (n === null) return false;
    at += n;
  }
  return _PID_LINE.test(new TextDecoder().decode(buf));
}

/** A lock's content: the holder's process id and a newline (a digit string cut short passes). */
const _PID_LINE = /^(\d{1,10})\n?$/;
/** The longest such content: ten digits and a newline. */
const _MAX_LOCK_BYTES = 11;

/**
 * Who holds a lock, from its content (`<pid>`), for the refusal; bounded and plain. Read through
 * the handle this try opened (and checked to be a plain file), never by the name again: whatever
 * was put there meanwhile (a FIFO would block the read) is not opened.
 */
async function _holder(file: Deno.FsFile): Promise<string> {
  let head = "";
  try {
    await file.seek(0, Deno.SeekMode.Start);
    const buf = new Uint8Array(32);
    head = new TextDecoder().decode(buf.subarray(0, (await file.read(buf)) ?? 0));
  } catch { /* unreadable */ }
  const m = _PID_LINE.exec(head);
  return m === null ? "an unknown process" : `process ${m[1]}`;
}
