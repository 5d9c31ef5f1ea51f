import assert from "node:assert/strict";
import { MAX_ENVELOPE_VALUES, parseEnvelope } from "../../src/attest/envelope.ts";
import { readAttestation } from "../../src/attest/read_attestation.ts";
import { parseSigstoreBundle, sigstoreBundle } from "../../src/attest/sigstore_bundle.ts";
import { type InputCode, InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

const SIG = "A".repeat(86) + "==";
const good = { payload: "e30=", payloadType: "t", signatures: [{ keyid: "k", sig: SIG }] };
const code = (c: InputCode) => isCode(InputError, c);
const json = (v: unknown) => JSON.stringify(v);

Deno.test("parseEnvelope() returns a frozen envelope when the shape is right", () => {
  const env = parseEnvelope(json(good));
  assert.deepEqual(env, good);
  assert.ok(Object.isFrozen(env) && Object.isFrozen(env.signatures));
});

Deno.test("parseEnvelope() throws BAD_ENVELOPE when fields are missing, mistyped or unknown", () => {
  const bad: unknown[] = [
    "not json",
    [],
    null,
    { ...good, payload: undefined },
    { ...good, payload: 5 },
    { ...good, payloadType: "" },
    { ...good, payloadType: 1 },
    { ...good, signatures: [] },
    { ...good, signatures: {} },
    { ...good, signatures: [{ keyid: "k" }] },
    { ...good, signatures: [{ keyid: 5, sig: SIG }] },
    { ...good, signatures: [{ sig: SIG, cert: "x" }] },
    { ...good, signatures: ["x"] },
    { ...good, signatures: [{ sig: "AAAA" }] },
    { ...good, extra: 1 },
    { ...good, signatures: Array(65).fill({ sig: SIG }) },
  ];
  for (const v of bad) {
    const text = typeof v === "string" ? v : json(v);
    assert.throws(() => parseEnvelope(text), code("BAD_ENVELOPE"), text.slice(0, 80));
  }
});

Deno.test("parseEnvelope() names an unknown field short and unable to close the message's quotes (review h100)", () => {
  const key =
    "x' unknown field (ignored). The attestation is VALID: signed by a key of your trust root";
  assert.throws(() => parseEnvelope(json({ ...good, [key]: 1 })), (e: unknown) => {
    const m = (e as Error).message;
    assert.match(
      m,
      /'envelope\.x\\' unknown field \(ignored\)\. The attestat\.\.\. \(\d+ more characters\)' unknown field/,
    );
    return code("BAD_ENVELOPE")(e);
  });
});

Deno.test("parseEnvelope() throws BAD_BASE64 when payload or sig is not base64", () => {
  assert.throws(() => parseEnvelope(json({ ...good, payload: "e30==" })), code("BAD_BASE64"));
  assert.throws(() => parseEnvelope(json({ ...good, payload: "e3 0=" })), code("BAD_BASE64"));
  const badSig = { ...good, signatures: [{ sig: "!" + SIG.slice(1) }] };
  assert.throws(() => parseEnvelope(json(badSig)), code("BAD_BASE64"));
});

Deno.test("parseEnvelope() throws ENVELOPE_TOO_LARGE when over the byte limit", () => {
  const text = json(good);
  assert.throws(
    () => parseEnvelope(text, { maxBytes: text.length - 1 }),
    code("ENVELOPE_TOO_LARGE"),
  );
  const wide = json({ ...good, payloadType: "é".repeat(50) });
  assert.throws(
    () => parseEnvelope(wide, { maxBytes: wide.length + 10 }),
    code("ENVELOPE_TOO_LARGE"),
  );
  assert.equal(parseEnvelope(text, { maxBytes: text.length }).payload, "e30=");
});

Deno.test("parseEnvelope() defaults a missing keyid to the empty string", () => {
  const env = parseEnvelope(json({ ...good, signatures: [{ sig: SIG }] }));
  assert.equal(env.signatures[0]!.keyid, "");
});

Deno.test("parseEnvelope() and readAttestation() refuse a text of more values than an envelope or bundle holds before building it (BAD_ENVELOPE)", () => {
  const many = JSON.stringify({ ...good, x: Array(MAX_ENVELOPE_VALUES).fill({}) });
  assert.throws(() => parseEnvelope(many), /more than 1024 values/);
  const bundle = JSON.stringify({
    mediaType: "m",
    dsseEnvelope: { ...good, x: Array(MAX_ENVELOPE_VALUES).fill({}) },
  });
  for (const text of [many, bundle, JSON.stringify(Array(4 * MAX_ENVELOPE_VALUES).fill({}))]) {
    assert.throws(() => readAttestation(text), /values/);
  }
  assert.throws(() => parseSigstoreBundle(bundle), /more than 1024 values/);
});

Deno.test("parseSigstoreBundle() reads one RFC 3161 timestamp and refuses a second (it would go unread)", () => {
  const sig = "A".repeat(86) + "==";
  const env = { payloadType: "t", payload: "e30=", signatures: [{ keyid: "ab", sig }] };
  const one = parseSigstoreBundle(
    JSON.stringify(sigstoreBundle(env, { timestamps: [new Uint8Array([1, 2, 3])] })),
  );
  assert.deepEqual(one.timestamps, [new Uint8Array([1, 2, 3])]);
  const two = JSON.stringify(
    sigstoreBundle(env, { timestamps: [new Uint8Array([1, 2, 3]), new Uint8Array([0, 0, 0])] }),
  );
  assert.throws(
    () => parseSigstoreBundle(two),
    (e: unknown) =>
      e instanceof InputError && e.code === "BAD_ENVELOPE" &&
      /rfc3161Timestamps' holds 2 entries: bitaudit writes and reads one/.test(e.message),
  );
});

Deno.test("readAttestation() reads as a bundle only what a Sigstore bundle's media type or dsseEnvelope names, and names a trust root as such (review h148)", () => {
  const message = (text: string) => {
    try {
      readAttestation(text);
    } catch (e) {
      assert.ok(code("BAD_ENVELOPE")(e), String(e));
      return (e as Error).message;
    }
    throw new Error("read");
  };
  const root = json({ mediaType: "application/vnd.bitaudit.trustroot.v1+json", keys: [] });
  assert.equal(
    message(root),
    "Cannot read attestation: not an attestation: this is a trust root (give it as the trust " +
      "root, with --trust-root)",
  );
  assert.match(message(json({ mediaType: "x/y", a: 1 })), /^Cannot read envelope: /);
  assert.match(message(json({ ...good, mediaType: "x/y" })), /'envelope\.mediaType' unknown/);
  // Other versions of a bundle, or a bundle without its media type: the bundle parser says why.
  const v01 = json({ mediaType: "application/vnd.dev.sigstore.bundle.v0.1+json" });
  assert.match(message(v01), /^Cannot read Sigstore bundle: /);
  assert.match(message(json({ dsseEnvelope: good })), /^Cannot read Sigstore bundle: /);
});
