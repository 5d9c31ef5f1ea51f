/**
 * Writes output files without ever overwriting what a user had: refuse an existing path, write
 * to a temporary sibling and rename it into place.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { removeOnInterrupt } from "./cleanup.ts";

/**
 * Writes bytes to a path that must not exist yet.
 *
 * @param path destination
 * @param data bytes or text
 * @param options `mode` (e.g. 0o600 for private keys)
 * @throws {InputError} `OUTPUT_EXISTS` when the path exists; `OUTPUT_WRITE` on I/O failure
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
  if (await _exists(path)) {
    throw new InputError(
      "OUTPUT_EXISTS",
      `Cannot write '${path}': it already exists (not overwritten)`,
    );
  }
  const tmp = `${path}.tmp-${crypto.randomUUID()}`;
  const release = removeOnInterrupt(tmp);
  try {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    await Deno.writeFile(tmp, bytes, { createNew: true, mode: options.mode ?? 0o644 });
    if (await _exists(path)) {
      throw new InputError("OUTPUT_EXISTS", `Cannot write '${path}': it appeared meanwhile`);
    }
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    if (e instanceof InputError) throw e;
    throw new InputError(
      "OUTPUT_WRITE",
      `Cannot write '${path}': ${(e as Error).message.split("\n")[0]}`,
    );
  } finally {
    await release(false);
  }
}

async function _exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}
