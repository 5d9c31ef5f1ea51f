/** `validityHints()`: the dates and flag behind a failed announcement check. */
import assert from "node:assert/strict";
import { encodeBase64, keyId, type TrustRoot } from "../../src/attest/mod.ts";
import { validityHints } from "../../src/web/mod.ts";

const b64 = (v: unknown) => encodeBase64(new TextEncoder().encode(JSON.stringify(v)));
const statement = (predicate: unknown) => ({
  _type: "https://in-toto.io/Statement/v1",
  subject: [{ name: "x", digest: { sha256: "00".repeat(32) } }],
  predicateType: "https://bitaudit.dev/test/v1",
  predicate,
});
const publicKey = new Uint8Array(32).fill(7);
const id = await keyId(publicKey);
const trustRoot: TrustRoot = {
  mediaType: "application/vnd.bitaudit.trustroot.v1+json",
  keys: [{
    keyid: id,
    publicKey,
    role: "inspector",
    validFor: { start: Date.parse("2026-01-01") },
  }],
};
/** An attestation whose announcement is signed by the given key ids (a token or not). */
const attested = (signers: string[], timestamp?: string) => ({
  payloadType: "application/vnd.in-toto+json",
  payload: b64(statement({
    audit: {
      announcement: {
        envelope: {
          payloadType: "application/vnd.in-toto+json",
          payload: b64(statement({ announcedAt: "2023-08-23T15:15:10Z" })),
          signatures: signers.map((keyid) => ({ keyid, sig: "AA==" })),
        },
        ...(timestamp === undefined ? {} : { timestamp }),
      },
    },
  })),
  signatures: [],
});
const envelope = attested([id]);
const report = (failed: string) => ({
  valid: false,
  verdict: null,
  auditId: null,
  signatures: [],
  checks: [{ check: failed, ok: false, detail: "no inspector key valid at 2023-08-23T15:15:10Z" }],
});

Deno.test("validityHints() names the inspector key's window and the announcement's time", () => {
  const hints = validityHints({ report: report("announcement"), envelope, trustRoot });
  assert.equal(hints.length, 1);
  assert.match(
    hints[0]!,
    new RegExp(
      `inspector key ${id.slice(0, 16)}…, which signed the announcement, sign from 2026-01-01`,
    ),
  );
  assert.match(hints[0]!, /announcement says it was signed at 2023-08-23T15:15:10Z/);
  assert.match(hints[0]!, /--valid-from 2023-08-23T15:15:10Z` or earlier/);
  assert.deepEqual(validityHints({ report: report("sample"), envelope, trustRoot }), []);
});

Deno.test("validityHints() names only the key that signed the announcement: a rotated-in key is never told to start earlier", () => {
  const next = new Uint8Array(32).fill(9);
  const nextId = keyId(next);
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
        publicKey: next,
        role: "inspector",
        validFor: { start: Date.parse("2026-06-01") },
      },
    ],
  };
  const hints = validityHints({ report: report("announcement"), envelope, trustRoot: rotated });
  assert.equal(hints.length, 1, hints.join("\n"));
  assert.doesNotMatch(hints[0]!, new RegExp(nextId.slice(0, 16)));
  assert.match(
    hints[0]!,
    new RegExp(
      `key ${id.slice(0, 16)}… signed the announcement at 2023-08-23T15:15:10Z, inside its window`,
    ),
  );
  assert.match(hints[0]!, /carries no RFC 3161 token .* `audit --announcement-timestamp`/);
  // With a token that did not date it, the hint says so.
  const stamped = validityHints({
    report: report("announcement"),
    envelope: attested([id], "MIIB"),
    trustRoot: rotated,
  });
  assert.match(stamped[0]!, /the announcement's timestamp did not date it/);
  // A key the announcement names no signature of is never named.
  assert.deepEqual(
    validityHints({ report: report("announcement"), envelope: attested([nextId]), trustRoot }),
    [],
  );
});

Deno.test("validityHints(): a revoked inspector key's hint says where the revocation comes from, not a window flag", () => {
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
  const hints = validityHints({ report: r, envelope, trustRoot: revoked });
  assert.equal(hints.length, 1);
  assert.match(hints[0]!, /revoked at 2026-02-01T00:00:00Z \(key compromised\)/);
  assert.match(hints[0]!, /its revocation is the trust root's `revoked` entry/);
  assert.doesNotMatch(hints[0]!, /set with `bitaudit key trust-root --valid-from`/);
});
