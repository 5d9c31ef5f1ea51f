/**
 * Writes output files without ever overwriting what a user had: refuse an existing path, create
 * the missing folders on the way (`makeDirs`: never through a file), write to a temporary sibling
 * and publish it under its name with a hard link, which fails when the name exists (even if it
 * appeared a moment ago: a rename would replace it). Each file written is noted (`noteWritten`),
 * so that a failed command removes its own outputs and no one else's.
 *
 * @module
 */
import { normalize } from "node:path";
import { InputError } from "../errors.ts";
import { ioCause } from "../io_cause.ts";
import { type FileIdentity, fileIdentity, noteWritten, removeOnInterrupt } from "./cleanup.ts";
import { makeParentDirs, parentDir, trimSlashes } from "./make_dirs.ts";
import { tempSibling } from "./temp_sibling.ts";

/**
 * Writes bytes to a path that must not exist yet; the folders it goes into are created when
 * missing (and removed again when the write fails). The path is normalised first (`lnk/../x` is
 * `x`): Deno resolves `..` by the text for most operations when permissions are given by path
 * (`--allow-write`) but by the file system for a removal, and by the file system for all under
 * `-A`; without `..` every check, write and removal names the same file.
 *
 * @param path destination
 * @param data bytes or text
 * @param options `mode` (e.g. 0o600 for private keys); `published`, called as soon as the file
 *   is in place, before anything else runs (see {@link publishNew})
 * @returns the identity of the file written (undefined where the platform has no inode numbers)
 * @throws {InputError} `OUTPUT_EXISTS` when the path exists, or appears before the file is in
 *   place; `OUTPUT_WRITE` when a folder on the way is a file or cannot be created, and on I/O
 *   failure; {Deno.errors.NotCapable} when the runtime does not grant the write
 * @example
 * ```ts ignore
 * await writeNewFile("out.json", "{}\n");
 * ```
 */
