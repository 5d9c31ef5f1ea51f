import assert from "node:assert/strict";
import { decodeBase64, encodeBase64 } from "../../src/attest/base64.ts";
import { addSignature, signEnvelope } from "../../src/attest/dsse.ts";
import { parseEnvelope } from "../../src/attest/envelope.ts";
import { generateKeyPair } from "../../src/attest/generate_key_pair.ts";
import { keyId } from "../../src/attest/key_id.ts";
import { pae } from "../../src/attest/pae.ts";
import { verify } from "../../src/attest/signature.ts";
import { verifyEnvelope } from "../../src/attest/verify_envelope.ts";

const payload = new TextEncoder().encode('{"hello":"world"}');
const payloadType = "application/vnd.in-toto+json";

Deno.test("signEnvelope() signs the PAE of the raw payload with every co-signer", async () => {
  const [a, b] = [await generateKeyPair(), await generateKeyPair()];
  const env = await signEnvelope(payload, { payloadType, keys: [a, b] });
  assert.deepEqual(decodeBase64(env.payload), payload);
  assert.deepEqual(env.signatures.map((s) => s.keyid), [keyId(a.publicKey), keyId(b.publicKey)]);
  const message = pae(payloadType, payload);
  for (const [i, k] of [a, b].entries()) {
    const signature = decodeBase64(env.signatures[i]!.sig);
    assert.ok(await verify(message, { signature, publicKey: k.publicKey }));
  }
});

Deno.test("verifyEnvelope() counts distinct trusted signers when co-signed", async () => {
  const [a, b, c] = [await generateKeyPair(), await generateKeyPair(), await generateKeyPair()];
  const env = await addSignature(await signEnvelope(payload, { payloadType, keys: [a] }), b);
  const res = await verifyEnvelope(parseEnvelope(JSON.stringify(env)), {
    trustedKeys: [b.publicKey, a.publicKey, c.publicKey],
    threshold: 2,
  });
  assert.ok(res.verified);
  assert.deepEqual(res.validKeyIds, [keyId(a.publicKey), keyId(b.publicKey)]);
  assert.deepEqual(res.payload, payload);
  assert.equal(res.payloadType, payloadType);
  const three = await verifyEnvelope(env, {
    trustedKeys: [a.publicKey, b.publicKey],
    threshold: 3,
  });
  assert.equal(three.verified, false);
});

Deno.test("verifyEnvelope() ignores a wrong keyid hint and never trusts a hint alone", async () => {
  const [a, b] = [await generateKeyPair(), await generateKeyPair()];
  const env = await signEnvelope(payload, { payloadType, keys: [a] });
  const lying = { ...env, signatures: [{ ...env.signatures[0]!, keyid: keyId(b.publicKey) }] };
  const ok = await verifyEnvelope(lying, { trustedKeys: [b.publicKey, a.publicKey] });
  assert.ok(ok.verified);
  assert.equal(ok.signatures[0]!.verifiedBy, keyId(a.publicKey));
  const untrusted = await verifyEnvelope(env, { trustedKeys: [b.publicKey] });
  assert.equal(untrusted.verified, false);
  assert.equal(untrusted.signatures[0]!.valid, false);
  assert.equal(untrusted.signatures[0]!.reason, "no trusted key verifies this signature");
  const none = await verifyEnvelope(env, { trustedKeys: [] });
  assert.equal(none.signatures[0]!.reason, "no trusted keys given");
});

Deno.test("verifyEnvelope() returns invalid when payload or payloadType is tampered with", async () => {
  const a = await generateKeyPair();
  const env = await signEnvelope(payload, { payloadType, keys: [a] });
  const other = { ...env, payload: encodeBase64(new TextEncoder().encode('{"hello":"World"}')) };
  assert.equal((await verifyEnvelope(other, { trustedKeys: [a.publicKey] })).verified, false);
  const retyped = { ...env, payloadType: "application/json" };
  assert.equal((await verifyEnvelope(retyped, { trustedKeys: [a.publicKey] })).verified, false);
  const dup = { ...env, signatures: [env.signatures[0]!, env.signatures[0]!] };
  const twice = await verifyEnvelope(dup, { trustedKeys: [a.publicKey], threshold: 2 });
  assert.equal(twice.verified, false, "the same key twice counts once");
});

Deno.test("verifyEnvelope() accepts URL-safe base64 fields when the signer used them", async () => {
  const a = await generateKeyPair();
  const env = await signEnvelope(new Uint8Array([0xfb, 0xff, 0xfe]), { payloadType, keys: [a] });
  const url = (s: string) => s.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  const urlEnv = {
    ...env,
    payload: url(env.payload),
    signatures: env.signatures.map((s) => ({ ...s, sig: url(s.sig) })),
  };
  const res = await verifyEnvelope(parseEnvelope(JSON.stringify(urlEnv)), {
    trustedKeys: [a.publicKey],
  });
  assert.ok(res.verified);
});

Deno.test("signEnvelope() throws RangeError when keys are missing, mismatched or repeated", async () => {
  const [a, b] = [await generateKeyPair(), await generateKeyPair()];
  await assert.rejects(signEnvelope(payload, { payloadType, keys: [] }), RangeError);
  await assert.rejects(
    signEnvelope(payload, {
      payloadType,
      keys: [{ privateKey: a.privateKey, publicKey: b.publicKey }],
    }),
    RangeError,
  );
  await assert.rejects(signEnvelope(payload, { payloadType, keys: [a, a] }), RangeError);
  const env = await signEnvelope(payload, { payloadType, keys: [a] });
  await assert.rejects(verifyEnvelope(env, { trustedKeys: [new Uint8Array(31)] }), RangeError);
  await assert.rejects(verifyEnvelope(env, { trustedKeys: [], threshold: 0 }), RangeError);
});

Deno.test("verifyEnvelope() bounds the bytes its signature checks hash: hinted keys first, so an honest entry after many hostile ones still verifies; the rest are said to be untried", async () => {
  const keys = await Promise.all(Array.from({ length: 8 }, () => generateKeyPair()));
  const honest = await signEnvelope(payload, { payloadType, keys: [keys[7]!] });
  // Forged entries without a useful hint: each would be tried with all 8 keys.
  const forged = Array.from(
    { length: 20 },
    (_, i) => ({ keyid: "", sig: encodeBase64(new Uint8Array(64).fill(i + 1)) }),
  );
  const env = { ...honest, signatures: [...forged, honest.signatures[0]!] };
  const message = pae(payloadType, payload).length;
  const res = await verifyEnvelope(env, {
    trustedKeys: keys.map((k) => k.publicKey),
    maxHashBytes: 30 * message, // 30 checks, against 20 x 8 + 1 without a bound
  });
  assert.ok(res.verified);
  assert.equal(res.signatures.at(-1)!.verifiedBy, keyId(keys[7]!.publicKey));
  const untried = res.signatures.filter((s) =>
    /^not tried with \d+ trusted key\(s\)/.test(s.reason ?? "")
  );
  // 1 hinted check, then 29 of the 160 unhinted ones: 20 - 3 entries tried with no key at all.
  assert.ok(untried.length >= 17, JSON.stringify(res.signatures.map((s) => s.reason)));
  // Without a bound every forged entry is tried with every key and refused as such.
  const whole = await verifyEnvelope(env, { trustedKeys: keys.map((k) => k.publicKey) });
  assert.ok(
    whole.signatures.slice(0, 20).every((s) =>
      s.reason === "no trusted key verifies this signature"
    ),
  );
});
