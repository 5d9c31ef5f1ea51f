/**
 * Removal of what a command created but must not leave behind (temporary files and folders, the
 * demo's throw-away private key, an output folder of a failed run), on every exit path: the
 * command's own `finally`, and Ctrl-C or SIGTERM, which skip every `finally`.
 *
 * @module
 */
import { normalize } from "node:path";
import { makeDirs, parentDir, trimSlashes } from "./make_dirs.ts";

/** What to remove: a path, and the folders above it up to `upTo` (each only while empty). */
interface _Removal {
  readonly path: string;
  readonly recursive: boolean;
  readonly upTo: string | undefined;
}

const _pending = new Set<_Removal>();
const _SIGNALS = [["SIGINT", 130], ["SIGTERM", 143]] as const;
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
 *   empty), `upTo`
 * @returns `release(remove)`: forget the path, deleting it first when `remove` is true
 * @example
 * ```ts ignore
 * const release = removeOnInterrupt(tmpDir);
 * try { ... } finally { await release(true); }
 * ```
 */
export function removeOnInterrupt(
  path: string,
  options: { recursive?: boolean; upTo?: string } = {},
): (remove: boolean) => Promise<void> {
  const removal = { path, recursive: options.recursive ?? true, upTo: options.upTo };
  _pending.add(removal);
  _listen();
  return async (remove: boolean) => {
    _pending.delete(removal);
    if (_pending.size === 0) _unlisten();
    if (!remove) return;
    await Deno.remove(path, { recursive: removal.recursive }).catch(() => {});
    for (const dir of _emptyParents(removal)) {
      if (!(await Deno.remove(dir).then(() => true, () => false))) break;
    }
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
 * Creates a folder, and its missing parents, if it does not exist yet, and registers what it
 * created for removal when the command fails or is interrupted: the folder with everything in it,
 * then the parents it created while they are empty (a failed run leaves no folder it created,
 * and removes nothing another run wrote beside it); an existing folder is never removed.
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
  if (created === null) return () => Promise.resolve();
  // The folder itself with what this command wrote into it (only while empty for a shared one);
  // the parents it created only while empty (another run's output may have gone into one of
  // them meanwhile).
  const release = removeOnInterrupt(trimSlashes(dir), {
    recursive: !(options.shared ?? false),
    upTo: created,
  });
  return (ok: boolean) => release(!ok);
}

function _listen(): void {
  if (_handlers.size > 0) return;
  for (const [signal, code] of _SIGNALS) {
    const handler = () => {
      // Latest first: files made inside a folder go before the folder.
      for (const r of [..._pending].reverse()) {
        try {
          Deno.removeSync(r.path, { recursive: r.recursive });
        } catch { /* already gone, or not empty */ }
        for (const dir of _emptyParents(r)) {
          try {
            Deno.removeSync(dir);
          } catch {
            break; // not empty: something else lives there
          }
        }
      }
      Deno.exit(code);
    };
    try {
      Deno.addSignalListener(signal, handler);
      _handlers.set(signal, handler);
    } catch { /* signals not supported on this platform */ }
  }
}

function _unlisten(): void {
  for (const [signal, handler] of _handlers) Deno.removeSignalListener(signal, handler);
  _handlers.clear();
}
