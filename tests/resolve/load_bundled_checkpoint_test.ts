import assert from "node:assert/strict";
import { openAssetStore, sha256Hex } from "../../src/assets/mod.ts";
import { loadBundledCheckpoint } from "../../src/resolve/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("loadBundledCheckpoint() reads a bundled checkpoint's files through the manifest and opens them", async () => {
  const store = await openAssetStore(ROOT);
  for (const [dir, type] of [["qwen3-tiny-dense", "qwen3"], ["qwen3-tiny-moe", "qwen3_moe"]]) {
    const path = `tables/models/${dir}`;
    const m = await loadBundledCheckpoint(store, path);
    assert.ok(m !== null);
    assert.equal(m.ckpt.config.modelType, type);
    assert.deepEqual(
      [...m.files.keys()].filter((n) => n !== "config.json").sort(),
      [...m.ckpt.files],
    );
    for (const [name, bytes] of m.files) {
      assert.equal(store.used()[`${path}/${name}`], sha256Hex(bytes), `${name} read and recorded`);
    }
    assert.equal(m.ckpt.configSha256, sha256Hex(m.files.get("config.json")!));
  }
});

Deno.test("loadBundledCheckpoint() returns null for a path without a config.json asset", async () => {
  const store = await openAssetStore(ROOT);
  assert.equal(await loadBundledCheckpoint(store, "tables/models/none"), null);
  assert.equal(await loadBundledCheckpoint(store, "tables/models"), null, "not below a subfolder");
});
