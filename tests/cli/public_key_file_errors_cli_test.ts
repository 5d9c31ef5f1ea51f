/**
 * A public key file (or a TSA certificate) that cannot be used is named in the one-line error,
 * with the option that gave it and escaped for the terminal, as a private key file is: "Cannot
 * read key '<file>' (--worker-pub): <why>" for a file that cannot be read, "Cannot use key
 * '<file>' (--worker-pub): <why>" for one that is no Ed25519 SPKI PEM, whichever command reads it.
 * An empty file is said to be empty, and a key of another algorithm (RSA, RSA-PSS and P-256 keys
 * made by WebCrypto, an X25519 key made by node:crypto) is named as a private key is: "it is an
 * RSA key, not an Ed25519 key".
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { encodeBase64, encodePem } from "../../src/attest/mod.ts";
import type { CliErrorCode } from "../../src/cli/exit_codes.ts";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { type CliRun, runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 2, falsify: [] });
const ESC = "a\u001b[2Jb";
const SHOWN = "a\\u{1b}[2Jb";

/**
 * A public key file of each kind refused, with the code and the start of what its error says, and
 * for some the whole of why.
 */
const BAD: Record<
  string,
  { path: string; code: CliErrorCode; verb: "read" | "use"; why?: string }
> = {
  missing: { path: `${f.dir}/missing-${ESC}.pub`, code: "INPUT_MISSING", verb: "read" },
  folder: { path: `${f.dir}/folder-${ESC}.pub`, code: "INPUT_MISSING", verb: "read" },
  empty: { path: `${f.dir}/empty-${ESC}.pub`, code: "BAD_PEM", verb: "use", why: "it is empty" },
  truncated: { path: `${f.dir}/truncated-${ESC}.pub`, code: "BAD_PEM", verb: "use" },
  private: { path: `${f.dir}/private-${ESC}.pub`, code: "BAD_PEM", verb: "use" },
  rsa: {
    path: `${f.dir}/rsa-${ESC}.pub`,
    code: "BAD_KEY",
    verb: "use",
    why: "it is an RSA key, not an Ed25519 key",
  },
  rsaPss: {
    path: `${f.dir}/rsa-pss-${ESC}.pub`,
    code: "BAD_KEY",
    verb: "use",
    why: "it is an RSA key, not an Ed25519 key",
  },
  p256: {
    path: `${f.dir}/p256-${ESC}.pub`,
    code: "BAD_KEY",
    verb: "use",
    why: "it is an EC key (P-256), not an Ed25519 key",
  },
  x25519: {
    path: `${f.dir}/x25519-${ESC}.pub`,
    code: "BAD_KEY",
    verb: "use",
    why: "it is an X25519 key, not an Ed25519 key",
  },
};
await Deno.mkdir(BAD.folder!.path);
await Deno.writeTextFile(BAD.empty!.path, "");
await Deno.writeTextFile(BAD.truncated!.path, (await Deno.readTextFile(f.pub)).slice(0, 40));
await Deno.writeTextFile(BAD.private!.path, await Deno.readTextFile(f.key));
const rsa = await crypto.subtle.generateKey(
  {
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: 1024,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  },
  true,
  ["sign", "verify"],
);
const rsaSpki = new Uint8Array(await crypto.subtle.exportKey("spki", rsa.publicKey));
await Deno.writeTextFile(BAD.rsa!.path, encodePem("PUBLIC KEY", rsaSpki));
assert.ok(encodeBase64(rsaSpki).startsWith("MIGfMA0GCSqGSIb3DQEBAQUAA4GN")); // an RSA SPKI
/** A WebCrypto key pair's public key as an SPKI PEM file. */
async function writeSpki(path: string, algorithm: RsaHashedKeyGenParams | EcKeyGenParams) {
  const pair = await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  await Deno.writeTextFile(path, encodePem("PUBLIC KEY", spki));
}
await writeSpki(BAD.rsaPss!.path, {
  name: "RSA-PSS",
  modulusLength: 1024,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: "SHA-256",
});
await writeSpki(BAD.p256!.path, { name: "ECDSA", namedCurve: "P-256" });
const x25519 = generateKeyPairSync("x25519").publicKey.export({ type: "spki", format: "pem" });
await Deno.writeTextFile(BAD.x25519!.path, String(x25519));

/** A file given where a TSA certificate is read: a public key, another PEM block. */
const NOT_A_CERTIFICATE = f.pub;

