/**
 * The one rule every command follows for where its outputs go: missing folders (the output
 * folder, or the folder a new file goes into, and their parents) are created; a path on the way
 * that exists but is not a folder is refused with a coded error, never written through.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { ioCause } from "../io_cause.ts";

/**
 * Creates a folder and its missing parents.
 *
 * @param dir the folder (a relative path is relative to the working directory)
 * @returns the topmost folder created (remove it to undo everything), or null when `dir` existed
 * @throws {InputError} `OUTPUT_WRITE` when `dir` or one of its parents exists and is not a folder,
 *   or a folder cannot be created (permissions, read-only file system)
 * @example
 * ```ts
 * import { makeDirs } from "./make_dirs.ts";
 * const tmp = await Deno.makeTempDir();
 * if (await makeDirs(`${tmp}/a/b`) !== `${tmp}/a`) throw new Error();
 * if (await makeDirs(`${tmp}/a/b`) !== null) throw new Error();
 * await Deno.remove(tmp, { recursive: true });
 * ```
 */
export function makeDirs(dir: string): Promise<string | null> {
  return _makeDirs(dir, `create folder '${dir}'`);
}

/**
 * Creates the folder a new file goes into, and its missing parents (see {@link makeDirs}).
 *
 * @param path the file about to be written
 * @returns the topmost folder created, or null when the file's folder existed
 * @throws {InputError} `OUTPUT_WRITE` as {@link makeDirs}
 * @example
 * ```ts ignore
 * await makeParentDirs("out/results/results-0.jsonl");
 * ```
 */
export function makeParentDirs(path: string): Promise<string | null> {
  return _makeDirs(parentDir(trimSlashes(path)), `write '${path}'`);
}

/**
 * Creates `dir` top-down only where needed, touching nothing above the first folder that exists:
 * `mkdir` is tried first, so a command allowed to write its output folder only (the narrowest
 * Deno permissions) never needs to read the folders above it.
 */
async function _makeDirs(dir: string, action: string): Promise<string | null> {
  const at = trimSlashes(dir);
  try {
    await Deno.mkdir(at);
    return at;
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    if (e instanceof Deno.errors.AlreadyExists) {
      if ((await _stat(at))?.isDirectory) return null;
      throw _notFolder(action, at);
    }
    if (e instanceof Deno.errors.NotADirectory) throw _notFolder(action, await _fileOnTheWay(at));
    if (!(e instanceof Deno.errors.NotFound) || parentDir(at) === at) {
      throw new InputError("OUTPUT_WRITE", `Cannot create folder '${at}': ${ioCause(e)}`);
    }
  }
  // The parent is missing: create it (and its own missing parents), then this folder.
  const top = await _makeDirs(parentDir(at), action);
  try {
    await Deno.mkdir(at);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    if (!(e instanceof Deno.errors.AlreadyExists && (await _stat(at))?.isDirectory)) {
      throw new InputError("OUTPUT_WRITE", `Cannot create folder '${at}': ${ioCause(e)}`);
    }
  }
  return top ?? at;
}

/** The file somewhere above `at` that blocks it, for the message (`at` if it cannot be told). */
async function _fileOnTheWay(at: string): Promise<string> {
  for (let p = parentDir(at); p !== parentDir(p); p = parentDir(p)) {
    try {
      if (!(await Deno.stat(p)).isDirectory) return p;
    } catch {
      // Not there, a path under the file, or not readable: keep walking up, or give up below.
    }
  }
  return at;
}

function _notFolder(action: string, at: string): InputError {
  return new InputError(
    "OUTPUT_WRITE",
    `Cannot ${action}: '${at}' is not a folder (nothing is overwritten)`,
  );
}

/**
 * The folder holding a path, by its text (`a/b` -> `a`, `b` -> `.`, `/a` -> `/`).
 *
 * @param path a path without trailing slash
 * @returns its folder; `.` and `/` are their own folder
 * @example
 * ```ts
 * import { parentDir } from "./make_dirs.ts";
 * if (parentDir("a/b") !== "a" || parentDir("b") !== "." || parentDir("/a") !== "/") throw new Error();
 * ```
 */
export function parentDir(path: string): string {
  const i = path.lastIndexOf("/");
  if (i < 0) return ".";
  return i === 0 ? "/" : path.slice(0, i);
}

/**
 * A path without trailing slashes (`/` stays `/`), as the folders `makeDirs` returns are written.
 *
 * @param path a path
 * @returns the path without trailing slashes
 * @example
 * ```ts
 * import { trimSlashes } from "./make_dirs.ts";
 * if (trimSlashes("out/a//") !== "out/a" || trimSlashes("/") !== "/") throw new Error();
 * ```
 */
export function trimSlashes(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") || "/" : path;
}

/** The folder entry at `path` (following links), or null when nothing is there. */
async function _stat(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(path);
  } catch (e) {
    // A path under a file does not exist either; the walk up then finds that file.
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot write into '${path}': ${ioCause(e)}`,
    );
  }
}
