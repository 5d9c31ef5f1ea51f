import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { ASSET_KINDS, listAssetIds, loadAsset } from "../../src/resolve/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("loadAsset() resolves every bundled asset of every registered kind to a frozen value", async () => {
  const store = await openAssetStore(ROOT);
  let count = 0;
  for (const kind of ASSET_KINDS) {
    const ids = listAssetIds(store, kind);
    assert.ok(ids.length > 0, `no ${kind.what} in the manifest`);
    for (const id of ids) {
      const loaded = await loadAsset(store, { kind, id });
      assert.equal(kind.idOf(loaded.value), id);
      assert.ok(Object.isFrozen(loaded) && Object.isFrozen(loaded.value), `${kind.what} '${id}'`);
      assert.equal(store.used()[loaded.path], loaded.sha256);
      count++;
    }
  }
  assert.ok(count >= 4);
});

Deno.test("ASSET_KINDS gives each kind its own folder", () => {
  const prefixes = ASSET_KINDS.map((k) => k.prefix);
  assert.equal(new Set(prefixes).size, prefixes.length);
  for (const p of prefixes) {
    assert.ok(!prefixes.some((q) => q !== p && q.startsWith(p)), `${p} overlaps another kind`);
  }
});
