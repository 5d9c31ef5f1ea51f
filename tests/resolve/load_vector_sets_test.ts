import assert from "node:assert/strict";
import { openAssetStore, readVectorSet } from "../../src/assets/mod.ts";
import { AssetError } from "../../src/errors.ts";
import { listVectorSets, loadVectorSet, MEASURED_VECTORS } from "../../src/resolve/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("listVectorSets() lists the 13 bundled measured sets from the manifest, sorted", async () => {
  const sets = listVectorSets(await openAssetStore(ROOT));
  assert.deepEqual(sets.map((s) => `${s.gpu}/${s.format}`), [
    "A100/bf16",
    "A100/fp16",
    "A100/tf32",
    "H100/E4M3",
    "H100/E5M2",
    "H100/bf16",
    "H100/fp16",
    "H100/tf32",
    "L40S/E4M3",
    "L40S/E5M2",
    "L40S/bf16",
    "L40S/fp16",
    "L40S/tf32",
  ]);
  for (const s of sets) {
    assert.equal(s.path, `${MEASURED_VECTORS}${s.gpu}/${s.format}/`);
    assert.ok(s.files.some((f) => f.startsWith("a_")) && s.files.some((f) => f.startsWith("d_")));
  }
});

Deno.test("loadVectorSet() gives readVectorSet()'s values and records every file it read", async () => {
  const store = await openAssetStore(ROOT);
  const ref = listVectorSets(store).find((s) => s.gpu === "A100" && s.format === "fp16")!;
  const got = await loadVectorSet(store, ref);
  const want = await readVectorSet(`${ROOT}/${ref.path}`);
  assert.deepEqual({ ...got, dir: "" }, { ...want, dir: "" });
  for (const f of ref.files) assert.ok(store.used()[`${ref.path}${f}`], f);
});

Deno.test("loadVectorSet() refuses a tampered measured file with ASSET_DIGEST_MISMATCH", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-vectors-" });
  try {
    await Deno.mkdir(`${dir}/tables`);
    await Deno.copyFile(`${ROOT}/tables/manifest.json`, `${dir}/tables/manifest.json`);
    const store = await openAssetStore(dir);
    const ref = listVectorSets(store).find((s) => s.gpu === "A100" && s.format === "bf16")!;
    await Deno.mkdir(`${dir}/${ref.path}`, { recursive: true });
    for (const f of ref.files) {
      await Deno.copyFile(`${ROOT}/${ref.path}${f}`, `${dir}/${ref.path}${f}`);
    }
    const d = ref.files.find((f) => f.startsWith("d_"))!;
    const bytes = await Deno.readFile(`${dir}/${ref.path}${d}`);
    bytes[0] = bytes[0] === 0x30 ? 0x31 : 0x30; // one measured bit flipped, same length
    await Deno.writeFile(`${dir}/${ref.path}${d}`, bytes);
    await assert.rejects(
      () => loadVectorSet(store, ref),
      (e) => e instanceof AssetError && e.code === "ASSET_DIGEST_MISMATCH",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
