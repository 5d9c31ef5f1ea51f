/**
 * Regenerates `tables/manifest.json` from the files under `profiles/`, `tables/` and the
 * measured vectors (`tests/vectors/khattak-mikaitis/`).
 *
 * Usage: `deno task manifest` (writes) or `deno task manifest --check` (exit 1 when stale).
 *
 * @module
 */
import { buildManifest } from "./manifest_lib.ts";

const root = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
const text = await buildManifest(root);
const path = `${root}/tables/manifest.json`;
if (Deno.args.includes("--check")) {
  const current = await Deno.readTextFile(path).catch(() => "");
  if (current !== text) {
    console.error("tables/manifest.json is stale: run `deno task manifest`");
    Deno.exit(1);
  }
  console.log("tables/manifest.json is up to date");
} else {
  await Deno.writeTextFile(path, text);
  console.log(`wrote ${path}`);
}
