/** `validityHints()`: the dates and flag behind a failed signature or announcement check. */
import assert from "node:assert/strict";
import {
  decodeBase64,
  encodeBase64,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  keyId,
  signEnvelope,
  type TrustRoot,
  UNSIGNED_READ_BYTES,
} from "../../src/attest/mod.ts";
import { validityHints } from "../../src/web/mod.ts";

const b64 = (v: unknown) => encodeBase64(new TextEncoder().encode(JSON.stringify(v)));
const statement = (predicate: unknown) => ({
  _type: "https://in-toto.io/Statement/v1",
  subject: [{ name: "x", digest: { sha256: "00".repeat(32) } }],
  predicateType: "https://bitaudit.dev/test/v1",
  predicate,
});
const inspector = await generateKeyPair();
const id = keyId(inspector.publicKey);
const trustRoot: TrustRoot = {
  mediaType: "application/vnd.bitaudit.trustroot.v1+json",
  keys: [{
    keyid: id,
    publicKey: inspector.publicKey,
    role: "inspector",
    validFor: { start: Date.parse("2026-01-01") },
  }],
};
/** An attestation whose announcement (dated 2023-08-23T15:15:10Z) the given keys signed. */
const attested = async (
  signers: { privateKey: Uint8Array; publicKey: Uint8Array }[],
  o: { timestamp?: string; keyid?: string } = {},
) => {
  const env = await signEnvelope(
    new TextEncoder().encode(JSON.stringify(statement({ announcedAt: "2023-08-23T15:15:10Z" }))),
    { payloadType: IN_TOTO_PAYLOAD_TYPE, keys: signers },
  );
  // A signer may write any key id into its entry: hints must not believe it.
  const envelope = o.keyid === undefined
    ? env
    : { ...env, signatures: env.signatures.map((s) => ({ ...s, keyid: o.keyid! })) };
  return {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: b64(statement({
      audit: {
        announcement: {
          envelope,
          ...(o.timestamp === undefined ? {} : { timestamp: o.timestamp }),
        },
      },
    })),
    signatures: [],
  };
};
const envelope = await attested([inspector]);
/** `checkAnnouncement`'s words for a key-validity failure at the stated time. */
const UNSTAMPED =
  "no inspector key valid at 2023-08-23T15:15:10Z and at the verification time signed the announcement";
const report = (failed: string, detail = UNSTAMPED) => ({
  valid: false,
  verdict: null,
  auditId: null,
  signatures: [],
  checks: [{ check: failed, ok: false, detail }],
});

Deno.test("validityHints() names the inspector key's window and the announcement's time", async () => {
  const hints = await validityHints({ report: report("announcement"), envelope, trustRoot });
  assert.equal(hints.length, 1);
  assert.match(
    hints[0]!,
    new RegExp(
      `inspector key ${id.slice(0, 16)}…, which signed the announcement, sign from 2026-01-01`,
    ),
  );
  assert.match(hints[0]!, /announcement says it was signed at 2023-08-23T15:15:10Z/);
  assert.match(hints[0]!, /--valid-from 2023-08-23T15:15:10Z` or earlier/);
  assert.deepEqual(await validityHints({ report: report("sample"), envelope, trustRoot }), []);
});

Deno.test("validityHints() names only a key whose signature over the announcement verifies: never a rotated-in key, never a key id a forger wrote", async () => {
  const next = await generateKeyPair();
  const nextId = keyId(next.publicKey);
  // The old key (which signed, in 2023) ended at the rotation; the new one starts then.
  const rotated: TrustRoot = {
    ...trustRoot,
    keys: [
      {
        ...trustRoot.keys[0]!,
        validFor: { start: Date.parse("2023-01-01"), end: Date.parse("2026-06-01") },
      },
      {
        keyid: nextId,
        publicKey: next.publicKey,
        role: "inspector",
        validFor: { start: Date.parse("2026-06-01") },
      },
    ],
  };
  const now = new Date("2026-11-29T00:00:00Z");
  const hints = await validityHints({
    report: report("announcement"),
    envelope,
    trustRoot: rotated,
    now,
  });
  assert.equal(hints.length, 1, hints.join("\n"));
  assert.doesNotMatch(hints[0]!, new RegExp(nextId.slice(0, 16)));
  assert.match(
    hints[0]!,
    new RegExp(
      `key ${id.slice(0, 16)}… signed the announcement at 2023-08-23T15:15:10Z, inside its window`,
    ),
  );
  assert.match(hints[0]!, /carries no RFC 3161 token .* `audit --announcement-timestamp`/);
  // With a token, the key is judged at the token's time (not the stated one), and a key retired
  // since is no failure of it: no retirement hint.
  const stampedAt = (t: string) =>
    report(
      "announcement",
      `the announcement's RFC 3161 timestamp covers signature 0, which no inspector key valid at ${t} made`,
    );
  const early = await validityHints({
    report: stampedAt("2022-12-31T23:59:50Z"),
    envelope: await attested([inspector], { timestamp: "MIIB" }),
    trustRoot: rotated,
    now,
  });
  assert.equal(early.length, 1);
  assert.match(early[0]!, /announcement says it was signed at 2022-12-31T23:59:50Z/);
  // A failure that is not about the keys (a late token, a wrong round) gives no key hint.
  assert.deepEqual(
    await validityHints({
      report: report(
        "announcement",
        "the announcement's RFC 3161 timestamp is not before the round",
      ),
      envelope,
      trustRoot: rotated,
      now,
    }),
    [],
  );
  // Signed by a stranger who wrote the inspector's key id into its entry: no hint names a key.
  const stranger = await generateKeyPair();
  assert.deepEqual(
    await validityHints({
      report: report("announcement"),
      envelope: await attested([stranger], { keyid: id }),
      trustRoot: rotated,
      now,
    }),
    [],
  );
  // A key still valid now, inside its window: the announcement failed for another reason.
  const open: TrustRoot = {
    ...trustRoot,
    keys: [{ ...trustRoot.keys[0]!, validFor: { start: Date.parse("2023-01-01") } }],
  };
  assert.deepEqual(
    await validityHints({ report: report("announcement"), envelope, trustRoot: open, now }),
    [],
  );
});

