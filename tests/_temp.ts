/**
 * Temporary folders for tests that remove themselves: a test run leaves nothing in the system's
 * temporary folder, private keys included. Removal is registered on the module's `unload` event,
 * which `deno test` fires once per test module after its tests have finished, so a folder made
 * at module level or by a shared fixture lives exactly as long as the tests that use it.
 *
 * @module
 */

/**
 * Makes a temporary folder that is removed when the test module ends.
 *
 * @param options as for `Deno.makeTempDir`: `prefix` (name it `bitaudit-<what>-`), `suffix`,
 *   and `dir` (the parent, default the system's temporary folder)
 * @returns the folder's path
 * @throws {Deno.errors.NotFound} when `dir` does not exist (and the other errors of
 *   `Deno.makeTempDir`)
 * @example
 * ```ts
 * import { tempDir } from "./_temp.ts";
 * const dir = await tempDir({ prefix: "bitaudit-example-" });
 * await Deno.writeTextFile(`${dir}/note.txt`, "removed with its folder");
 * ```
 */
export async function tempDir(options: Deno.MakeTempOptions = {}): Promise<string> {
  const dir = await Deno.makeTempDir(options);
  removeWhenDone(dir);
  return dir;
}

/**
 * Removes a file or folder (with its contents) when the test module ends; one that is already
 * gone is no error. For paths made some other way than {@link tempDir}.
 *
 * @param path the file or folder to remove
 * @returns nothing; the removal happens on the module's `unload` event
 * @example
 * ```ts
 * import { removeWhenDone } from "./_temp.ts";
 * const file = await Deno.makeTempFile({ prefix: "bitaudit-example-" });
 * removeWhenDone(file);
 * ```
 */
export function removeWhenDone(path: string): void {
  globalThis.addEventListener("unload", () => {
    try {
      Deno.removeSync(path, { recursive: true });
    } catch { /* already gone */ }
  });
}