/** Asserts one escaped line naming the file and the option, with the code. */
function namesFile(r: CliRun, o: { kind: string; option: string; what?: string }) {
  const bad = BAD[o.kind]!;
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, bad.code);
  assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  assert.ok(!r.stderr.includes("\u001b"), JSON.stringify(r.stderr));
  const shown = bad.path.replace(ESC, SHOWN);
  const expected = `Cannot ${bad.verb} ${o.what ?? "key"} '${shown}' (${o.option}): `;
  assert.ok(r.stderr.includes(expected), `${o.kind}: ${r.stderr}`);
  if (bad.why !== undefined && o.what === undefined) {
    assert.ok(r.stderr.trimEnd().endsWith(`${expected}${bad.why}`), `${o.kind}: ${r.stderr}`);
  }
}

Deno.test("key trust-root names the --pub, --prover or --tsa file a public key or certificate error comes from, escaped, for every kind of bad file", async () => {
  const out = `${f.dir}/root.json`;
  for (const kind of Object.keys(BAD)) {
    const path = BAD[kind]!.path;
    const pub = await runBitaudit(["key", "trust-root", "--pub", f.pub, path, "--out", out]);
    namesFile(pub, { kind, option: "--pub" });
    const prover = await runBitaudit([
      ...["key", "trust-root", "--pub", f.pub, "--prover", path, "--out", out],
    ]);
    namesFile(prover, { kind, option: "--prover" });
    await assert.rejects(Deno.lstat(out), Deno.errors.NotFound);
  }
  for (const kind of ["missing", "folder"]) {
    const r = await runBitaudit([
      ...["key", "trust-root", "--pub", f.pub, "--tsa", BAD[kind]!.path, "--out", out],
    ]);
    namesFile(r, { kind, option: "--tsa", what: "certificate" });
  }
  const cert = await runBitaudit([
    ...["key", "trust-root", "--pub", f.pub, "--tsa", NOT_A_CERTIFICATE, "--out", out],
  ]);
  assert.equal(cert.code, 2, cert.stderr);
  assertCliCode(cert.stderr, "BAD_PEM");
  assert.ok(
    cert.stderr.includes(`Cannot use certificate '${NOT_A_CERTIFICATE}' (--tsa): it is a PUBLIC`),
    cert.stderr,
  );
  await assert.rejects(Deno.lstat(out), Deno.errors.NotFound);
});

Deno.test("claims consistency names the --pub file a public key error comes from", async () => {
  for (const kind of ["missing", "private"]) {
    const r = await runBitaudit([
      ...["claims", "consistency", "--old", f.log, "--new", f.log, "--log", f.log],
      ...["--pub", f.pub, BAD[kind]!.path],
    ]);
    namesFile(r, { kind, option: "--pub" });
  }
});

Deno.test("announce, audit and audit plan name the --prover-pub file a public key error comes from", async () => {
  const checkpoint = `${f.dir}/checkpoint.txt`;
  await Deno.writeTextFile(checkpoint, "not read as a checkpoint before the key\n");
  for (const kind of ["folder", "truncated", "rsa"]) {
    const path = BAD[kind]!.path;
    const announce = await runBitaudit([
      ...["announce", "--checkpoint", checkpoint, "--prover-pub", path, "--chain", f.log],
      ...["--round", "1", "--k", "1", "--key", f.key, "--out", `${f.dir}/announcement.json`],
    ]);
    namesFile(announce, { kind, option: "--prover-pub" });
    const trust = ["--checkpoint", checkpoint, "--prover-pub", path];
    const audit = await runBitaudit([...auditArgs(f, `${f.dir}/out`, 1), ...trust]);
    namesFile(audit, { kind, option: "--prover-pub" });
    const plan = await runBitaudit([
      ...["audit", "plan", ...auditArgs(f, `${f.dir}/plan.json`, 1).slice(1)],
      ...trust,
    ]);
    namesFile(plan, { kind, option: "--prover-pub" });
  }
});

Deno.test("audit merge and audit serve name the --worker-pub file a public key error comes from, among several", async () => {
  const plan = `${f.dir}/merge-plan.json`;
  const planned = await runBitaudit(["audit", "plan", ...auditArgs(f, plan, 1).slice(1)]);
  assert.equal(planned.code, 0, planned.stderr);
  for (const kind of ["empty", "private"]) {
    const workers = ["--worker-pub", f.worker.pub, BAD[kind]!.path];
    const merge = await runBitaudit([
      ...["audit", "merge", `${f.dir}/results.jsonl`, "--plan", plan, "--key", f.key],
      ...workers,
      ...["--out", `${f.dir}/merged`],
    ]);
    namesFile(merge, { kind, option: "--worker-pub" });
    const serve = await runBitaudit([
      ...["audit", "serve", "--plan", plan, "--nats", "nats://127.0.0.1:1", "--key", f.key],
      ...workers,
      ...["--out", `${f.dir}/served`],
    ]);
    namesFile(serve, { kind, option: "--worker-pub" });
  }
});
