/**
 * `audit --bundle` and `bundle --timestamp` write Sigstore bundles v0.3 that the stock
 * `@sigstore/verify` accepts (public-key verification material, no transparency log), with the
 * RFC 3161 timestamp of a local `openssl ts` TSA where present; and what bitaudit writes, it reads
 * (issue 25): `check` takes the bundle as it takes the envelope, with the bundle's timestamp.
 */
import assert from "node:assert/strict";
import { bundleFromJSON } from "@sigstore/bundle";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import {
  buildTrustRoot,
  decodeBase64,
  decodePem,
  decodePublicKeyPem,
  encodeBase64,
} from "../../src/attest/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import { auditLog } from "../../src/cli/commands/audit.ts";
import { localTsa } from "../attest/timestamp/_openssl_tsa.ts";
import { makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 4, falsify: [] });
const spki = decodePem(await Deno.readTextFile(f.pub), "PUBLIC KEY");
const out = `${f.dir}/bundled`;
await auditLog({
  log: f.log,
  randomness: "ab".repeat(32),
  round: "7",
  k: "2",
  keys: [f.key],
  out,
  progress: false,
  threads: "1",
  bundle: true,
});
const bundleJson = JSON.parse(await Deno.readTextFile(`${out}/attestation.sigstore.json`));

type Root = Parameters<typeof toTrustMaterial>[0];
/** Verifies with @sigstore/verify: the inspector key by hint, optional TSA, no tlog. */
function sigstoreVerify(json: unknown, o: { key?: Uint8Array; tsa?: Uint8Array[] } = {}) {
  const root = {
    certificateAuthorities: [],
    tlogs: [],
    ctlogs: [],
    timestampAuthorities: o.tsa === undefined ? [] : [{
      certChain: { certificates: o.tsa.map((rawBytes) => ({ rawBytes })) },
      validFor: { start: new Date(0) },
    }],
  } as unknown as Root;
  const hint = (json as { verificationMaterial: { publicKey: { hint: string } } })
    .verificationMaterial.publicKey.hint;
  const material = toTrustMaterial(root, { [hint]: { rawBytes: o.key ?? spki } } as never);
  const verifier = new Verifier(material, {
    tlogThreshold: 0,
    ctlogThreshold: 0,
    timestampThreshold: o.tsa === undefined ? 0 : 1,
  });
  return verifier.verify(toSignedEntity(bundleFromJSON(json)));
}

Deno.test("@sigstore/verify accepts the bundle audit --bundle writes, and refuses tampering", () => {
  assert.equal(bundleJson.mediaType, "application/vnd.dev.sigstore.bundle.v0.3+json");
  sigstoreVerify(bundleJson);
  const tampered = structuredClone(bundleJson);
  const payload = decodeBase64(tampered.dsseEnvelope.payload);
  payload[20] = (payload[20] as number) ^ 1;
  tampered.dsseEnvelope.payload = btoa(String.fromCharCode(...payload));
  assert.throws(() => sigstoreVerify(tampered), /signature verification failed/);
  const otherKey = spki.slice();
  otherKey[otherKey.length - 1] = (otherKey[otherKey.length - 1] as number) ^ 1;
  assert.throws(() => sigstoreVerify(bundleJson, { key: otherKey }));
});