export async function writeNewFile(
  path: string,
  data: Uint8Array | string,
  options: {
    mode?: number;
    published?: ((identity: FileIdentity | undefined) => void) | undefined;
  } = {},
): Promise<FileIdentity | undefined> {
  path = normalize(path);
  await refuseExisting(path);
  const created = await makeParentDirs(path);
  // The folders created for it, each only while empty (another file may have gone in meanwhile).
  const releaseDirs = created === null
    ? undefined
    : removeOnInterrupt(parentDir(trimSlashes(path)), { recursive: false, upTo: created });
  const tmp = tempSibling(path);
  const release = removeOnInterrupt(tmp);
  let ok = false;
  try {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    await Deno.writeFile(tmp, bytes, { createNew: true, mode: options.mode ?? 0o644 });
    const identity = await publishNew(tmp, path, { published: options.published });
    ok = true;
    // The folders made for it belong to this run too: an output folder it lies in takes them
    // away again, while empty, if the command fails later (`createOwnedDir`).
    if (created !== null) {
      for (let at = parentDir(trimSlashes(path));; at = parentDir(at)) {
        noteWritten(at);
        if (at === created || at === parentDir(at)) break;
      }
    }
    return identity;
  } catch (e) {
    // The runtime's refusal is the caller's missing permission (the CLI's PERMISSION, naming the
    // flag), not a failed write.
    if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot write '${path}': ${(e as Error).message.split("\n")[0]}`,
    );
  } finally {
    await release(true); // published or not, the temporary name goes
    await releaseDirs?.(!ok);
  }
}

/**
 * Publishes a complete temporary file under its destination name, never replacing anything: a
 * hard link fails when the name exists, however recently it appeared (a check followed by a
 * rename would replace a file another run put there in between; where the file system has no
 * hard links, the temporary file is renamed onto a name checked free). From just before the link
 * until `published` has run, an interrupt (Ctrl-C, SIGTERM) removes the destination while it is
 * still this file; after it the file is noted as this run's output (`noteWritten`). The
 * temporary name is left for the caller to remove.
 *
 * @param tmp the temporary file, complete
 * @param path its destination
 * @param options `published`: called right after the file is in place, before anything else can
 *   run: a caller that must take the file away again on a later failure registers it there, with
 *   its identity, so that no interrupt finds it registered by no one
 * @returns the file's identity (undefined where the platform has no inode numbers)
 * @throws {InputError} `OUTPUT_EXISTS` when the name is taken (left as it is); the system's error
 *   on other failures (a link refused for any reason but a file system without hard links is
 *   one: nothing is renamed then)
 * @example
 * ```ts ignore
 * await Deno.writeFile(tmp, bytes, { createNew: true });
 * try { await publishNew(tmp, "out.json"); } finally { await Deno.remove(tmp); }
 * ```
 */
export async function publishNew(
  tmp: string,
  path: string,
  options: { published?: ((identity: FileIdentity | undefined) => void) | undefined } = {},
): Promise<FileIdentity | undefined> {
  const identity = fileIdentity(await Deno.lstat(tmp));
  // Without an identity (no inode numbers) the name could be another run's until the link is
  // done: nothing is registered then.
  const release = identity === undefined
    ? () => Promise.resolve()
    : removeOnInterrupt(path, { recursive: false, identity });
  try {
    await Deno.link(tmp, path);
  } catch (e) {
    try {
      if (e instanceof Deno.errors.AlreadyExists) {
        throw new InputError(
          "OUTPUT_EXISTS",
          `Cannot write '${path}': it appeared meanwhile (not overwritten)`,
        );
      }
      // Any other failure (no write permission on the folder, a folder gone, too many links) is
      // the write's: only a file system without hard links falls back.
      if (!_noHardLinks(e)) throw e;
      // A file system without hard links (FAT, exFAT): the name is checked and the file renamed
      // onto it, as before links were used (a file appearing between the two could be replaced).
      await refuseExisting(path);
      await Deno.rename(tmp, path);
    } catch (e2) {
      await release(false);
      throw e2;
    }
  }
  try {
    noteWritten(path, identity);
    options.published?.(identity);
  } finally {
    await release(false);
  }
  return identity;
}

/**
 * Whether a failed `Deno.link` says that the file system has no hard links: `EPERM` (what FAT and
 * exFAT answer on Linux and macOS) or an operation not supported. Deno gives `EPERM` and `EACCES`
 * (no write permission on the folder) the same class, `PermissionDenied`: they are told apart by
 * the error's `code`, else by the system's error number in its message (1 is `EPERM`); one that
 * says neither is taken for a file system without hard links, as before (the rename onto a
 * checked name then fails on its own if the folder cannot be written).
 */
function _noHardLinks(e: unknown): boolean {
  if (e instanceof Deno.errors.NotSupported) return true;
  if (!(e instanceof Deno.errors.PermissionDenied)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === "string" && code !== "") return code === "EPERM";
  const os = /\(os error (\d+)\)/.exec(e.message)?.[1];
  return os === undefined || os === "1";
}

/**
 * Refuses a path that exists (a file, a folder, a link, even a dangling one).
 *
 * @param path an output about to be written
 * @throws {InputError} `OUTPUT_EXISTS` when something is there
 * @example
 * ```ts
 * import { refuseExisting } from "./write_new_file.ts";
 * await refuseExisting("/nonexistent/out.json"); // nothing there: no error
 * ```
 */
export async function refuseExisting(path: string): Promise<void> {
  if (await _exists(path)) {
    throw new InputError(
      "OUTPUT_EXISTS",
      `Cannot write '${path}': it already exists (not overwritten)`,
    );
  }
}

async function _exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    // Nothing can exist under a file: `makeDirs` refuses that file when the folders are made.
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return false;
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("OUTPUT_WRITE", `Cannot write '${path}': ${ioCause(e)}`);
  }
}
