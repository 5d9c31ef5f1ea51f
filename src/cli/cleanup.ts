/**
 * Removal of what a command created but must not leave behind (temporary files and folders, the
 * demo's throw-away private key, an output folder of a failed run), on every exit path: the
 * command's own `finally`, and Ctrl-C or SIGTERM, which skip every `finally`; and what such an
 * interrupt says of an outcome the command had not reported yet.
 *
 * @module
 */
import { normalize, resolve } from "node:path";
import { escapeForTerminal } from "../escape_text.ts";
import { makeDirs, parentDir, trimSlashes } from "./make_dirs.ts";

/**
 * Which file a name held when this process wrote it (device and inode numbers): a removal by
 * name checks that the name still holds that file, so a file another run put there meanwhile (or
 * a user's, after this run's was taken away) is never removed.
 */
export interface FileIdentity {
  /** The device the file is on. */
  readonly dev: number;
  /** Its inode number on that device. */
  readonly ino: number;
}

/**
 * The identity of a file from its `Deno.lstat` information.
 *
 * @param info what `Deno.lstat` returned for it
 * @returns its identity; undefined where the platform gives no inode numbers (Windows)
 * @example
 * ```ts
 * import { fileIdentity } from "./cleanup.ts";
 * const tmp = await Deno.makeTempFile();
 * if (fileIdentity(await Deno.lstat(tmp))?.ino !== (await Deno.lstat(tmp)).ino) throw new Error();
 * await Deno.remove(tmp);
 * ```
 */
export function fileIdentity(info: Deno.FileInfo): FileIdentity | undefined {
  return info.ino === null ? undefined : { dev: info.dev, ino: info.ino };
}

/**
 * Whether a path names, now, the file an identity was taken from (same device and inode; a link
 * at the path is not followed). Synchronous: a signal handler asks it.
 *
 * @param path the name to look at
 * @param identity the file's identity (`fileIdentity`)
 * @returns true when the path holds that file; false when it holds another or nothing
 * @example
 * ```ts
 * import { fileIdentity, namesFile } from "./cleanup.ts";
 * const tmp = await Deno.makeTempFile();
 * const identity = fileIdentity(await Deno.lstat(tmp));
 * if (identity !== undefined && !namesFile(tmp, identity)) throw new Error();
 * await Deno.remove(tmp);
 * ```
 */
export function namesFile(path: string, identity: FileIdentity): boolean {
  try {
    const now = Deno.lstatSync(path);
    return now.dev === identity.dev && now.ino === identity.ino;
  } catch {
    return false; // gone already
  }
}

/** Whether `path` names the file `identity` was taken from (always, without an identity). */
function _isStill(path: string, identity: FileIdentity | undefined): boolean {
  return identity === undefined || namesFile(path, identity);
}

/**
 * What to remove: a path (`recursive`: with everything in it; `own`: only the outputs this
 * process wrote under it, then the path itself while empty, unless `keep`), and the folders
 * above it up to `upTo` (each only while empty). With `identity`, the path only while it is
 * still that file.
 */
interface _Removal {
  readonly path: string;
  readonly recursive: boolean;
  /**
   * `keep`: the folder itself stays; `written`: what was written under it while pending, each
   * with the identity it had then.
   */
  readonly own?: {
    readonly keep: boolean;
    readonly root: string;
    readonly written: Map<string, FileIdentity | undefined>;
  };
  readonly upTo: string | undefined;
  readonly identity?: FileIdentity;
}

const _pending = new Set<_Removal>();
/** What an interrupt says before the process ends (see {@link sayOnInterrupt}). */
const _notes = new Set<() => string | null>();

/**
 * Records an output this process has written (a file in place, or a folder it created) with each
 * output folder it lies in whose command is still running (`createOwnedDir`), so that such a
 * folder takes it away again, and nothing else, when that command fails or is interrupted. What
 * is written outside any such folder, or after its command ended, is never taken away.
 *
 * @param path the file or folder
 * @param identity the file's identity when it was written: it is taken away only while the name
 *   still holds that file
 * @example
 * ```ts ignore
 * await Deno.link(tmp, path);
 * noteWritten(path, identity);
 * ```
 */
