/**
 * A temporary asset root: the repository's assets (linked, not copied) plus copies of bundled
 * dispatch catalogs relabelled for another GPU, listed in a copied manifest. Tests of GPUs no
 * bundled catalog covers (an L40S running the tiny TP checkpoint) run on it; the copies are
 * illustrative scenario data, as the bundled demo catalogs are.
 *
 * @module
 */
import { sha256Hex } from "../src/assets/mod.ts";

const ROOT = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/** One catalog copy: the bundled catalog's id, the copy's id and the GPU profile it names. */
export interface CatalogCopy {
  readonly from: string;
  readonly id: string;
  readonly gpu: string;
}

/**
 * Makes the root; the caller removes it.
 *
 * @param copies the catalogs to copy
 * @returns the root's path, for `openAssetStore(root)`
 */
export async function catalogCopyRoot(copies: readonly CatalogCopy[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-catalog-copy-" });
  await Deno.mkdir(`${dir}/tables/catalogs`, { recursive: true });
  await Deno.mkdir(`${dir}/tests`);
  await Deno.symlink(`${ROOT}/profiles`, `${dir}/profiles`);
  await Deno.symlink(`${ROOT}/tests/vectors`, `${dir}/tests/vectors`);
  for (const e of Deno.readDirSync(`${ROOT}/tables`)) {
    if (e.name === "catalogs" || e.name === "manifest.json") continue;
    await Deno.symlink(`${ROOT}/tables/${e.name}`, `${dir}/tables/${e.name}`);
  }
  for (const e of Deno.readDirSync(`${ROOT}/tables/catalogs`)) {
    await Deno.symlink(`${ROOT}/tables/catalogs/${e.name}`, `${dir}/tables/catalogs/${e.name}`);
  }
  const manifest = JSON.parse(await Deno.readTextFile(`${ROOT}/tables/manifest.json`));
  for (const c of copies) {
    const from = `tables/catalogs/${c.from}.json`;
    const catalog = JSON.parse(await Deno.readTextFile(`${ROOT}/${from}`));
    const bytes = new TextEncoder().encode(
      JSON.stringify({ ...catalog, id: c.id, gpu: c.gpu }, null, 2) + "\n",
    );
    const path = `tables/catalogs/${c.id}.json`;
    await Deno.writeFile(`${dir}/${path}`, bytes);
    manifest.assets[path] = {
      ...manifest.assets[from],
      sha256: sha256Hex(bytes),
      bytes: bytes.length,
    };
  }
  await Deno.writeTextFile(`${dir}/tables/manifest.json`, JSON.stringify(manifest, null, 2) + "\n");
  return dir;
}
