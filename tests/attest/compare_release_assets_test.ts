/**
 * `compareReleaseAssets()` and `checkAttestation({ release })`: a verdict that names the checker's
 * own release is held to that release's manifest, asset by asset; a verdict of another release or
 * verifier is not compared.
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkReleaseAssets,
  compareReleaseAssets,
  generateKeyPair,
  MAX_NAMED_ASSET_DIFFERENCES,
  parseTrustRoot,
  type ReleaseAssets,
  verdictStatement,
} from "../../src/attest/mod.ts";
import { checkSigned, verdictReport } from "./_verdict_report.ts";

const RELEASE: ReleaseAssets = {
  version: "0.1.0",
  manifest: { path: "tables/manifest.json", sha256: "aa".repeat(32) },
  assets: { "profiles/gpu/a100.json": "bb".repeat(32), "tables/sfu/t.bin": "cc".repeat(32) },
};
const BITAUDIT = { id: "bitaudit", version: "0.1.0", engine: "wasm", runtime: "deno" };
const HONEST = {
  "tables/manifest.json": "aa".repeat(32),
  "profiles/gpu/a100.json": "bb".repeat(32),
};

Deno.test("compareReleaseAssets() finds nothing for a verdict that used a subset of the release", () => {
  assert.deepEqual(compareReleaseAssets({ verifier: BITAUDIT, assets: HONEST }, RELEASE), {
    compared: true,
    named: 2,
    differences: [],
  });
});

Deno.test("compareReleaseAssets() names each digest that differs, asset the release lacks, and a missing manifest", () => {
  const c = compareReleaseAssets({
    verifier: BITAUDIT,
    // As the predicate's parser reads them: own properties, "__proto__" one of them. Names on
    // Object.prototype are no assets of the release.
    assets: Object.fromEntries([
      ["profiles/gpu/a100.json", "0b".repeat(32)],
      ["tables/extra.bin", "dd".repeat(32)],
      ["constructor", "ee".repeat(32)],
      ["__proto__", "ff".repeat(32)],
    ]),
  }, RELEASE);
  assert.deepEqual(c, {
    compared: true,
    named: 4,
    differences: [
      { path: "tables/manifest.json", attested: null, release: "aa".repeat(32) },
      { path: "profiles/gpu/a100.json", attested: "0b".repeat(32), release: "bb".repeat(32) },
      { path: "tables/extra.bin", attested: "dd".repeat(32), release: null },
      { path: "constructor", attested: "ee".repeat(32), release: null },
      { path: "__proto__", attested: "ff".repeat(32), release: null },
    ],
  });
  const manifest = compareReleaseAssets({
    verifier: BITAUDIT,
    assets: { ...HONEST, "tables/manifest.json": "ab".repeat(32) },
  }, RELEASE);
  assert.deepEqual(manifest.compared && manifest.differences, [
    { path: "tables/manifest.json", attested: "ab".repeat(32), release: "aa".repeat(32) },
  ]);
});

Deno.test("compareReleaseAssets() does not compare another release's or another verifier's verdict", () => {
  const other = { ...BITAUDIT, version: "0.2.0" };
  assert.deepEqual(compareReleaseAssets({ verifier: other, assets: {} }, RELEASE), {
    compared: false,
    verifier: { id: "bitaudit", version: "0.2.0" },
  });
  const foreign = { ...BITAUDIT, id: "other-verifier" };
  assert.equal(compareReleaseAssets({ verifier: foreign, assets: {} }, RELEASE).compared, false);
});

const key = await generateKeyPair();
const trustRoot = parseTrustRoot(
  JSON.stringify(buildTrustRoot([key.publicKey], { start: "2026-01-01T00:00:00Z" })),
);

/**
 * A verdict signed with these assets and verifier version (default 0.1.0), checked against
 * `release` (default {@link RELEASE}; null: none, as the browser checker checks).
 */
