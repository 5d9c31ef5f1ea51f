/**
 * `check` holds a verdict of its own bitaudit release to the release's asset manifest: a verdict
 * signed by an inspector whose install had other assets (an SFU table, a profile, a manifest at
 * another digest, an asset the release does not list) is INVALID, each such asset named on its own
 * line, and exits `OTHER_ASSETS` (6); a verdict of another release is said not compared and not
 * failed. A tampered or missing asset of the checker's own install exits `ASSET` (5), not 2.
 */
import assert from "node:assert/strict";
import {
  decodeBase64,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  IN_TOTO_PAYLOAD_TYPE,
  signEnvelope,
} from "../../src/attest/mod.ts";
import { canonicalJson } from "../../src/claims/mod.ts";
import { checkFile } from "../../src/cli/commands/check.ts";
import { EXIT } from "../../src/cli/exit_codes.ts";
import { VERSION } from "../../src/version.ts";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { copyCheckout, REPO_ROOT, runBitaudit } from "./_run.ts";
import { audit, goodRoot, resign } from "./_trust_fixture.ts";

const honest = (await audit({ randomness: "ab".repeat(32), round: "7" })).attestation;
const predicate = JSON.parse(
  new TextDecoder().decode(decodeBase64(JSON.parse(await Deno.readTextFile(honest)).payload)),
).predicate;
const manifestSha256 = Object.freeze(predicate.assets["tables/manifest.json"] as string);
/** An asset the audit used besides the manifest (a profile, table or wasm module). */
const used = Object.keys(predicate.assets).find((p) => p !== "tables/manifest.json")!;

/** The honest verdict re-signed by the same inspector key after `edit` changed its assets. */
const withAssets = (name: string, edit: (assets: Record<string, string>) => void) =>
  resign(honest, { name, edit: (_, p) => edit(p.assets as Record<string, string>) });
const check = (attestation: string) =>
  runBitaudit(["check", attestation, "--trust-root", goodRoot]);
const failed = async (attestation: string) =>
  (await checkFile({ attestation, trustRoot: goodRoot })).checks.filter((c) => !c.ok);

Deno.test("check passes an honest verdict of this release and says its assets are the release's", async () => {
  assert.equal(predicate.verifier.version, VERSION);
  assert.ok(used !== undefined, "the audit names an asset besides the manifest");
  const r = await check(honest);
  assert.equal(r.code, EXIT.OK, r.stdout + r.stderr);
  const count = Object.keys(predicate.assets).length;
  assert.match(
    r.stdout,
    new RegExp(`^ok {3}assets: the ${count} assets the verdict names are this release's`, "m"),
  );
  assert.match(r.stdout, /^VALID attestation/m);
});