Deno.test("validityHints(): a revoked inspector key's hint says where the revocation comes from, not a window flag", async () => {
  const revoked: TrustRoot = {
    ...trustRoot,
    keys: [{
      ...trustRoot.keys[0]!,
      validFor: { start: Date.parse("2023-01-01") },
      revoked: { time: Date.parse("2026-02-01"), reason: "key compromised" },
    }],
  };
  const r = {
    ...report("signatures"),
    signatures: [{ verifiedBy: id, refusedKey: id }] as never,
  };
  const hints = await validityHints({ report: r, envelope, trustRoot: revoked });
  assert.equal(hints.length, 1);
  assert.match(hints[0]!, /revoked at 2026-02-01T00:00:00Z \(key compromised\)/);
  assert.match(hints[0]!, /its revocation is the trust root's `revoked` entry/);
  assert.doesNotMatch(hints[0]!, /set with `bitaudit key trust-root --valid-from`/);
});

Deno.test("validityHints() reads only checkAnnouncement's own sentences: the phrase quoted inside another failure gives no hint, and an honest entry with an empty key id still names its key", async () => {
  const quoted = report(
    "announcement",
    'malformed announcement (Cannot read timestamp "x no inspector key valid at 2001-01-01T00:00:00Z signed the announcement")',
  );
  assert.deepEqual(await validityHints({ report: quoted, envelope, trustRoot }), []);
  // The key id is only a hint: an entry without one is tried against the inspector keys.
  const hints = await validityHints({
    report: report("announcement"),
    envelope: await attested([inspector], { keyid: "" }),
    trustRoot,
  });
  assert.equal(hints.length, 1);
  assert.match(hints[0]!, /--valid-from 2023-08-23T15:15:10Z` or earlier/);
});

Deno.test("validityHints(): a verdict signed inside its key's window, the key ended since, is told that only a token keeps it checkable", async () => {
  const ended: TrustRoot = {
    ...trustRoot,
    keys: [{
      ...trustRoot.keys[0]!,
      validFor: { start: Date.parse("2026-01-01"), end: Date.parse("2026-06-01") },
    }],
  };
  const verdict = {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: b64(statement({ timeVerified: "2026-03-01T00:00:00Z" })),
    signatures: [],
  };
  const r = {
    ...report("signatures", "key expired at the verification time"),
    signatures: [{ verifiedBy: id, refusedKey: id }] as never,
  };
  const later = new Date("2026-11-29T00:00:00Z");
  const [hint] = await validityHints({
    report: r,
    envelope: verdict,
    trustRoot: ended,
    now: later,
  });
  assert.match(hint!, /until 2026-06-01T00:00:00Z \(set with .* or ended with `--extend --end`\)/);
  assert.match(
    hint!,
    /inside the key's window, but the key has been ended or revoked since, and a statement's time is its signer's own word: .*RFC 3161 token over its signature, given to `check --timestamp`/,
  );
  // Still inside the window: no such sentence.
  const [inside] = await validityHints({
    report: r,
    envelope: verdict,
    trustRoot: ended,
    now: new Date("2026-04-01T00:00:00Z"),
  });
  assert.doesNotMatch(inside!, /ended or revoked since/);
});

Deno.test("validityHints(): a verdict dated ahead of the check's clock, into a window not yet open, is told the key is not yet valid, not that it was ended or revoked since", async () => {
  const opens: TrustRoot = {
    ...trustRoot,
    keys: [{ ...trustRoot.keys[0]!, validFor: { start: Date.parse("2026-03-01T00:00:00Z") } }],
  };
  const verdict = {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: b64(statement({ timeVerified: "2026-03-01T00:02:00Z" })),
    signatures: [],
  };
  const r = {
    ...report("signatures", "key not yet valid at the verification time"),
    signatures: [{ verifiedBy: id, refusedKey: id }] as never,
  };
  const [hint] = await validityHints({
    report: r,
    envelope: verdict,
    trustRoot: opens,
    now: new Date("2026-02-28T23:58:00Z"),
  });
  assert.match(
    hint!,
    /this check's time 2026-02-28T23:58:00Z is before the window starts: the key is not yet valid.*Check it again once the window has started\./,
  );
  assert.doesNotMatch(hint!, /ended or revoked since|RFC 3161 token/);
});

Deno.test("validityHints(): a key judged at a token's time after its revocation is told so, not that it lacks a token", async () => {
  const revoked: TrustRoot = {
    ...trustRoot,
    keys: [{
      ...trustRoot.keys[0]!,
      validFor: { start: Date.parse("2023-01-01") },
      revoked: { time: Date.parse("2026-02-01"), reason: "key compromised" },
    }],
  };
  // The compromised key signed after its revocation, writing a time before it; the token given to
  // `check --timestamp` dates the signature 2026-03-01, and the check refused the key there.
  const verdict = {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: b64(statement({ timeVerified: "2026-01-15T00:00:00Z" })),
    signatures: [],
  };
  const why = `key ${id.slice(0, 16)}… is revoked at the rfc3161 time 2026-03-01T00:00:00.000Z`;
  const r = {
    valid: false,
    verdict: null,
    auditId: null,
    signatures: [{ keyid: id, valid: false, verifiedBy: null, refusedKey: id, reason: why }],
    checks: [
      {
        check: "timestamp",
        ok: true,
        detail: "RFC 3161 token: signature 0 existed at 2026-03-01T00:00:00.000Z",
      },
      { check: "signatures", ok: false, detail: `0 valid inspector signature(s); ${why}` },
    ],
  };
  const inputs = { envelope: verdict, trustRoot: revoked, now: new Date("2026-06-01") };
  const [hint] = await validityHints({ report: r, ...inputs });
  assert.doesNotMatch(hint!, /ended or revoked since|only with an RFC 3161 token/);
  assert.match(hint!, /The statement says it was signed at 2026-01-15T00:00:00Z\./);
  assert.match(
    hint!,
    /token given to `check --timestamp` dates the signature at 2026-03-01T00:00:00Z, outside the key's window/,
  );
  // Without the token, the same refusal at the verification time keeps the retired sentence.
  const plain = {
    ...r,
    signatures: [{ ...r.signatures[0]!, reason: "revoked at the verification time" }],
    checks: [r.checks[1]!],
  };
  const [unstamped] = await validityHints({ report: plain, ...inputs });
  assert.match(
    unstamped!,
    /The statement says it was signed at 2026-01-15T00:00:00Z\. That is inside/,
  );
  assert.match(unstamped!, /only with an RFC 3161 token over its signature/);
});

Deno.test("validityHints() reads an unsigned payload only within the size a check reads unsigned (1 MiB)", async () => {
  const small = await validityHints({ report: report("announcement"), envelope, trustRoot });
  assert.equal(small.length, 1);
  // The same statement padded past the limit, no signature verified: not parsed, no hint.
  const inner = JSON.parse(new TextDecoder().decode(decodeBase64(envelope.payload)));
  inner.predicate.pad = "x".repeat(UNSIGNED_READ_BYTES);
  const big = { ...envelope, payload: b64(inner) };
  assert.deepEqual(
    await validityHints({ report: report("announcement"), envelope: big, trustRoot }),
    [],
  );
});

Deno.test("validityHints(): a checkpoint signed by a key the trust root lists as an inspector's is told a prover key is never one, not to add it with --prover (which key trust-root refuses)", async () => {
  const checkpointBy = (proverKeyId: string) => ({
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: b64(statement({
      audit: { checkpoint: { proverKeyId, signedAt: "2026-02-01T00:00:00Z", note: "n" } },
    })),
    signatures: [],
  });
  const detail = "no valid signature by a prover key of the trust root";
  const [hint] = await validityHints({
    report: report("checkpoint", detail),
    envelope: checkpointBy(id),
    trustRoot,
  });
  assert.match(hint!, new RegExp(`signed by key ${id.slice(0, 16)}…, which your trust root lists`));
  assert.match(hint!, /a prover key is never an inspector key/);
  assert.doesNotMatch(hint!, /add its public key/);
  const other = keyId((await generateKeyPair()).publicKey);
  const [unlisted] = await validityHints({
    report: report("checkpoint", detail),
    envelope: checkpointBy(other),
    trustRoot,
  });
  assert.match(unlisted!, /is not a prover key of your trust root \(add its public key with/);
});
