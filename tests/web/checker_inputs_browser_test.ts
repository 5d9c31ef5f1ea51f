/**
 * Issue 25 in the browser checker: every field is escaped as the CLI prints it (bidi overrides,
 * isolates, C0/C1 controls and DEL, in signed fields and in file names); the page reads the
 * Sigstore bundle `bitaudit` writes and an RFC 3161 token, picked or sorted in from the drop
 * zone's chooser; a prover key dated after its checkpoint is explained with its dates and
 * `--prover-valid-from`, not as tampering. A trust root dropped with the attestation fills no slot
 * even when none was chosen by hand, and one over 16 MiB is refused from its size, as by the CLI;
 * two dropped files that claim one slot fill neither, whatever their order; the drop note names a
 * file it did not recognise escaped; a token chosen beside a stamped bundle replaces the bundle's
 * own, as `check --timestamp` does.
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  decodeBase64,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  encodeStatement,
  parseEnvelope,
  publicKeyFromPrivate,
  signEnvelope,
  type Statement,
} from "../../mod.ts";
import { checkFile } from "../../src/cli/commands/check.ts";
import { escapeForTerminal } from "../../src/escape_text.ts";
import { localTsa } from "../attest/timestamp/_openssl_tsa.ts";
import { auditArgs, makeAuditFixture } from "../cli/_audit_fixture.ts";
import { runBitaudit } from "../cli/_run.ts";
import {
  beaconAudit,
  f as trust,
  inspectorPub,
  proverPub,
  QUICKNET,
} from "../cli/_trust_fixture.ts";
import { driveChecker, type PageCase, type PageResult } from "./_checker_browser.ts";

/** U+202E, U+2066..2069, C0 controls, C1 controls, DEL. */
const HOSTILE = "\u202e\u2066\u2067\u2068\u2069\u0000\u0007\u001b[2J\u0085\u009b\u007f";
// deno-lint-ignore no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const f = await makeAuditFixture({ records: 6, falsify: [] });
const out = `${f.dir}/out`;
const audited = await runBitaudit([...auditArgs(f, out, 4), "--bundle"]);
assert.equal(audited.code, 0, audited.stderr);
const envelope = `${out}/attestation.dsse.json`;
const bundle = `${out}/attestation.sigstore.json`;

/** The genuine statement with hostile text in fields the checks do not recompute, re-signed. */
async function hostileAttestation(): Promise<string> {
  const env = parseEnvelope(await Deno.readTextFile(envelope));
  const st = JSON.parse(new TextDecoder().decode(decodeBase64(env.payload)));
  st.predicate.verifier.runtime = `deno${HOSTILE}`;
  const privateKey = decodePrivateKeyPem(await Deno.readTextFile(f.key));
  const key = { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };
  const signed = await signEnvelope(encodeStatement(st as Statement), {
    payloadType: env.payloadType,
    keys: [key],
  });
  // The file name carries the same characters: the page shows it as it is chosen.
  const path = `${f.dir}/bidi-\u202e\u2066${"\u0007"}.json`;
  await Deno.writeTextFile(path, JSON.stringify(signed));
  return path;
}

/**
 * A TSA, a token over the envelope's signature, a trust root listing the TSA, a stamped bundle,
 * and a token of the same TSA over other bytes (`stray`).
 */
async function stamped(): Promise<{ token: string; root: string; bundle: string; stray: string }> {
  const tsa = await localTsa("checker page TSA");
  const env = JSON.parse(await Deno.readTextFile(envelope));
  const token = `${f.dir}/attestation.tsr`;
  await Deno.writeFile(token, await tsa.stamp(decodeBase64(env.signatures[0].sig)));
  const root = `${f.dir}/tsa-root.json`;
  const doc = buildTrustRoot([decodePublicKeyPem(await Deno.readTextFile(f.pub))], {
    start: "2026-01-01T00:00:00Z",
    tsa: [{ certificate: tsa.caDer, name: "local" }],
  });
  await Deno.writeTextFile(root, JSON.stringify(doc));
  const b = `${f.dir}/stamped.sigstore.json`;
  const made = await runBitaudit(["bundle", envelope, "--timestamp", token, "--out", b]);
  assert.equal(made.code, 0, made.stderr);
  const stray = `${f.dir}/stray.tsr`;
  await Deno.writeFile(stray, await tsa.stamp(new TextEncoder().encode("not this signature")));
  return { token, root, bundle: b, stray };
}

/** A trust root as `key trust-root --prover` writes it by default: the prover dated from 2026. */
async function defaultProverRoot(): Promise<string> {
  const path = `${trust.dir}/default-prover-root.json`;
  const doc = buildTrustRoot([inspectorPub], {
    start: "2026-01-01T00:00:00Z",
    provers: { keys: [proverPub], start: "2026-01-01T00:00:00Z" },
    drand: [{ chainHash: QUICKNET, beaconId: "quicknet" }],
  });
  await Deno.writeTextFile(path, JSON.stringify(doc));
  return path;
}

