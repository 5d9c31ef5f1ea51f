import assert from "node:assert/strict";
import { bytesToHex } from "@noble/hashes/utils.js";
import { generateKeyPair, publicKeyFromPrivate } from "../../src/attest/generate_key_pair.ts";
import { keyId } from "../../src/attest/key_id.ts";
import { decodePem, encodePem } from "../../src/attest/pem.ts";
import {
  decodePkcs8,
  decodePrivateKeyPem,
  encodePkcs8,
  encodePrivateKeyPem,
} from "../../src/attest/pkcs8.ts";
import { sign, verify } from "../../src/attest/signature.ts";
import {
  decodePublicKeyPem,
  decodeSpki,
  encodePublicKeyPem,
  encodeSpki,
} from "../../src/attest/spki.ts";
import { type InputCode, InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

const code = (c: InputCode) => isCode(InputError, c);
const msg = new TextEncoder().encode("bitaudit interop");
/** Copies into a fresh ArrayBuffer-backed view, the type WebCrypto's signatures ask for. */
const ab = (u: Uint8Array) => new Uint8Array(u);

Deno.test("encodeSpki() and encodePkcs8() use the RFC 8410 DER prefixes", () => {
  const k = new Uint8Array(32).fill(0xab);
  assert.equal(bytesToHex(encodeSpki(k)), "302a300506032b6570032100" + "ab".repeat(32));
  assert.equal(bytesToHex(encodePkcs8(k)), "302e020100300506032b657004220420" + "ab".repeat(32));
});

Deno.test("keyId() is the SHA-256 of the SPKI DER when computed by WebCrypto", async () => {
  const { publicKey } = await generateKeyPair();
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", ab(encodeSpki(publicKey))));
  assert.equal(keyId(publicKey), bytesToHex(d));
});

Deno.test("PEM files round-trip when keys are generated", async () => {
  const { privateKey, publicKey } = await generateKeyPair();
  assert.deepEqual(decodePrivateKeyPem(encodePrivateKeyPem(privateKey)), privateKey);
  assert.deepEqual(decodePublicKeyPem(encodePublicKeyPem(publicKey)), publicKey);
  assert.deepEqual(await publicKeyFromPrivate(privateKey), publicKey);
});

Deno.test("a signature by our key verifies in WebCrypto when the .pub file is imported", async () => {
  const { privateKey, publicKey } = await generateKeyPair();
  const der = decodePem(encodePublicKeyPem(publicKey), "PUBLIC KEY");
  const wcKey = await crypto.subtle.importKey("spki", ab(der), { name: "Ed25519" }, true, [
    "verify",
  ]);
  const sig = await sign(msg, privateKey);
  assert.ok(await crypto.subtle.verify({ name: "Ed25519" }, wcKey, ab(sig), msg));
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", wcKey));
  assert.deepEqual(raw, publicKey);
});

Deno.test("our PKCS#8 key file signs in WebCrypto and our verify() accepts it", async () => {
  const { privateKey, publicKey } = await generateKeyPair();
  const der = decodePem(encodePrivateKeyPem(privateKey), "PRIVATE KEY");
  const wcKey = await crypto.subtle.importKey("pkcs8", ab(der), { name: "Ed25519" }, true, [
    "sign",
  ]);
  const sig = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, wcKey, msg));
  assert.ok(await verify(msg, { signature: sig, publicKey }));
  assert.deepEqual(sig, await sign(msg, privateKey), "Ed25519 is deterministic");
});

Deno.test("WebCrypto-generated keys export to DER that our decoders read", async () => {
  const pair = await crypto.subtle.generateKey({ name: "Ed25519" }, true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const publicKey = decodeSpki(spki);
  const privateKey = decodePkcs8(pkcs8);
  assert.deepEqual(await publicKeyFromPrivate(privateKey), publicKey);
  assert.ok(await verify(msg, { signature: await sign(msg, privateKey), publicKey }));
});

Deno.test("key decoders throw coded errors when PEM or DER is malformed", async () => {
  const { privateKey, publicKey } = await generateKeyPair();
  const pub = encodePublicKeyPem(publicKey);
  const priv = encodePrivateKeyPem(privateKey);
  assert.throws(() => decodePublicKeyPem(priv), code("BAD_PEM"));
  assert.throws(() => decodePrivateKeyPem(pub), code("BAD_PEM"));
  assert.throws(() => decodePublicKeyPem("garbage"), code("BAD_PEM"));
  assert.throws(() => decodePublicKeyPem(pub.replace("MCow", "MC*w")), code("BAD_PEM"));
  assert.throws(() => decodePublicKeyPem(`Comment\n${pub}`), code("BAD_PEM"));
  assert.throws(() => decodePublicKeyPem(pub + pub), code("BAD_PEM"));
  assert.throws(() => decodeSpki(new Uint8Array(43)), code("BAD_KEY"));
  assert.throws(() => decodeSpki(encodePkcs8(publicKey).subarray(0, 44)), code("BAD_KEY"));
  assert.throws(() => decodePkcs8(new Uint8Array(48)), code("BAD_KEY"));
  const wrongOid = encodePem("PUBLIC KEY", encodeSpki(publicKey).map((b, i) => i === 8 ? 0x71 : b));
  assert.throws(() => decodePublicKeyPem(wrongOid), code("BAD_KEY"));
  assert.deepEqual(decodePublicKeyPem(`\r\n${pub.replaceAll("\n", "\r\n")}\r\n`), publicKey);
});

Deno.test("key encoders throw RangeError when a key is not 32 bytes", () => {
  assert.throws(() => encodeSpki(new Uint8Array(31)), RangeError);
  assert.throws(() => encodePkcs8(new Uint8Array(64)), RangeError);
  assert.throws(() => keyId(new Uint8Array(33)), RangeError);
});

Deno.test("a private key given where a public key is read is named as such", async () => {
  const k = await generateKeyPair();
  const pem = encodePrivateKeyPem(k.privateKey);
  assert.throws(
    () => decodePublicKeyPem(pem),
    (e) => e instanceof InputError && /it is a PRIVATE KEY block/.test(e.message),
  );
});

Deno.test("decodePublicKeyPem() and decodeSpki() say what the key is, as the private key decoders do", async () => {
  const k = await generateKeyPair();
  const what = "key 'w.pub' (--worker-pub)";
  const says = (c: InputCode, why: string) => (e: unknown) =>
    e instanceof InputError && e.code === c && e.message === `Cannot use ${what}: ${why}`;
  assert.throws(
    () => decodePublicKeyPem(encodePrivateKeyPem(k.privateKey), { what }),
    says("BAD_PEM", "it is a PRIVATE KEY block"),
  );
  assert.throws(
    () => decodePublicKeyPem(encodePem("PUBLIC KEY", new Uint8Array(43)), { what }),
    says("BAD_KEY", "SPKI DER must be 44 bytes"),
  );
  assert.throws(
    () => decodeSpki(encodePkcs8(k.publicKey).subarray(0, 44), { what }),
    says("BAD_KEY", "not an Ed25519 SPKI (RFC 8410)"),
  );
  // Without it, the messages are as they were.
  assert.throws(
    () => decodeSpki(new Uint8Array(43)),
    (e) =>
      e instanceof InputError && e.message === "Cannot read public key: SPKI DER must be 44 bytes",
  );
});