function checked(
  assets: Record<string, string>,
  o: { version?: string; release?: ReleaseAssets | null } = {},
) {
  const statement = verdictStatement(verdictReport(), {
    verifier: { version: o.version ?? "0.1.0", engine: "wasm", runtime: "deno" },
    assets,
    timeVerified: "2026-03-01T12:00:00Z",
  });
  const release = o.release === undefined ? RELEASE : o.release;
  return checkSigned(statement, [key], { trustRoot, ...(release === null ? {} : { release }) });
}

Deno.test("checkAttestation() with the release passes an honest verdict and says what it compared", async () => {
  const r = await checked(HONEST);
  assert.ok(r.valid, JSON.stringify(r.checks));
  assert.deepEqual(r.checks.filter((c) => c.check === "assets"), [{
    check: "assets",
    ok: true,
    detail: "the 2 assets the verdict names are this release's (bitaudit 0.1.0, manifest sha256 " +
      "aaaaaaaaaaaaaaaa…)",
  }]);
});

Deno.test("checkAttestation() with the release fails each asset of another install, one line each, escaped", async () => {
  const r = await checked({ ...HONEST, "profiles/gpu/a100.json": "0b".repeat(32), "x\u202e": "?" });
  assert.equal(r.valid, false);
  assert.deepEqual(r.checks.filter((c) => !c.ok), [
    {
      check: "assets",
      ok: false,
      detail: "[VERDICT_ASSETS] 'profiles/gpu/a100.json': attested sha256 0b0b0b0b0b0b0b0b…, " +
        "bitaudit 0.1.0's bbbbbbbbbbbbbbbb…",
    },
    {
      check: "assets",
      ok: false,
      detail: "[VERDICT_ASSETS] 'x\\u{202e}': attested sha256 '?', an asset bitaudit 0.1.0 " +
        "does not list",
    },
  ]);
  // The verdict and audit id are still read: the statement is genuine, its install was not.
  assert.equal(r.verdict, "FAILED");
});

Deno.test("checkAttestation() names at most MAX_NAMED_ASSET_DIFFERENCES assets and counts the rest", async () => {
  const many = Object.fromEntries(
    Array.from({ length: MAX_NAMED_ASSET_DIFFERENCES + 3 }, (_, i) => [`t/${i}`, "0c".repeat(32)]),
  );
  const r = await checked({ ...HONEST, ...many });
  const lines = r.checks.filter((c) => !c.ok);
  assert.equal(lines.length, MAX_NAMED_ASSET_DIFFERENCES + 1);
  assert.equal(
    lines.at(-1)!.detail,
    "[VERDICT_ASSETS] and 3 more asset(s) differ from this release's",
  );
});

Deno.test("checkAttestation() with the release says another release's verdict was not compared, and passes it", async () => {
  const r = await checked({ ...HONEST, "profiles/gpu/a100.json": "0b".repeat(32) }, {
    version: "0.0.9",
  });
  assert.ok(r.valid, JSON.stringify(r.checks));
  assert.deepEqual(r.checks.filter((c) => c.check === "assets").map((c) => c.detail), [
    "not compared: the verdict was computed by bitaudit '0.0.9', this checker is bitaudit 0.1.0 " +
    "(each release has its own asset manifest)",
  ]);
  // A look-alike id is escaped, so that the passing line does not read as this release's name
  // (review h98).
  const lookAlike: string[] = [];
  checkReleaseAssets({
    verifier: { id: "bit\u0430udit", version: "0.1.0", engine: "wasm", runtime: "deno" },
    assets: {},
  }, { release: RELEASE, add: (_, ok, detail) => lookAlike.push(`${ok} ${detail}`) });
  assert.deepEqual(lookAlike, [
    "true not compared: the verdict was computed by verifier 'bit\\u{430}udit' '0.1.0', this " +
    "checker is bitaudit 0.1.0 (each release has its own asset manifest)",
  ]);
  // Without a release (the browser checker, a library caller), nothing is said of the assets.
  const plain = await checked({ "tables/manifest.json": "0d".repeat(32) }, { release: null });
  assert.ok(plain.valid);
  assert.ok(!plain.checks.some((c) => c.check === "assets"));
});
