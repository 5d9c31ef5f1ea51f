/**
 * Writes output files without ever overwriting what a user had: refuse an existing path, create
 * the missing folders on the way (`makeDirs`: never through a file), write to a temporary sibling
 * and rename it into place. Each file written is noted (`noteWritten`), so that a failed command
 * removes its own outputs and no one else's.
 *
 * @module
 */
import { normalize } from "node:path";
import { InputError } from "../errors.ts";
import { ioCause } from "../io_cause.ts";
import { noteWritten, removeOnInterrupt } from "./cleanup.ts";
import { makeParentDirs, parentDir, trimSlashes } from "./make_dirs.ts";
import { tempSibling } from "./temp_sibling.ts";

/**
 * Writes bytes to a path that must not exist yet; the folders it goes into are created when
 * missing (and removed again when the write fails).
 *
 * @param path destination
 * @param data bytes or text
 * @param options `mode` (e.g. 0o600 for private keys)
 * @throws {InputError} `OUTPUT_EXISTS` when the path exists; `OUTPUT_WRITE` when a folder on the
 *   way is a file or cannot be created, and on I/O failure; {Deno.errors.NotCapable} when the
 *   runtime does not grant the write
 * @example
 * ```ts ignore
 * await writeNewFile("out.json", "{}\n");
 * ```
 */
export async function writeNewFile(
  path: string,
  data: Uint8Array | string,
  options: { mode?: number } = {},
): Promise<void> {
  path = normalize(path); // the folders removed on failure are walked up by name
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
    if (await _exists(path)) {
      throw new InputError("OUTPUT_EXISTS", `Cannot write '${path}': it appeared meanwhile`);
    }
    await Deno.rename(tmp, path);
    ok = true;
    // The file, and the folders made for it, belong to this run: an output folder it lies in
    // takes them away again if the command fails later (`createOwnedDir`).
    noteWritten(path);
    if (created !== null) {
      for (let at = parentDir(trimSlashes(path));; at = parentDir(at)) {
        noteWritten(at);
        if (at === created || at === parentDir(at)) break;
      }
    }
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    // The runtime's refusal is the caller's missing permission (the CLI's PERMISSION, naming the
    // flag), not a failed write.
    if (e instanceof InputError || e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot write '${path}': ${(e as Error).message.split("\n")[0]}`,
    );
  } finally {
    await release(false);
    await releaseDirs?.(!ok);
  }
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