Deno.test({
  name: "bundle --timestamp adds an RFC 3161 token that @sigstore/verify checks against the TSA",
  fn: async () => {
    const tsa = await localTsa();
    const env = JSON.parse(await Deno.readTextFile(`${out}/attestation.dsse.json`));
    const sig = decodeBase64(env.signatures[0].sig);
    await Deno.writeFile(`${f.dir}/sig.tsr`, await tsa.stamp(sig));
    const r = await runBitaudit([
      "bundle",
      `${out}/attestation.dsse.json`,
      "--timestamp",
      `${f.dir}/sig.tsr`,
      "--out",
      `${f.dir}/stamped.sigstore.json`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const stamped = JSON.parse(await Deno.readTextFile(`${f.dir}/stamped.sigstore.json`));
    assert.equal(
      stamped.verificationMaterial.timestampVerificationData.rfc3161Timestamps.length,
      1,
    );
    const leaf = decodePem(await Deno.readTextFile(`${tsa.dir}/tsa.crt`), "CERTIFICATE");
    sigstoreVerify(stamped, { tsa: [leaf, tsa.caDer] });
    // A token over another signature does not count as the one timestamp required.
    const other = sig.slice();
    other[0] = (other[0] as number) ^ 1;
    const wrong = structuredClone(stamped);
    wrong.verificationMaterial.timestampVerificationData.rfc3161Timestamps[0].signedTimestamp =
      btoa(String.fromCharCode(...await tsa.stamp(other, { response: true })));
    assert.throws(() => sigstoreVerify(wrong, { tsa: [leaf, tsa.caDer] }));
    // And bundle refuses to ship such a token in the first place, writing nothing.
    await Deno.writeFile(`${f.dir}/other.tsr`, await tsa.stamp(other));
    const refused = await runBitaudit([
      "bundle",
      `${out}/attestation.dsse.json`,
      "--timestamp",
      `${f.dir}/other.tsr`,
      "--out",
      `${f.dir}/refused.sigstore.json`,
    ]);
    assertCliCode(refused.stderr, "BAD_TIMESTAMP_TOKEN");
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not over the attestation's \(first\) signature: the token is/);
    await assert.rejects(Deno.stat(`${f.dir}/refused.sigstore.json`), Deno.errors.NotFound);
  },
});

const bundlePath = `${out}/attestation.sigstore.json`;
const envelopePath = `${out}/attestation.dsse.json`;
/** Check rows with the verification time cut out (two runs are a moment apart). */
const rows = (stdout: string) =>
  JSON.parse(stdout).checks.map((
    c: { check: string; ok: boolean; detail: string },
  ) => [c.check, c.ok, c.detail.replace(/verification \S+/, "verification <now>")]);

Deno.test("check reads the bundle audit --bundle writes: the envelope's checks, its form said", async () => {
  const fromBundle = await runBitaudit(["check", bundlePath, "--trust-root", f.trustRoot]);
  assert.equal(fromBundle.code, 0, fromBundle.stderr);
  assert.match(fromBundle.stdout, /^read a Sigstore bundle v0\.3 \(DSSE envelope inside\)$/m);
  assert.match(fromBundle.stdout, /^VALID attestation: /m);
  const [a, b] = await Promise.all(
    [bundlePath, envelopePath].map((p) =>
      runBitaudit(["check", p, "--trust-root", f.trustRoot, "--json"])
    ),
  );
  assert.deepEqual(rows(a!.stdout), rows(b!.stdout));
  assert.equal(JSON.parse(a!.stdout).attestationFormat, "sigstore-bundle");
  assert.equal(JSON.parse(b!.stdout).attestationFormat, "dsse");
});

Deno.test("check fails a bundle whose payload changed after signing (exit 1)", async () => {
  const tampered = structuredClone(bundleJson);
  tampered.dsseEnvelope.payload = btoa(
    atob(tampered.dsseEnvelope.payload).replace('"verdict":"PASSED"', '"verdict":"FAILED"'),
  );
  assert.notEqual(tampered.dsseEnvelope.payload, bundleJson.dsseEnvelope.payload);
  await Deno.writeTextFile(`${f.dir}/tampered.sigstore.json`, JSON.stringify(tampered));
  const r = await runBitaudit([
    "check",
    `${f.dir}/tampered.sigstore.json`,
    "--trust-root",
    f.trustRoot,
  ]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^FAIL signatures: /m);
  assert.match(r.stdout, /^INVALID attestation$/m);
});

Deno.test("bundle refuses an envelope that is not an audit verdict (BAD_STATEMENT), writing nothing", async () => {
  // Review h56: an announcement's envelope was bundled (exit 0), and check then said INVALID.
  const env = JSON.parse(await Deno.readTextFile(envelopePath));
  const statement = JSON.parse(new TextDecoder().decode(decodeBase64(env.payload)));
  const edits: [string, Record<string, unknown>, RegExp][] = [
    [
      "announcement",
      {
        payload: encodeBase64(new TextEncoder().encode(JSON.stringify({
          ...statement,
          predicateType: "https://bitaudit.dev/audit-announcement/v1",
        }))),
      },
      /predicateType is 'https:\/\/bitaudit\.dev\/audit-announcement\/v1', not a verdict's/,
    ],
    ["payload type", { payloadType: "text/plain" }, /payloadType is 'text\/plain'/],
  ];
  for (const [name, edit, message] of edits) {
    const path = `${f.dir}/not-verdict-${name.replace(" ", "-")}.dsse.json`;
    await Deno.writeTextFile(path, JSON.stringify({ ...env, ...edit }));
    const to = `${f.dir}/not-verdict.sigstore.json`;
    const r = await runBitaudit(["bundle", path, "--out", to]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assertCliCode(r.stderr, "BAD_STATEMENT");
    assert.match(r.stderr, message);
    await assert.rejects(Deno.stat(to), Deno.errors.NotFound);
  }
});

Deno.test("bundle --timestamp and check --timestamp say a token file that is not there is 'no such file', as every reader does, and write nothing", async () => {
  const missing = `${f.dir}/missing.tsr`;
  const to = `${f.dir}/missing-token.sigstore.json`;
  for (
    const args of [
      ["bundle", envelopePath, "--out", to, "--timestamp", missing],
      ["check", envelopePath, "--trust-root", f.trustRoot, "--timestamp", missing],
    ]
  ) {
    const r = await runBitaudit(args);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `error [INPUT_MISSING]: Cannot read '${missing}': no such file\n`);
  }
  await assert.rejects(Deno.stat(to), Deno.errors.NotFound);
});

Deno.test("check refuses what is not a bundle bitaudit writes with BAD_ENVELOPE (exit 2)", async () => {
  const edits: [string, (b: typeof bundleJson) => void][] = [
    ["unknown top field", (b) => b.extra = 1],
    ["unknown material", (b) => b.verificationMaterial.certificate = { rawBytes: "AA==" }],
    ["other media type", (b) => b.mediaType = "application/vnd.dev.sigstore.bundle.v0.1+json"],
    ["log entries", (b) => b.verificationMaterial.tlogEntries = [{ logIndex: "1" }]],
    ["no envelope", (b) => delete b.dsseEnvelope],
    ["unknown envelope field", (b) => b.dsseEnvelope.mediaType = "x"],
  ];
  for (const [name, edit] of edits) {
    const b = structuredClone(bundleJson);
    edit(b);
    await Deno.writeTextFile(`${f.dir}/bad.sigstore.json`, JSON.stringify(b));
    const r = await runBitaudit([
      "check",
      `${f.dir}/bad.sigstore.json`,
      "--trust-root",
      f.trustRoot,
    ]);
    assert.equal(r.code, 2, name);
    assertCliCode(r.stderr, "BAD_ENVELOPE");
    assert.match(r.stderr, /Cannot read (Sigstore bundle|envelope): /, name);
  }
});

Deno.test({
  name: "check verifies the RFC 3161 timestamp a bundle carries, as check --timestamp does",
  fn: async () => {
    const tsa = await localTsa("bundle check TSA");
    const env = JSON.parse(await Deno.readTextFile(envelopePath));
    await Deno.writeFile(`${f.dir}/own.tsr`, await tsa.stamp(decodeBase64(env.signatures[0].sig)));
    const stamped = `${f.dir}/own.sigstore.json`;
    const made = await runBitaudit([
      "bundle",
      envelopePath,
      "--timestamp",
      `${f.dir}/own.tsr`,
      "--out",
      stamped,
    ]);
    assert.equal(made.code, 0, made.stderr);
    const root = `${f.dir}/tsa-root.json`;
    const doc = buildTrustRoot([decodePublicKeyPem(await Deno.readTextFile(f.pub))], {
      start: "2026-01-01T00:00:00Z",
      tsa: [{ certificate: tsa.caDer, name: "local" }],
    });
    await Deno.writeTextFile(root, JSON.stringify(doc));
    const [inBundle, given] = await Promise.all([
      runBitaudit(["check", stamped, "--trust-root", root, "--json"]),
      runBitaudit([
        "check",
        envelopePath,
        "--trust-root",
        root,
        "--timestamp",
        `${f.dir}/own.tsr`,
        "--json",
      ]),
    ]);
    assert.equal(inBundle.code, 0, inBundle.stdout);
    assert.deepEqual(rows(inBundle.stdout), rows(given.stdout));
    assert.ok(rows(inBundle.stdout).some((r: unknown[]) => r[0] === "timestamp" && r[1] === true));
    const text = await runBitaudit(["check", stamped, "--trust-root", root]);
    assert.match(text.stdout, /^read a Sigstore bundle v0\.3; its RFC 3161 timestamp is checked/m);
    // Review h148: a token given with --timestamp (to a bundle without one, or in place of the
    // bundle's own) was said to be the bundle's.
    const bare = `${out}/attestation.sigstore.json`;
    for (const bundle of [bare, stamped]) {
      const r = await runBitaudit(
        ["check", bundle, "--trust-root", root, "--timestamp", `${f.dir}/own.tsr`],
      );
      assert.equal(r.code, 0, r.stdout);
      assert.match(
        r.stdout,
        /^read a Sigstore bundle v0\.3; the RFC 3161 token given with --timestamp is checked, not one the bundle carries \(DSSE envelope inside\)$/m,
      );
    }
  },
});

/** `audit --bundle` of a fixture's whole log (k: its record count) into `out`. */
const bundledAudit = (fx: typeof f, out: string, k: number, more: string[] = []) =>
  runBitaudit([
    ...["audit", "--log", fx.log, "--randomness", "ab".repeat(32), "--round", "7"],
    ...["--k", String(k), "--key", fx.key, "--threads", "1", "--bundle", "--out", out, ...more],
  ]);

Deno.test("audit --bundle names the bundle among the files it wrote, in text and --json (review h108)", async () => {
  const text = await bundledAudit(f, `${f.dir}/bundled-text`, 2);
  assert.equal(text.code, 0, text.stderr);
  assert.match(
    text.stdout,
    /wrote \S+\/attestation\.dsse\.json, \S+\/attestation\.sigstore\.json, \S+\/report\.md and \S+\/report\.html/,
  );
  const json = await bundledAudit(f, `${f.dir}/bundled-json`, 2, ["--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(JSON.parse(json.stdout).bundle, `${f.dir}/bundled-json/attestation.sigstore.json`);
});

Deno.test("audit --bundle of a log with a falsified record writes and names the bundle of the FAILED verdict (exit 1), which @sigstore/verify accepts and check reads as FAILED", async () => {
  // The bundle had been written and checked for PASSED verdicts only.
  const lying = await makeAuditFixture({
    records: 4,
    falsify: [{ seq: 2, kind: "fingerprint", bit: 3 }],
  });
  const out = `${lying.dir}/bundled-failed`;
  const r = await bundledAudit(lying, out, 4);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /^verdict: FAILED /m);
  assert.match(r.stdout, /wrote \S+\/attestation\.dsse\.json, \S+\/attestation\.sigstore\.json, /);
  const bundle = `${out}/attestation.sigstore.json`;
  const key = decodePem(await Deno.readTextFile(lying.pub), "PUBLIC KEY");
  sigstoreVerify(JSON.parse(await Deno.readTextFile(bundle)), { key });
  const checked = await runBitaudit([
    ...["check", bundle, "--trust-root", lying.trustRoot, "--require-verdict", "FAILED"],
  ]);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
  assert.match(checked.stdout, /^read a Sigstore bundle v0\.3 \(DSSE envelope inside\)$/m);
  assert.match(checked.stdout, /^Verdict FAILED: /m);
});
