/**
 * `checkedSfuTablesPath`: the path the libdevice oracle's MUFU model reads its ROM tables from
 * (env `SFU_TABLES`), handed over only after the file's sha256 matches `tables/manifest.json`.
 *
 * @module
 */

/** The table asset, relative to the repository root. */
export const SFU_TABLES_ASSET = "tables/sfu/tesla_sfu_v1.bin";

/**
 * Checks `tables/sfu/tesla_sfu_v1.bin` against its manifest entry (sha256 and length) and returns
 * its absolute path, for the oracle's `SFU_TABLES` environment variable.
 *
 * @param root repository root as a file URL ending in `/` (default: this repository)
 * @returns absolute path of the checked table file
 * @throws {Error} when the manifest has no entry for the asset, or the file's digest or length
 *   differs from it
 * @example
 * ```ts
 * import { checkedSfuTablesPath } from "./checked_sfu_tables_path.ts";
 * const path = await checkedSfuTablesPath();
 * if (!path.endsWith("tables/sfu/tesla_sfu_v1.bin")) throw new Error(path);
 * ```
 */
export async function checkedSfuTablesPath(
  root: URL = new URL("../../", import.meta.url),
): Promise<string> {
  const manifest = JSON.parse(await Deno.readTextFile(new URL("tables/manifest.json", root)));
  const entry = manifest?.assets?.[SFU_TABLES_ASSET] as
    | { sha256?: string; bytes?: number }
    | undefined;
  if (!entry?.sha256) {
    throw new Error(`Cannot check SFU tables: no manifest entry for ${SFU_TABLES_ASSET}`);
  }
  const url = new URL(SFU_TABLES_ASSET, root);
  const bytes = await Deno.readFile(url);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  if (hex !== entry.sha256 || bytes.length !== entry.bytes) {
    throw new Error(
      `Cannot check SFU tables: ${SFU_TABLES_ASSET} has sha256 ${hex} (${bytes.length} bytes), ` +
        `manifest says ${entry.sha256} (${entry.bytes} bytes)`,
    );
  }
  return url.pathname;
}