export function noteWritten(path: string, identity?: FileIdentity): void {
  const at = resolve(path);
  for (const r of _pending) {
    if (r.own !== undefined && at.startsWith(`${r.own.root}/`)) r.own.written.set(at, identity);
  }
}

/**
 * Removes, deepest first, the outputs this process wrote under a folder (files, then folders
 * while empty), then the folder itself while empty unless `keep`: another run's files in the
 * same folder stay, and so does the folder holding them.
 */
function _removeOwn(own: NonNullable<_Removal["own"]>): void {
  const mine = [...own.written].sort(([a], [b]) => b.length - a.length);
  for (const [p, identity] of mine) {
    if (!_isStill(p, identity)) continue; // another file under the name now: not ours
    try {
      Deno.removeSync(p);
    } catch { /* gone already, or a folder that holds another run's files */ }
  }
  own.written.clear();
  if (own.keep) return;
  try {
    Deno.removeSync(own.root);
  } catch { /* not empty: another run's files are in it */ }
}

/** Carries out one removal (synchronously: the signal handler runs it too). */
function _remove(r: _Removal): boolean {
  if (r.own !== undefined) {
    _removeOwn(r.own);
    if (r.own.keep) return false; // the folder was there before: nothing above it is ours
  } else if (_isStill(r.path, r.identity)) {
    try {
      Deno.removeSync(r.path, { recursive: r.recursive });
    } catch { /* already gone, or not empty */ }
  }
  for (const dir of _emptyParents(r)) {
    try {
      Deno.removeSync(dir);
    } catch {
      break; // not empty: something else lives there
    }
  }
  return true;
}
/** Signals that end a command with its cleanup: Ctrl-C, kill, and a closed terminal or session. */
const _SIGNALS = [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const;
const _handlers = new Map<Deno.Signal, () => void>();

/**
 * Registers a path to remove if the process is interrupted, until the returned function is
 * called; that function removes the path when `remove` is true. With `upTo` (a folder at or
 * above the path, created by this command), the folders from the path's parent up to it are
 * removed afterwards too, each only while empty: another run may have written into a parent
 * meanwhile, and what it wrote stays.
 *
 * @param path a file or folder this command created
 * @param options `recursive` (default true: the path with everything in it; false: only while
 *   empty), `upTo`, `identity` (the path is removed only while it is still that file: another
 *   run's file put under the name meanwhile stays)
 * @returns `release(remove)`: forget the path, deleting it first when `remove` is true
 * @example
 * ```ts ignore
 * const release = removeOnInterrupt(tmpDir);
 * try { ... } finally { await release(true); }
 * ```
 */
export function removeOnInterrupt(
  path: string,
  options: { recursive?: boolean; upTo?: string; identity?: FileIdentity | undefined } = {},
): (remove: boolean) => Promise<void> {
  const removal: _Removal = {
    path,
    recursive: options.recursive ?? true,
    upTo: options.upTo,
    ...(options.identity === undefined ? {} : { identity: options.identity }),
  };
  _pending.add(removal);
  _listen();
  return (remove: boolean) => {
    _pending.delete(removal);
    _unlistenIdle();
    if (remove) _remove(removal);
    return Promise.resolve();
  };
}

/** The folders above a removal's path up to its `upTo`, nearest first (none without one). */
function _emptyParents(r: _Removal): string[] {
  const up = r.upTo === undefined ? undefined : trimSlashes(r.upTo);
  const path = trimSlashes(r.path);
  if (up === undefined || path === up || !path.startsWith(up === "/" ? "/" : `${up}/`)) return [];
  const out: string[] = [];
  for (let at = parentDir(path);; at = parentDir(at)) {
    out.push(at);
    if (at === up || at === parentDir(at)) return out;
  }
}

/**
 * Creates a folder, and its missing parents, if it does not exist yet, and registers it for
 * tidying when the command fails or is interrupted: the outputs this process wrote into it
 * (`noteWritten`) are removed, then the folder and the parents it created while they are empty.
 * Whatever another run wrote into the folder meanwhile stays, with the folders holding it; an
 * existing folder is never removed (only this run's outputs in it are).
 *
 * @param dir folder path
 * @param options `shared`: others may write into the folder once it exists (a claim log's folder,
 *   which another append may lock as soon as it is there): it is removed only while empty, and
 *   what this command put in it must be removed by the command itself
 * @returns `done(ok)`: on failure (`ok` false) the folders the command created are removed
 * @throws {InputError} `OUTPUT_WRITE` when a path on the way is not a folder or a folder cannot
 *   be created (see `makeDirs`)
 * @example
 * ```ts ignore
 * const done = await createOwnedDir(out);
 * ```
 */
export async function createOwnedDir(
  dir: string,
  options: { shared?: boolean } = {},
): Promise<(ok: boolean) => Promise<void>> {
  // `a/./b` and `a/x/../b` as `a/b`: the folders removed are walked up by name.
  dir = normalize(dir);
  const created = await makeDirs(dir);
  const shared = options.shared ?? false;
  // The folders made here are this run's outputs too: a folder around them whose command fails
  // takes them away while empty, even once this one's own cleanup is released.
  if (created !== null) {
    for (let at = trimSlashes(dir);; at = parentDir(at)) {
      noteWritten(at);
      if (at === created || at === parentDir(at)) break;
    }
  }
  if (created === null && shared) return () => Promise.resolve();
  const removal: _Removal = {
    path: trimSlashes(dir),
    recursive: false,
    ...(shared ? {} : {
      own: { keep: created === null, root: resolve(trimSlashes(dir)), written: new Map() },
    }),
    upTo: created ?? undefined,
  };
  _pending.add(removal);
  _listen();
  return (ok: boolean) => {
    _pending.delete(removal);
    _unlistenIdle();
    if (!ok) _remove(removal);
    return Promise.resolve();
  };
}

/**
 * Registers what to say if the process is interrupted from now on, until the returned function is
 * called: a line on stderr, printed after the removals and before the process ends (for an
 * outcome that already happened although the command could not report it yet, such as a record
 * already appended, which a rerun would append twice). `say` runs in the signal handler and
 * returns the line, or null for nothing to say.
 *
 * @param say the line to print (escaped for the terminal), or null
 * @returns `forget()`: nothing more is said
 * @example
 * ```ts ignore
 * const forget = sayOnInterrupt(() => "record 3 was appended: do not append it again");
 * try { ... } finally { forget(); }
 * ```
 */
export function sayOnInterrupt(say: () => string | null): () => void {
  const note = () => say(); // its own entry, however often the same function is registered
  _notes.add(note);
  _listen();
  return () => {
    _notes.delete(note);
    _unlistenIdle();
  };
}

function _listen(): void {
  if (_handlers.size > 0) return;
  for (const [signal, code] of _SIGNALS) {
    const handler = () => {
      // Latest first: files made inside a folder go before the folder.
      for (const r of [..._pending].reverse()) _remove(r);
      for (const say of _notes) {
        try {
          const line = say();
          if (line !== null) {
            Deno.stderr.writeSync(new TextEncoder().encode(`${escapeForTerminal(line)}\n`));
          }
        } catch { /* nothing more can be said */ }
      }
      Deno.exit(code);
    };
    try {
      Deno.addSignalListener(signal, handler);
      _handlers.set(signal, handler);
    } catch { /* signals not supported on this platform */ }
  }
}

/** Stops listening once nothing is left to remove or say. */
function _unlistenIdle(): void {
  if (_pending.size === 0 && _notes.size === 0) _unlisten();
}

function _unlisten(): void {
  for (const [signal, handler] of _handlers) Deno.removeSignalListener(signal, handler);
  _handlers.clear();
}
