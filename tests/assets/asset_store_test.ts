import assert from "node:assert/strict";
import { AssetError } from "../../src/errors.ts";
import { openAssetStore } from "../../src/assets/mod.ts";
import { loadGpuProfile } from "../../src/resolve/mod.ts";
import { buildManifest } from "../../tools/manifest_lib.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

async function copyTree(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-assets-" });
  for (const sub of ["profiles/gpu", "tables"]) {
    await Deno.mkdir(`${dir}/${sub}`, { recursive: true });
  }
  await Deno.copyFile(`${ROOT}/tables/manifest.json`, `${dir}/tables/manifest.json`);
  for (const e of Deno.readDirSync(`${ROOT}/profiles/gpu`)) {
    await Deno.copyFile(`${ROOT}/profiles/gpu/${e.name}`, `${dir}/profiles/gpu/${e.name}`);
  }
  return dir;
}

Deno.test("the committed asset manifest is up to date", async () => {
  const committed = await Deno.readTextFile(`${ROOT}/tables/manifest.json`);
  assert.equal(committed, await buildManifest(ROOT), "run `deno task manifest`");
});

Deno.test("openAssetStore() loads a profile and records its digest", async () => {
  const store = await openAssetStore(ROOT);
  const { profile, sha256 } = await loadGpuProfile(store, "a100");
  assert.equal(profile.id, "a100");
  assert.equal(store.used()["profiles/gpu/a100.json"], sha256);
});

Deno.test("read() refuses a tampered profile with ASSET_DIGEST_MISMATCH", async () => {
  const dir = await copyTree();
  try {
    const path = `${dir}/profiles/gpu/h100-sxm.json`;
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.replace('"fracBits": 25', '"fracBits": 24'));
    const store = await openAssetStore(dir);
    await assert.rejects(
      () => loadGpuProfile(store, "h100-sxm"),
      (e) => e instanceof AssetError && e.code === "ASSET_DIGEST_MISMATCH",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("read() refuses a truncated asset with ASSET_SIZE_MISMATCH and an unlisted one", async () => {
  const dir = await copyTree();
  try {
    const path = `${dir}/profiles/gpu/a100.json`;
    const bytes = await Deno.readFile(path);
    await Deno.writeFile(path, bytes.subarray(0, 100));
    const store = await openAssetStore(dir);
    await assert.rejects(
      () => store.read("profiles/gpu/a100.json"),
      (e) => (e as AssetError).code === "ASSET_SIZE_MISMATCH",
    );
    await assert.rejects(
      () => store.read("profiles/gpu/x.json"),
      (e) => (e as AssetError).code === "ASSET_NOT_LISTED",
    );
    await assert.rejects(
      () => loadGpuProfile(store, "nope"),
      (e) => (e as AssetError).code === "PROFILE_UNKNOWN",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openAssetStore() refuses a malformed manifest", async () => {
  const dir = await copyTree();
  try {
    await Deno.writeTextFile(
      `${dir}/tables/manifest.json`,
      '{"schema":"bitaudit.asset-manifest/v1","assets":{"a":{"sha256":"xx"}}}',
    );
    await assert.rejects(
      () => openAssetStore(dir),
      (e) => (e as AssetError).code === "MANIFEST_INVALID",
    );
    await Deno.remove(`${dir}/tables/manifest.json`);
    await assert.rejects(
      () => openAssetStore(dir),
      (e) => (e as AssetError).code === "MANIFEST_MISSING",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
