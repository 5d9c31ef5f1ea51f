/**
 * Removal of what a command created but must not leave behind (temporary files and folders, the
 * demo's throw-away private key, an output folder of a failed run), on every exit path: the
 * command's own `finally`, and Ctrl-C or SIGTERM, which skip every `finally`.
 *
 * @module
 */
import { makeDirs } from "./make_dirs.ts";

const _pending = new Set<string>();
const _SIGNALS = [["SIGINT", 130], ["SIGTERM", 143]] as const;
const _handlers = new Map<Deno.Signal, () => void>();

/**
 * Registers a path to remove (recursively) if the process is interrupted, until the returned
 * function is called; that function removes the path when `remove` is true.
 *
 * @param path a file or folder this command created
 * @returns `release(remove)`: forget the path, deleting it first when `remove` is true
 * @example
 * ```ts ignore
 * const release = removeOnInterrupt(tmpDir);
 * try { ... } finally { await release(true); }
 * ```
 */
export function removeOnInterrupt(path: string): (remove: boolean) => Promise<void> {
  _pending.add(path);
  _listen();
  return async (remove: boolean) => {
    _pending.delete(path);
    if (_pending.size === 0) _unlisten();
    if (remove) await Deno.remove(path, { recursive: true }).catch(() => {});
  };
}

/**
 * Creates a folder, and its missing parents, if it does not exist yet, and registers what it
 * created, with everything in it, for removal when the command fails or is interrupted (a failed
 * run leaves no folder it created); an existing folder is never removed.
 *
 * @param dir folder path
 * @returns `done(ok)`: on failure (`ok` false) the folders the command created are removed
 * @throws {InputError} `OUTPUT_WRITE` when a path on the way is not a folder or a folder cannot
 *   be created (see `makeDirs`)
 * @example
 * ```ts ignore
 * const done = await createOwnedDir(out);
 * ```
 */
export async function createOwnedDir(dir: string): Promise<(ok: boolean) => Promise<void>> {
  const created = await makeDirs(dir);
  if (created === null) return () => Promise.resolve();
  const release = removeOnInterrupt(created);
  return (ok: boolean) => release(!ok);
}

function _listen(): void {
  if (_handlers.size > 0) return;
  for (const [signal, code] of _SIGNALS) {
    const handler = () => {
      for (const p of _pending) {
        try {
          Deno.removeSync(p, { recursive: true });
        } catch { /* already gone */ }
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
