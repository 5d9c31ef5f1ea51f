/**
 * Issue 19, part 4: revocation and time. A signer's stated time cannot clear a revoked or expired
 * key: without independent evidence of the signing time the key must be valid at verification
 * time; a stated time in the future is refused; `check` names the key and why.
 */
import assert from "node:assert/strict";
import { hostileTable } from "./_hostile.ts";
import { der, handPki, handToken, tlv } from "../attest/timestamp/_hand_token.ts";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { auditLog } from "../../src/cli/commands/audit.ts";
import {
  addSignature,
  checkAttestation,
  createLocalTsa,
  decodeBase64,
  decodePrivateKeyPem,
  encodeBase64,
  encodeSpki,
  generateKeyPair,
  keyId,
  parseEnvelope,
  parseTrustRoot,
  publicKeyFromPrivate,
  signEnvelope,
} from "../../src/attest/mod.ts";

const fx = await makeAuditFixture({ records: 3, falsify: [] });

/** Signs an audit of the fixture stating `time`; returns the attestation path. */
async function attestAt(time: string, name: string): Promise<string> {
  const r = await auditLog({
    log: fx.log,
    randomness: "ab".repeat(32),
    round: "1",
    k: "1",
    keys: [fx.key],
    out: `${fx.dir}/${name}`,
    progress: false,
    threads: "1",
    time,
  });
  return r.attestation;
}

const may = await attestAt("2026-05-01T00:00:00Z", "may");

/**
 * The same attestation stating a time in the future, signed by the inspector's key (the CLI
 * refuses to sign one: `--time` may not be in the future).
 */
async function restatedAt(attestation: string, time: string, name: string): Promise<string> {
  const env = parseEnvelope(await Deno.readTextFile(attestation));
  const st = JSON.parse(new TextDecoder().decode(decodeBase64(env.payload)));
  st.predicate.timeVerified = time;
  const privateKey = decodePrivateKeyPem(await Deno.readTextFile(fx.key));
  const key = { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };
  const signed = await signEnvelope(new TextEncoder().encode(JSON.stringify(st)), {
    payloadType: env.payloadType,
    keys: [key],
  });
  const path = `${fx.dir}/${name}.dsse.json`;
  await Deno.writeTextFile(path, JSON.stringify(signed));
  return path;
}
const future = await restatedAt(may, "2099-01-01T00:00:00Z", "future");
const root = JSON.parse(await Deno.readTextFile(fx.trustRoot));
const withKey = (extra: Record<string, unknown>) =>
  JSON.stringify({ ...root, keys: [{ ...root.keys[0], ...extra }] });
const revoked = withKey({ revoked: { time: "2026-06-01T00:00:00Z", reason: "key compromise" } });
const expired = withKey({
  validFor: { start: "2026-01-01T00:00:00Z", end: "2026-06-01T00:00:00Z" },
});

const check = (attestation: string, trust: string) => async (dir: string) => {
  await Deno.writeTextFile(`${dir}/root.json`, trust);
  return ["check", attestation, "--trust-root", `${dir}/root.json`];
};

hostileTable("time", [
  {
    name: "a key revoked after the stated time but before today does not verify",
    args: check(may, revoked),
    exit: 1,
    check: (run) => {
      assert.match(run.stdout, /^FAIL signatures: 0 valid inspector signature/m);
      assert.match(
        run.stdout,
        new RegExp(`key ${fx.keyid.slice(0, 16)}… is revoked: key compromise`),
      );
      assert.match(run.stdout, /at the verification time/);
    },
  },
  {
    name: "a key expired after the stated time but before today does not verify",
    args: check(may, expired),
    exit: 1,
    check: (run) => assert.match(run.stdout, /is expired at the verification time/),
  },
  {
    name: "a stated time in the future is refused",
    args: check(future, JSON.stringify(root)),
    exit: 1,
    check: (run) => assert.match(run.stdout, /^FAIL time: the stated time 2099-01-01.* is after/m),
  },
  {
    name: "the same attestation verifies against a trust root without revocation",
    args: check(may, JSON.stringify(root)),
    exit: 0,
  },
]);

Deno.test("checkAttestation() accepts a later-revoked key when a time source evidences the signing time", async () => {
  const envelope = parseEnvelope(await Deno.readTextFile(may));
  const trustRoot = parseTrustRoot(revoked);
  const evidence = { kind: "rfc3161", time: Date.parse("2026-05-01T00:00:05Z"), signature: 0 };
  const timed = await checkAttestation(envelope, {
    trustRoot,
    timeSources: [{ evidence: () => Promise.resolve(evidence) }],
  });
  assert.equal(timed.valid, true, JSON.stringify(timed.checks));
  const late = await checkAttestation(envelope, {
    trustRoot,
    timeSources: [{
      evidence: () => Promise.resolve({ ...evidence, time: Date.parse("2026-07-01") }),
    }],
  });
  assert.equal(late.valid, false);
  const none = await checkAttestation(envelope, {
    trustRoot,
    timeSources: [{ evidence: () => Promise.resolve(null) }],
  });
  assert.equal(none.valid, false);
  const before = await checkAttestation(envelope, { trustRoot, now: new Date("2026-05-02") });
  assert.equal(before.valid, true, "valid while the verification time precedes the revocation");
});

// A TSA the trust roots below pin, and a second inspector key revoked on 2026-06-01.
const tsa = await createLocalTsa({
  name: "test TSA",
  notBefore: Date.parse("2026-01-01T00:00:00Z"),
  notAfter: Date.parse("2027-01-01T00:00:00Z"),
});
const pinned = (keys: unknown[]) =>
  parseTrustRoot(JSON.stringify({
    ...root,
    keys,
    tsa: [{ certificate: encodeBase64(tsa.anchor), name: "test TSA" }],
  }));
