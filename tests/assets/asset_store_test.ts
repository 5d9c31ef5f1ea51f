import assert from "node:assert/strict";
import { AssetError } from "../../src/errors.ts";
import { openAssetStore, parseManifest, sha256Hex } from "../../src/assets/mod.ts";
import { loadGpuProfile } from "../../src/resolve/mod.ts";
import { buildManifest } from "../../tools/manifest_lib.ts";
import { isCode } from "../_assert_code.ts";

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
      isCode(AssetError, "ASSET_DIGEST_MISMATCH"),
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
      isCode(AssetError, "ASSET_SIZE_MISMATCH"),
    );
    await assert.rejects(
      () => store.read("profiles/gpu/x.json"),
      isCode(AssetError, "ASSET_NOT_LISTED"),
    );
    await assert.rejects(
      () => loadGpuProfile(store, "nope"),
      isCode(AssetError, "PROFILE_UNKNOWN"),
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
      isCode(AssetError, "MANIFEST_INVALID"),
    );
    await Deno.remove(`${dir}/tables/manifest.json`);
    await assert.rejects(
      () => openAssetStore(dir),
      isCode(AssetError, "MANIFEST_MISSING"),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the manifest and every asset JSON are parsed strictly: a path listed twice, a float byte count, an unknown field, a duplicate key in a profile are refused (review h89)", async () => {
  const entry = `{"sha256":"${"a".repeat(64)}","bytes":1,"producer":"p","formatVersion":1}`;
  const manifests = [
    `{"schema":"bitaudit.asset-manifest/v1","assets":{"x.json":${entry},"x.json":${entry}}}`,
    `{"schema":"bitaudit.asset-manifest/v1","assets":{"x.json":${
      entry.replace('"bytes":1', '"bytes":1.0')
    }}}`,
    `{"schema":"bitaudit.asset-manifest/v1","assets":{"x.json":${
      entry.replace("}", ',"extra":1}')
    }}}`,
    `{"schema":"bitaudit.asset-manifest/v1","assets":{},"extra":1}`,
    `{"schema":"bitaudit.asset-manifest/v1","assets":{"x.json":[]}}`,
  ];
  for (const text of manifests) {
    assert.throws(() => parseManifest(text), isCode(AssetError, "MANIFEST_INVALID"), text);
  }
  const dir = await copyTree();
  try {
    // A duplicate key in a listed profile (its digest in the manifest made to match): the last
    // value would win where a reader of the file sees the first.
    const path = "profiles/gpu/a100.json";
    const text = (await Deno.readTextFile(`${dir}/${path}`)).replace(
      '"id": "a100",',
      '"id": "a100",\n  "id": "a100",',
    );
    assert.match(text, /"id": "a100",\n {2}"id"/);
    const bytes = new TextEncoder().encode(text);
    await Deno.writeFile(`${dir}/${path}`, bytes);
    const manifest = JSON.parse(await Deno.readTextFile(`${dir}/tables/manifest.json`));
    manifest.assets[path] = {
      ...manifest.assets[path],
      sha256: sha256Hex(bytes),
      bytes: bytes.length,
    };
    await Deno.writeTextFile(`${dir}/tables/manifest.json`, JSON.stringify(manifest));
    const store = await openAssetStore(dir);
    await assert.rejects(
      () => store.readJson(path),
      (e) =>
        isCode(AssetError, "ASSET_INVALID")(e) && /duplicate key 'id'/.test((e as Error).message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
