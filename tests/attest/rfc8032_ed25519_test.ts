import assert from "node:assert/strict";
import * as ed from "@noble/ed25519";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { publicKeyFromPrivate } from "../../src/attest/generate_key_pair.ts";
import { encodePkcs8, encodeSpki } from "../../src/attest/mod.ts";
import { sign, verify } from "../../src/attest/signature.ts";

interface Vector {
  name: string;
  secretKey: string;
  publicKey: string;
  message: string;
  signature: string;
}
/** Copies into a fresh ArrayBuffer-backed view, the type WebCrypto's signatures ask for. */
const ab = (u: Uint8Array) => new Uint8Array(u);
const FILE = new URL("../vectors/rfc/rfc8032_7.1_ed25519.json", import.meta.url);
const { vectors } = JSON.parse(Deno.readTextFileSync(FILE)) as { vectors: Vector[] };

Deno.test("RFC 8032 §7.1 file holds the five Ed25519 tests", () => {
  assert.deepEqual(vectors.map((v) => v.name), [
    "TEST 1",
    "TEST 2",
    "TEST 3",
    "TEST 1024",
    "TEST SHA(abc)",
  ]);
  assert.equal(hexToBytes(vectors[3]!.message).length, 1023);
});

for (const v of vectors) {
  Deno.test(`sign() and verify() reproduce RFC 8032 §7.1 ${v.name}`, async () => {
    const sk = hexToBytes(v.secretKey);
    const pk = hexToBytes(v.publicKey);
    const m = hexToBytes(v.message);
    const sig = hexToBytes(v.signature);
    assert.equal(bytesToHex(await publicKeyFromPrivate(sk)), v.publicKey);
    assert.equal(bytesToHex(await sign(m, sk)), v.signature);
    assert.ok(await verify(m, { signature: sig, publicKey: pk }));
    // Independent implementation agrees with the transcription (guards against typos).
    const wc = await crypto.subtle.importKey("spki", ab(encodeSpki(pk)), "Ed25519", false, [
      "verify",
    ]);
    assert.ok(await crypto.subtle.verify("Ed25519", wc, ab(sig), ab(m)));
    const wcs = await crypto.subtle.importKey("pkcs8", ab(encodePkcs8(sk)), "Ed25519", false, [
      "sign",
    ]);
    assert.equal(
      bytesToHex(new Uint8Array(await crypto.subtle.sign("Ed25519", wcs, ab(m)))),
      v.signature,
    );
    // Any single-bit change makes it invalid (false, not a throw).
    const badSig = sig.slice();
    badSig[5] = (badSig[5] as number) ^ 1;
    assert.equal(await verify(m, { signature: badSig, publicKey: pk }), false);
    const badMsg = Uint8Array.of(...m, 0);
    assert.equal(await verify(badMsg, { signature: sig, publicKey: pk }), false);
  });
}

/** L, the order of the prime-order subgroup (RFC 8032 §5.1). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

function leBytes(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
}

Deno.test("verify() rejects a small-order public key that ZIP-215 accepts for any message", async () => {
  // A = identity (y = 1), R = identity, S = 0: [8]SB = [8]R + [8]kA holds for every message.
  const identity = leBytes(1n);
  const sig = Uint8Array.of(...identity, ...new Uint8Array(32));
  const m = new TextEncoder().encode("anything at all");
  assert.equal(await ed.verifyAsync(sig, m, identity), true, "ZIP-215 default accepts");
  assert.equal(await verify(m, { signature: sig, publicKey: identity }), false);
});

Deno.test("verify() rejects a non-canonical R encoding (y >= p) that ZIP-215 accepts", async () => {
  // R encoded as y = p + 1 (non-canonical for the identity), A = identity, S = 0.
  const p = 2n ** 255n - 19n;
  const sig = Uint8Array.of(...leBytes(p + 1n), ...new Uint8Array(32));
  const identity = leBytes(1n);
  const m = new Uint8Array([1, 2, 3]);
  assert.equal(await ed.verifyAsync(sig, m, identity), true, "ZIP-215 default accepts");
  assert.equal(await verify(m, { signature: sig, publicKey: identity }), false);
});

Deno.test("verify() rejects S + L (malleated signature) when the original is valid", async () => {
  const v = vectors[1]!;
  const m = hexToBytes(v.message);
  const pk = hexToBytes(v.publicKey);
  const sig = hexToBytes(v.signature);
  let s = 0n;
  for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i] as number);
  const malleated = Uint8Array.of(...sig.subarray(0, 32), ...leBytes(s + L));
  assert.equal(await verify(m, { signature: malleated, publicKey: pk }), false);
});

Deno.test("verify() returns false when the public key is not a curve point", async () => {
  const v = vectors[0]!;
  const notOnCurve = leBytes(2n); // y = 2 has no x on edwards25519
  const sig = hexToBytes(v.signature);
  assert.equal(await verify(new Uint8Array(0), { signature: sig, publicKey: notOnCurve }), false);
});

Deno.test("sign() and verify() throw RangeError when lengths are wrong", async () => {
  await assert.rejects(sign(new Uint8Array(1), new Uint8Array(64)), RangeError);
  await assert.rejects(
    verify(new Uint8Array(1), { signature: new Uint8Array(63), publicKey: new Uint8Array(32) }),
    RangeError,
  );
  await assert.rejects(
    verify(new Uint8Array(1), { signature: new Uint8Array(64), publicKey: new Uint8Array(31) }),
    RangeError,
  );
});