const ts = await stamped();
const cases: Record<string, PageCase["files"]> = {
  hostile: { attestation: await hostileAttestation(), trustRoot: f.trustRoot },
  bundle: { attestation: bundle, trustRoot: f.trustRoot },
  lateProver: {
    attestation: (await beaconAudit()).attestation,
    trustRoot: await defaultProverRoot(),
  },
  ...(ts === undefined ? {} : {
    token: { attestation: envelope, trustRoot: ts.root, timestamp: ts.token },
    stampedBundle: { attestation: ts.bundle, trustRoot: ts.root },
    // The user's token replaces the bundle's own, as with `check --timestamp`.
    strayOverBundle: { attestation: ts.bundle, trustRoot: ts.root, timestamp: ts.stray },
  }),
};
const names = Object.keys(cases);
const keyboard: PageCase[] = ts === undefined ? [] : [
  { files: { attestation: envelope, trustRoot: ts.root, timestamp: ts.token }, keyboard: true },
  { files: cases.stampedBundle!, keyboard: true },
];
// The sender's trust root (it lists the signing key), beside the attestation under another name,
// dropped with it, and no trust root chosen in its own field.
const sendersRoot = `${f.dir}/verdict-evidence.json`;
await Deno.copyFile(f.trustRoot, sendersRoot);
// A trust root one byte over the page's limit, as `bitaudit check` reads (sparse: never written).
const bigRoot = `${f.dir}/big-root.json`;
await Deno.writeFile(bigRoot, new Uint8Array());
await Deno.truncate(bigRoot, 16 * 1024 * 1024 + 1);
const oddName = `${f.dir}/note-\u202e\u2066\u0007\u001b[2J.txt`;
await Deno.writeTextFile(oddName, "not an input\n");
const twin = `${f.dir}/twin.dsse.json`;
await Deno.copyFile(envelope, twin);
const shown = await driveChecker([
  ...names.map((n) => ({ files: cases[n]! })),
  { files: { attestation: envelope, trustRoot: sendersRoot, dropRoot: true }, keyboard: true },
  { files: { attestation: envelope, trustRoot: bigRoot } },
  // Two copies of the attestation in one drop: neither is taken, whichever comes first.
  ...[[envelope, twin], [twin, envelope]].map(([attestation, extra]) => ({
    files: { attestation: attestation!, trustRoot: f.trustRoot, extra: [extra!] },
    keyboard: true,
  })),
  // A file the page does not recognise, its name hostile, dropped with the attestation.
  { files: { attestation: envelope, trustRoot: f.trustRoot, extra: [oddName] }, keyboard: true },
  ...keyboard,
]);
const page: Record<string, PageResult> = Object.fromEntries(names.map((n, i) => [n, shown[i]!]));
const droppedRoot = shown[names.length]!;
const tooLarge = shown[names.length + 1]!;
const twins = shown.slice(names.length + 2, names.length + 4);
const unknownDropped = shown[names.length + 4]!;
const byKeyboard = shown.slice(names.length + 5);

const _now = (row: string[]) =>
  row.map((c) => c.replace(/verification \d{4}-\d\d-\d\dT[\d:.]+Z/g, "verification <now>"));

/** The page's named checks are the CLI's, as the CLI prints them. */
async function sameAsCli(p: PageResult, files: PageCase["files"]) {
  const r = await checkFile(files);
  // The page holds no release manifest: the CLI's `assets` line is its own.
  const rows = r.checks.filter((c) => c.check !== "assets")
    .map((c) => [c.check, c.ok ? "ok" : "FAIL", escapeForTerminal(c.detail)]);
  assert.deepEqual(p.checks.map(_now), rows.map(_now));
  assert.equal(p.state, r.valid ? "valid" : "invalid");
}

Deno.test("checker page: bidi overrides and controls in signed fields and file names show escaped, as the CLI prints them", async () => {
  const p = page.hostile!;
  assert.equal(p.state, "valid");
  // (A log id holds only letters, digits and ._:- ; the verifier's runtime is free text.)
  assert.ok(p.text.includes(escapeForTerminal(`deno${HOSTILE}`)), "the verifier, escaped");
  assert.doesNotMatch(p.text, UNSAFE, "no character of the result acts on the text");
  assert.equal(
    p.chosen[0],
    escapeForTerminal(
      `bidi-\u202e\u2066\u0007.json (${
        (await Deno.stat(cases.hostile!.attestation)).size.toLocaleString("en")
      } bytes)`,
    ),
  );
  assert.doesNotMatch(p.chosen.join(""), UNSAFE);
  await sameAsCli(p, cases.hostile!);
});