Deno.test("check fails a verdict of this release whose asset has another digest, naming it (exit 6)", async () => {
  const forged = await withAssets("other-digest", (a) => a[used] = "0f".repeat(32));
  assert.deepEqual((await failed(forged)).map((c) => [c.check, c.detail]), [[
    "assets",
    `[VERDICT_ASSETS] '${used}': attested sha256 0f0f0f0f0f0f0f0f…, bitaudit ${VERSION}'s ` +
    `${predicate.assets[used].slice(0, 16)}…`,
  ]]);
  const r = await check(forged);
  assert.equal(r.code, EXIT.OTHER_ASSETS, r.stdout + r.stderr);
  assert.equal(r.code, 6);
  assert.match(r.stdout, /^FAIL assets: \[VERDICT_ASSETS\] '/m);
  assert.match(r.stdout, /^INVALID attestation$/m);
  const json = await runBitaudit(["check", forged, "--trust-root", goodRoot, "--json"]);
  assert.equal(json.code, EXIT.OTHER_ASSETS);
  assert.equal(JSON.parse(json.stdout).valid, false);
});

Deno.test("check names every asset that differs: the manifest, one the release lacks, one the verdict lacks", async () => {
  const forged = await withAssets("several", (a) => {
    a["tables/manifest.json"] = "1e".repeat(32);
    a["tables/sfu/extra\u202e.bin"] = "2d".repeat(32);
    a[used] = "not hex";
  });
  const details = (await failed(forged)).map((c) => c.detail);
  // In the signed order (RFC 8785 sorts the keys); compared here as sets.
  assert.deepEqual(
    [...details].sort(),
    [
      `[VERDICT_ASSETS] 'tables/manifest.json': attested sha256 1e1e1e1e1e1e1e1e…, bitaudit ` +
      `${VERSION}'s ${manifestSha256.slice(0, 16)}…`,
      `[VERDICT_ASSETS] '${used}': attested sha256 'not hex', bitaudit ${VERSION}'s ` +
      `${predicate.assets[used].slice(0, 16)}…`,
      `[VERDICT_ASSETS] 'tables/sfu/extra\\u{202e}.bin': attested sha256 2d2d2d2d2d2d2d2d…, an ` +
      `asset bitaudit ${VERSION} does not list`,
    ].sort(),
  );
  const r = await check(forged);
  assert.equal(r.code, EXIT.OTHER_ASSETS);
  assert.ok(!r.stdout.includes("\u202e"), "the path is escaped");
  const bare = await withAssets("no-manifest", (a) => delete a["tables/manifest.json"]);
  assert.deepEqual((await failed(bare)).map((c) => c.detail), [
    `[VERDICT_ASSETS] 'tables/manifest.json': not named by the verdict, which names bitaudit ` +
    `${VERSION}; this release's sha256 ${manifestSha256.slice(0, 16)}…`,
  ]);
  // The manifest alone at another digest: another build of the version (the manifest names the
  // code too), refused and said apart from changed tables.
  const manifest = await withAssets("manifest", (a) => a["tables/manifest.json"] = "1e".repeat(32));
  assert.deepEqual((await failed(manifest)).map((c) => c.detail), [
    `[VERDICT_ASSETS] 'tables/manifest.json': attested sha256 1e1e1e1e1e1e1e1e…, bitaudit ` +
    `${VERSION}'s ${manifestSha256.slice(0, 16)}…: another build of bitaudit ${VERSION} (its ` +
    `code or files it did not read differ; the ${
      Object.keys(predicate.assets).length - 1
    } asset(s) it read are this release's)`,
  ]);
  assert.equal((await check(manifest)).code, EXIT.OTHER_ASSETS);
});

Deno.test("check does not compare the assets of another release's verdict, and says so", async () => {
  const other = await resign(honest, {
    name: "other-release",
    edit: (_, p) => {
      (p.verifier as { version: string }).version = "0.0.9";
      (p.assets as Record<string, string>)[used] = "0f".repeat(32);
    },
  });
  const r = await check(other);
  assert.equal(r.code, EXIT.OK, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    new RegExp(
      `^ok {3}assets: not compared: the verdict was computed by bitaudit '0\\.0\\.9', this ` +
        `checker is bitaudit ${VERSION.replaceAll(".", "\\.")} \\(each release has its own`,
      "m",
    ),
  );
});

Deno.test("a tampered or missing asset of the checker's own install exits 5 (ASSET), not 2", async () => {
  const dir = await copyCheckout();
  try {
    const p = `${dir}/profiles/gpu/a100.json`;
    await Deno.writeTextFile(p, (await Deno.readTextFile(p)).replace("a100", "a10O"));
    const shown = await runBitaudit(["profiles", "show", "a100"], { root: dir });
    assert.equal(shown.code, EXIT.ASSET, shown.stderr);
    assert.equal(shown.code, 5);
    assertCliCode(shown.stderr, "ASSET_DIGEST_MISMATCH");
    await Deno.remove(`${dir}/tables/manifest.json`);
    const r = await runBitaudit(["check", honest, "--trust-root", goodRoot], { root: dir });
    assert.equal(r.code, EXIT.ASSET, r.stderr);
    assertCliCode(r.stderr, "MANIFEST_MISSING");
    assert.equal(r.stdout, "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  // A usage error keeps its own code.
  const usage = await runBitaudit(["profiles", "show", "no-such-gpu"], { root: REPO_ROOT });
  assert.equal(usage.code, EXIT.USAGE);
});

Deno.test("a FAILED verdict is held to the release's assets as a PASSED one is: its own assets pass, another digest is INVALID (exit 6) whatever --require-verdict FAILED finds", async () => {
  const lying = await makeAuditFixture({
    records: 6,
    falsify: [{ seq: 2, kind: "fingerprint", bit: 3 }],
  });
  const out = `${lying.dir}/failed`;
  const audited = await runBitaudit(auditArgs(lying, out, 6));
  assert.equal(audited.code, EXIT.FAIL, audited.stderr);
  const attestation = `${out}/attestation.dsse.json`;
  const env = JSON.parse(await Deno.readTextFile(attestation));
  const statement = JSON.parse(new TextDecoder().decode(decodeBase64(env.payload)));
  assert.equal(statement.predicate.verdict, "FAILED");
  const policy = ["--trust-root", lying.trustRoot, "--require-verdict", "FAILED"];
  const own = await runBitaudit(["check", attestation, ...policy]);
  assert.equal(own.code, EXIT.OK, own.stdout + own.stderr);
  assert.match(own.stdout, /^ok {3}assets: the \d+ assets the verdict names are this release's/m);
  // The same FAILED verdict, its profile's digest changed, signed again by its inspector.
  const profile = Object.keys(statement.predicate.assets).find((p) => p.startsWith("profiles/"))!;
  assert.ok(profile !== undefined, "the audit names a profile");
  statement.predicate.assets[profile] = "0f".repeat(32);
  const signed = await signEnvelope(canonicalJson(statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [{
      privateKey: decodePrivateKeyPem(await Deno.readTextFile(lying.key)),
      publicKey: decodePublicKeyPem(await Deno.readTextFile(lying.pub)),
    }],
  });
  const forged = `${lying.dir}/failed-other-assets.dsse.json`;
  await Deno.writeTextFile(forged, JSON.stringify(signed));
  const r = await runBitaudit(["check", forged, ...policy]);
  assert.equal(r.code, EXIT.OTHER_ASSETS, r.stdout + r.stderr);
  assert.match(
    r.stdout,
    new RegExp(`^FAIL assets: \\[VERDICT_ASSETS\\] '${profile}': attested`, "m"),
  );
  assert.match(r.stdout, /^INVALID attestation$/m);
});