const fxKey = root.keys[0];
const revokedFx = { ...fxKey, revoked: { time: "2026-06-01T00:00:00Z", reason: "key compromise" } };
const thief = await generateKeyPair();
const thiefKey = {
  keyid: keyId(thief.publicKey),
  publicKey: encodeBase64(encodeSpki(thief.publicKey)),
  role: "inspector",
  validFor: { start: "2026-01-01T00:00:00Z" },
  revoked: { time: "2026-06-01T00:00:00Z", reason: "key compromise" },
};
const stampAt = (sig: string, time: string) =>
  tsa.stamp(decodeBase64(sig, { alphabet: "any" }), { time: Date.parse(time) });
const signaturesCheck = (r: { checks: readonly { check: string; detail: string }[] }) =>
  r.checks.find((c) => c.check === "signatures")?.detail ?? "";

Deno.test("checkAttestation() judges a revoked key at the token's time only for the signature the token covers", async () => {
  const envelope = parseEnvelope(await Deno.readTextFile(may));
  const trustRoot = pinned([revokedFx]);
  const own = await checkAttestation(envelope, {
    trustRoot,
    timestamp: await stampAt(envelope.signatures[0]!.sig, "2026-05-01T00:00:05Z"),
  });
  assert.equal(own.valid, true, JSON.stringify(own.checks));
  // A token borrowed from another message: it covers a decoy entry no trusted key made, so it
  // dates nothing, and the revoked key is judged at the verification time.
  const decoy = encodeBase64(crypto.getRandomValues(new Uint8Array(64)));
  const borrowed = await checkAttestation(
    { ...envelope, signatures: [...envelope.signatures, { keyid: "", sig: decoy }] },
    { trustRoot, timestamp: await stampAt(decoy, "2026-05-01T00:00:05Z") },
  );
  assert.equal(borrowed.valid, false);
  assert.match(signaturesCheck(borrowed), /^0 valid inspector signature/);
  assert.match(signaturesCheck(borrowed), /revoked: key compromise at the verification time/);
  assert.match(
    signaturesCheck(borrowed),
    /the signing-time evidence covers signature 1, which no counted inspector key made/,
  );
});

Deno.test("checkAttestation() fails a token over a decoy entry even when a valid key's own signature counts: it would otherwise be shown as dating the signature", async () => {
  const envelope = parseEnvelope(await Deno.readTextFile(may));
  // The key is valid now: its signature counts without the token. The token covers a decoy entry
  // no trusted key made; a VALID report would say a timestamp dates the signature (the checker
  // page: "a timestamp token shows the signature existed at ...") when it dates nothing signed.
  const decoy = encodeBase64(crypto.getRandomValues(new Uint8Array(64)));
  const r = await checkAttestation(
    { ...envelope, signatures: [...envelope.signatures, { keyid: "", sig: decoy }] },
    { trustRoot: pinned([fxKey]), timestamp: await stampAt(decoy, "2026-05-01T00:00:05Z") },
  );
  assert.equal(r.valid, false);
  assert.equal(r.checks.find((c) => c.check === "signatures")?.ok, false);
  assert.match(signaturesCheck(r), /^1 valid inspector signature/);
  assert.match(
    signaturesCheck(r),
    /the signing-time evidence covers signature 1, which no counted inspector key made$/,
  );
});

Deno.test("checkAttestation() does not let a token over one signature date a co-signature", async () => {
  const envelope = parseEnvelope(await Deno.readTextFile(may));
  const trustRoot = pinned([fxKey, thiefKey]);
  // The thief of the revoked key co-signs today; the token covers the first signature only.
  const cosigned = await addSignature(envelope, thief);
  const timestamp = await stampAt(envelope.signatures[0]!.sig, "2026-05-01T00:00:05Z");
  const two = await checkAttestation(cosigned, { trustRoot, threshold: 2, timestamp });
  assert.equal(two.valid, false);
  assert.match(signaturesCheck(two), /^1 valid inspector signature/);
  assert.match(
    signaturesCheck(two),
    new RegExp(
      `key ${thiefKey.keyid.slice(0, 16)}… is revoked: key compromise at the verification`,
    ),
  );
  const one = await checkAttestation(cosigned, { trustRoot, timestamp });
  assert.equal(one.valid, true, JSON.stringify(one.checks));
});

Deno.test("checkAttestation() judges a revoked key at genTime plus an accuracy of four bytes, not at genTime", async () => {
  const envelope = parseEnvelope(await Deno.readTextFile(may));
  const { root: ca, signer } = await handPki();
  const trustRoot = parseTrustRoot(JSON.stringify({
    ...root,
    keys: [revokedFx],
    tsa: [{ certificate: encodeBase64(der(ca)), name: "hand TSA" }],
  }));
  // Stamped 2026-05-01, a month before the key's revocation, within 1 s or within 10,000,000 s
  // (about 116 days: the stamping instant may lie past 2026-06-01).
  const check = async (seconds: number[]) => {
    const timestamp = await handToken(
      decodeBase64(envelope.signatures[0]!.sig, { alphabet: "any" }),
      signer,
      {
        certificates: [signer.cert],
        genTime: "20260501000005Z",
        accuracy: tlv(0x30, tlv(0x02, seconds)),
      },
    );
    return await checkAttestation(envelope, { trustRoot, timestamp });
  };
  const tight = await check([1]);
  assert.equal(tight.valid, true, JSON.stringify(tight.checks));
  const loose = await check([0x00, 0x98, 0x96, 0x80]);
  assert.equal(loose.valid, false);
  assert.match(signaturesCheck(loose), /revoked: key compromise at the rfc3161 time 2026-08-24/);
});