Deno.test("checker page: the Sigstore bundle bitaudit writes checks as its envelope does", async () => {
  const p = page.bundle!;
  assert.equal(p.state, "valid");
  assert.equal(p.verdict, "✔ Verdict PASSED: every sampled claim was recomputed and held");
  assert.equal(p.verdictClass, "verdict passed");
  assert.match(p.text, /The signature is genuine \(read from a Sigstore bundle\)/);
  await sameAsCli(p, cases.bundle!);
});

Deno.test("checker page: a prover key dated after its checkpoint is explained with the dates and --prover-valid-from, not as tampering", async () => {
  const p = page.lateProver!;
  assert.equal(p.headline, "✖ INVALID attestation");
  assert.match(
    p.text,
    /from 2026-01-01T00:00:00Z \(set with `bitaudit key trust-root --prover-valid-from`/,
  );
  assert.match(p.text, /The prover signed the checkpoint at 2023-08-23T15:00:00Z\./);
  assert.match(p.text, /not a sign of tampering/);
  assert.doesNotMatch(p.text, /changed after it was signed/);
  await sameAsCli(p, cases.lateProver!);
});

Deno.test({
  name:
    "checker page: an RFC 3161 token, picked or carried by a bundle, is checked as check --timestamp does",
  fn: async () => {
    for (const n of ["token", "stampedBundle"] as const) {
      const p = page[n]!;
      assert.equal(p.state, "valid", n);
      assert.equal(p.checks[0]?.[0], "timestamp", n);
      assert.equal(p.checks[0]?.[1], "ok", n);
      assert.match(p.text, /An RFC 3161 timestamp over the signature was verified/);
      await sameAsCli(p, cases[n]!);
    }
    // From the drop zone's chooser the token and the bundle are sorted in by their content.
    const [loose, inBundle] = byKeyboard;
    assert.equal(loose!.state, "valid");
    assert.match(loose!.chosen[3]!, /^attestation\.tsr \(/);
    assert.equal(loose!.checks[0]?.[0], "timestamp");
    assert.equal(inBundle!.state, "valid");
    assert.match(inBundle!.chosen[0]!, /^stamped\.sigstore\.json \(/);
    assert.equal(inBundle!.chosen[3], "none chosen");
    assert.equal(inBundle!.checks[0]?.[0], "timestamp");
  },
});

Deno.test("checker page: a trust root dropped with the attestation, none chosen by hand, fills no slot and the check stays off", () => {
  assert.equal(droppedRoot.state, "not-run");
  assert.match(droppedRoot.chosen[0]!, /^attestation\.dsse\.json \(/);
  assert.equal(droppedRoot.chosen[1], "none chosen");
  assert.match(
    droppedRoot.dropNote,
    /^Not taken from the dropped files: verdict-evidence\.json \(a trust root; choose your own in the Trust root field/,
  );
  assert.equal(droppedRoot.workers, 0, "no check ran");
});

Deno.test("checker page: a trust root over 16 MiB is refused from its size, as bitaudit check refuses it, before it is read", async () => {
  assert.equal(tooLarge.state, "refused");
  assert.match(tooLarge.text, /Cannot read the trust root: 16777217 bytes, at most 16777216/);
  assert.equal(tooLarge.workers, 0, "no check ran");
  const cli = await runBitaudit(["check", envelope, "--trust-root", bigRoot]);
  assert.equal(cli.code, 2, cli.stderr);
  assert.match(cli.stderr, /INPUT_TOO_LARGE/);
});

Deno.test("checker page: two dropped files that both look like the attestation fill neither slot, in either order", () => {
  for (const p of twins) {
    assert.equal(p.state, "not-run");
    assert.equal(p.chosen[0], "none chosen");
    assert.match(p.chosen[1]!, /^trust-root\.json \(/);
    assert.match(
      p.dropNote,
      /^2 files look like the attestation \((attestation|twin)\.dsse\.json, (attestation|twin)\.dsse\.json\): none was taken; add the one you mean on its own$/,
    );
    assert.equal(p.workers, 0, "no check ran");
  }
});

Deno.test("checker page: the drop note names a file it did not recognise escaped, as the CLI prints names", () => {
  assert.equal(unknownDropped.state, "valid");
  assert.equal(
    unknownDropped.dropNote,
    escapeForTerminal(
      "Not recognised (expected an attestation, a trust root, a claim log or a timestamp): " +
        "note-\u202e\u2066\u0007\u001b[2J.txt",
    ),
  );
  assert.doesNotMatch(unknownDropped.dropNote, UNSAFE);
});

Deno.test({
  name:
    "checker page: a token chosen beside a stamped bundle replaces the bundle's own, as check --timestamp does",
  fn: async () => {
    const p = page.strayOverBundle!;
    // The chosen token covers other bytes: the check fails on it, though the bundle's would hold.
    assert.equal(p.state, "invalid");
    assert.equal(p.checks[0]?.[0], "timestamp");
    assert.equal(p.checks[0]?.[1], "FAIL");
    assert.equal(page.stampedBundle!.state, "valid");
    await sameAsCli(p, cases.strayOverBundle!);
  },
});
