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
const announcement = {
  envelope: {
    payloadType: "application/vnd.in-toto+json",
    payload: b64(statement({ announcedAt: "2023-08-23T15:15:10Z" })),
    signatures: [],
  },
};
const envelope = {
  payloadType: "application/vnd.in-toto+json",
  payload: b64(statement({ audit: { announcement } })),
  signatures: [],
};
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
  assert.match(hints[0]!, new RegExp(`inspector key ${id.slice(0, 16)}… sign from 2026-01-01`));
  assert.match(hints[0]!, /announcement says it was signed at 2023-08-23T15:15:10Z/);
  assert.match(hints[0]!, /--valid-from 2023-08-23T15:15:10Z` or earlier/);
  // A key whose window holds that time is not named; no failed announcement, no hint.
  const wide = {
    ...trustRoot,
    keys: [{ ...trustRoot.keys[0]!, validFor: { start: Date.parse("2023-01-01") } }],
  };
  assert.deepEqual(
    validityHints({ report: report("announcement"), envelope, trustRoot: wide }),
    [],
  );
  assert.deepEqual(validityHints({ report: report("sample"), envelope, trustRoot }), []);
});
