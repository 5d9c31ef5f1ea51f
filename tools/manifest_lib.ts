/**
 * Builds the asset manifest text for a checkout (shared by the writer and the staleness test).
 *
 * @module
 */
import { sha256Hex } from "../src/sha256_hex.ts";

/** Producer and format version per path prefix. */
const PRODUCERS: [prefix: string, producer: string, formatVersion: number][] = [
  ["profiles/gpu/", "tools/profiles/generate.ts", 1],
  ["profiles/stack/", "hand-written (see profiles/README.md)", 1],
  ["profiles/recipes/", "hand-written (see profiles/README.md)", 1],
  ["tables/sfu/", "tools/sfu/build_tables.ts", 1],
  ["tables/wasm/", "tools/wasm/build.ts", 1],
  ["tables/web/checker.js", "tools/web/build_page.ts", 1],
  ["tables/web/", "hand-written browser checker page (see README.md)", 1],
  ["tables/catalogs/", "hand-written dispatch catalogs (see tables/catalogs/README.md)", 1],
  ["profiles/models/", "published Qwen3 config.json files (see profiles/models/README.md)", 1],
  ["tables/models/", "bitaudit model synth (see tables/models/README.md)", 1],
  [
    "tests/vectors/khattak-mikaitis/",
    "measured on GPUs by Khattak & Mikaitis (see tests/vectors/khattak-mikaitis/README.md)",
    1,
  ],
];

/** Folders whose files are assets: profiles, tables and the measured vectors. */
const ASSET_DIRS = ["profiles", "tables", "tests/vectors/khattak-mikaitis"];

const SKIP = /(^|\/)(README\.md|LICEN[CS]E[^/]*|manifest\.json)$/;

async function walk(root: string, dir: string, out: string[]): Promise<void> {
  for await (const e of Deno.readDir(`${root}/${dir}`)) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory) await walk(root, rel, out);
    else if (e.isFile && !SKIP.test(rel)) out.push(rel);
  }
}

/**
 * The program's own digest: every source file the CLI and the library run (`mod.ts` and
 * `src/**.ts`) and the dependency pins they run with (`deno.json`, `deno.lock`), each as
 * `<path> <sha256>` on a line of its own, hashed. Any change to the code or its dependencies
 * changes it, and with it the manifest's digest that results and verdicts name.
 */
async function codeDigest(root: string): Promise<{ sha256: string; files: number }> {
  const paths = ["deno.json", "deno.lock", "mod.ts"];
  const src: string[] = [];
  await walk(root, "src", src);
  paths.push(...src.filter((p) => p.endsWith(".ts")).sort());
  let list = "";
  for (const path of paths) {
    list += `${path} ${sha256Hex(await Deno.readFile(`${root}/${path}`))}\n`;
  }
  return { sha256: sha256Hex(new TextEncoder().encode(list)), files: paths.length };
}

/**
 * Lists every asset under `profiles/`, `tables/` and `tests/vectors/khattak-mikaitis/` with its
 * digest, sorted by path, after the digest of the code (`code`: see `codeDigest`).
 *
 * @param root repository root
 * @returns the manifest JSON text (with trailing newline)
 */
export async function buildManifest(root: string): Promise<string> {
  const paths: string[] = [];
  for (const dir of ASSET_DIRS) await walk(root, dir, paths);
  paths.sort();
  const assets: Record<string, unknown> = {};
  for (const path of paths) {
    const bytes = await Deno.readFile(`${root}/${path}`);
    const p = PRODUCERS.find(([prefix]) => path.startsWith(prefix));
    assets[path] = {
      sha256: sha256Hex(bytes),
      bytes: bytes.length,
      producer: p?.[1] ?? "unknown",
      formatVersion: p?.[2] ?? 1,
    };
  }
  const code = await codeDigest(root);
  return JSON.stringify({ schema: "bitaudit.asset-manifest/v1", code, assets }, null, 2) + "\n";
}
