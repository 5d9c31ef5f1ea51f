import assert from "node:assert/strict";
import { encodeBase64 } from "../../src/attest/base64.ts";
import { generateKeyPair } from "../../src/attest/generate_key_pair.ts";
import { keyId } from "../../src/attest/key_id.ts";
import { keyValidAt, trustedKeysAt } from "../../src/attest/key_valid_at.ts";
import { encodeSpki } from "../../src/attest/spki.ts";
import { parseTrustRoot, TRUST_ROOT_MEDIA_TYPE } from "../../src/attest/trust_root.ts";
import { type InputCode, InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

const a = await generateKeyPair();
const b = await generateKeyPair();
const entry = (pub: Uint8Array, extra: Record<string, unknown> = {}) => ({
  keyid: keyId(pub),
  publicKey: encodeBase64(encodeSpki(pub)),
  role: "inspector",
  validFor: { start: "2026-01-01T00:00:00Z", end: "2026-12-31T23:59:59Z" },
  ...extra,
});
const doc = (keys: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ mediaType: TRUST_ROOT_MEDIA_TYPE, keys, ...extra });
const code = (c: InputCode) => isCode(InputError, c);

Deno.test("parseTrustRoot() reads keys, windows, revocations and passes drand through", () => {
  const root = parseTrustRoot(doc([
    entry(a.publicKey),
    entry(b.publicKey, {
      role: "prover",
      validFor: { start: "2026-01-01T00:00:00Z" },
      revoked: { time: "2026-06-01T00:00:00Z", reason: "key compromise" },
    }),
  ], { drand: { period: 3 } }));
  assert.equal(root.keys.length, 2);
  assert.deepEqual(root.keys[0]!.publicKey, a.publicKey);
  assert.equal(root.keys[0]!.validFor.end, Date.UTC(2026, 11, 31, 23, 59, 59));
  assert.equal(root.keys[1]!.revoked?.reason, "key compromise");
  assert.deepEqual(root.drand, { period: 3 });
});

Deno.test("parseTrustRoot() reads a prover key's origin pin, and none where it is absent", () => {
  const root = parseTrustRoot(doc([
    entry(a.publicKey, { role: "prover", origin: "bitaudit.example/prover-1/log" }),
    entry(b.publicKey, { role: "prover" }),
  ]));
  assert.equal(root.keys[0]!.origin, "bitaudit.example/prover-1/log");
  assert.equal(root.keys[1]!.origin, undefined);
  assert.equal("origin" in root.keys[1]!, false);
});

Deno.test("keyValidAt() answers each reason when the time or key varies", () => {
  const root = parseTrustRoot(doc([
    entry(a.publicKey),
    entry(b.publicKey, { revoked: { time: "2026-06-01T00:00:00Z", reason: "lost" } }),
  ]));
  const at = (keyid: string, time: string, role?: "inspector" | "prover") =>
    keyValidAt(root, role === undefined ? { keyid, time } : { keyid, time, role });
  const ida = keyId(a.publicKey);
  const idb = keyId(b.publicKey);
  assert.deepEqual(at(ida, "2026-03-01T00:00:00Z"), { valid: true });
  assert.deepEqual(at(ida, "2026-01-01T00:00:00Z"), { valid: true }, "start is inclusive");
  assert.deepEqual(at(ida, "2026-12-31T23:59:59Z"), { valid: true }, "end is inclusive");
  assert.deepEqual(at(ida, "2025-12-31T23:59:59.999Z"), { valid: false, reason: "not yet valid" });
  assert.deepEqual(at(ida, "2026-12-31T23:59:59.001Z"), { valid: false, reason: "expired" });
  assert.deepEqual(at(ida, "2027-01-01T00:00:00Z"), { valid: false, reason: "expired" });
  assert.deepEqual(at(ida, "2026-03-01T00:00:00Z", "prover"), {
    valid: false,
    reason: "wrong role",
  });
  assert.deepEqual(at("00".repeat(32), "2026-03-01T00:00:00Z"), {
    valid: false,
    reason: "unknown key",
  });
  assert.deepEqual(at(idb, "2026-05-31T23:59:59Z"), { valid: true });
  assert.deepEqual(at(idb, "2026-06-01T00:00:00Z"), { valid: false, reason: "revoked: lost" });
  assert.deepEqual(at(idb, "2026-06-01T02:00:00+02:00"), { valid: false, reason: "revoked: lost" });
  assert.equal(keyValidAt(root, { keyid: ida, time: new Date("2026-03-01") }).valid, true);
  assert.deepEqual(trustedKeysAt(root, { time: "2026-07-01T00:00:00Z" }), [a.publicKey]);
  assert.throws(() => keyValidAt(root, { keyid: ida, time: new Date(NaN) }), TypeError);
  assert.throws(() => keyValidAt(root, { keyid: ida, time: "2026-03-01" }), code("BAD_TIMESTAMP"));
});

Deno.test("parseTrustRoot() throws KEYID_MISMATCH when a keyid is not its key's", () => {
  const text = doc([{ ...entry(a.publicKey), keyid: keyId(b.publicKey) }]);
  assert.throws(() => parseTrustRoot(text), code("KEYID_MISMATCH"));
});

Deno.test("parseTrustRoot() throws BAD_TRUST_ROOT when the document is malformed", () => {
  const e = entry(a.publicKey);
  const cases = [
    "{",
    JSON.stringify({ mediaType: "x", keys: [] }),
    JSON.stringify({ mediaType: TRUST_ROOT_MEDIA_TYPE }),
    doc([], { extra: 1 }),
    doc([e, e]),
    doc([{ ...e, role: "admin" }]),
    doc([{ ...e, revokd: { time: "2026-01-01T00:00:00Z", reason: "x" } }]),
    doc([{ ...e, publicKey: "AAAA" }]),
    doc([{ ...e, publicKey: "not base64!" }]),
    doc([{ ...e, validFor: { start: "2026-13-01T00:00:00Z" } }]),
    doc([{ ...e, validFor: { start: "2026-01-02T00:00:00Z", end: "2026-01-01T00:00:00Z" } }]),
    doc([{ ...e, validFor: {} }]),
    doc([{ ...e, revoked: { time: "2026-01-01T00:00:00Z" } }]),
    doc(["x"]),
    // An origin pins prover keys only, and only to an origin claims checkpoint can sign.
    doc([{ ...e, origin: "bitaudit.example/log" }]),
    doc([{ ...e, role: "prover", origin: "" }]),
    doc([{ ...e, role: "prover", origin: "two words" }]),
    doc([{ ...e, role: "prover", origin: "a+b" }]),
    doc([{ ...e, role: "prover", origin: "x".repeat(257) }]),
    doc([{ ...e, role: "prover", origin: "bitaudit\u2024example/log" }]),
    doc([{ ...e, role: "prover", origin: 7 }]),
  ];
  for (const text of cases) assert.throws(() => parseTrustRoot(text), code("BAD_TRUST_ROOT"), text);
});
