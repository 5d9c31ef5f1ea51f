/**
 * `decodePkcs8()` and `decodeSpki()` name what a refused private or public key is, from its
 * AlgorithmIdentifier (RFC 5208 §5, RFC 5280 §4.1.2.7, RFC 5480 §2.1.1): keys made by WebCrypto
 * (RSA, RSA-PSS, P-256, P-384, X25519), Ed448 keys made by `openssl genpkey -algorithm ed448`
 * (OpenSSL 3.0.19), and the RFC 8410 §10.3 example of an Ed25519 key with attributes and its
 * public key.
 */
import assert from "node:assert/strict";
import {
  decodeBase64,
  decodePkcs8,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  decodeSpki,
  encodeSpki,
} from "../../src/attest/mod.ts";
import { InputError } from "../../src/errors.ts";
import { pkcs8Algorithm, spkiAlgorithm } from "../../src/attest/key_algorithm.ts";

const ED448 = "-----BEGIN PRIVATE KEY-----\n" +
  "MEcCAQAwBQYDK2VxBDsEOWOVgWEgomMpjNI6l9iNDNuDJ8ZpZT4kWFNH3cKFSAK0\n" +
  "ppg84wm0S2le71KelD/7mWqOeZ+xPjQ5jA==\n-----END PRIVATE KEY-----\n";
/** `openssl pkey -pubout` of an Ed448 key (OpenSSL 3.0.19) (RFC 8410 §4: OID 1.3.101.113, 57-byte key). */
const ED448_PUB = "-----BEGIN PUBLIC KEY-----\n" +
  "MEMwBQYDK2VxAzoA/1FSoPdfsqHWgWYIsFWVwN6I8jC2Byb3UHZn1ELgq6kQsF4r\n" +
  "h7bc0Xwtdgn3nC4dScejXdUOGKGA\n-----END PUBLIC KEY-----\n";
/** RFC 8410 §10.3: version 1, an attribute, and the public key. */
const RFC8410_V1 = "MHICAQEwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC" +
  "oB8wHQYKKoZIhvcNAQkJFDEPDA1DdXJkbGUgQ2hhaXJzgSEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=";

/** The BAD_KEY message of `run`. */
function refusal(run: () => unknown): string {
  let message = "";
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof InputError && e.code === "BAD_KEY", String(e));
    message = e.message;
    return true;
  });
  return message;
}

async function pkcs8(algorithm: AlgorithmIdentifier | RsaHashedKeyGenParams | EcKeyGenParams) {
  const pair = await crypto.subtle.generateKey(algorithm, true, ["sign"]).catch(() =>
    crypto.subtle.generateKey(algorithm, true, ["deriveBits"])
  ) as CryptoKeyPair;
  return new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
}

Deno.test("decodePkcs8() says a key of another algorithm is not an Ed25519 key, naming it", async () => {
  const rsa = {
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: 1024,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  };
  const cases: [Uint8Array, string][] = [
    [await pkcs8(rsa), "it is an RSA key, not an Ed25519 key"],
    [
      await pkcs8({ name: "ECDSA", namedCurve: "P-256" }),
      "it is an EC key (P-256), not an Ed25519 key",
    ],
    [
      await pkcs8({ name: "ECDSA", namedCurve: "P-384" }),
      "it is an EC key (P-384), not an Ed25519 key",
    ],
    [await pkcs8({ name: "X25519" }), "it is an X25519 key, not an Ed25519 key"],
  ];
  for (const [der, why] of cases) {
    assert.equal(refusal(() => decodePkcs8(der)), `Cannot read private key: ${why}`);
  }
  assert.equal(
    refusal(() => decodePrivateKeyPem(ED448, { what: "key 'k' (--key)" })),
    "Cannot use key 'k' (--key): it is an Ed448 key, not an Ed25519 key",
  );
});

async function spki(algorithm: AlgorithmIdentifier | RsaHashedKeyGenParams | EcKeyGenParams) {
  const pair = await crypto.subtle.generateKey(algorithm, true, ["sign"]).catch(() =>
    crypto.subtle.generateKey(algorithm, true, ["deriveBits"])
  ) as CryptoKeyPair;
  return new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
}

Deno.test("decodeSpki() says a public key of another algorithm is not an Ed25519 key, naming it in the private key's words", async () => {
  const rsa = { modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" };
  const cases: [Uint8Array, string][] = [
    [await spki({ name: "RSASSA-PKCS1-v1_5", ...rsa }), "it is an RSA key, not an Ed25519 key"],
    [await spki({ name: "RSA-PSS", ...rsa }), "it is an RSA key, not an Ed25519 key"],
    [
      await spki({ name: "ECDSA", namedCurve: "P-256" }),
      "it is an EC key (P-256), not an Ed25519 key",
    ],
    [
      await spki({ name: "ECDSA", namedCurve: "P-384" }),
      "it is an EC key (P-384), not an Ed25519 key",
    ],
    [await spki({ name: "X25519" }), "it is an X25519 key, not an Ed25519 key"],
  ];
  for (const [der, why] of cases) {
    assert.equal(refusal(() => decodeSpki(der)), `Cannot read public key: ${why}`);
  }
  assert.equal(
    refusal(() => decodePublicKeyPem(ED448_PUB, { what: "key 'k.pub' (--pub)" })),
    "Cannot use key 'k.pub' (--pub): it is an Ed448 key, not an Ed25519 key",
  );
  // An Ed25519 SPKI of another length or form is refused for that, as before.
  const ed25519 = encodeSpki(new Uint8Array(32));
  assert.equal(spkiAlgorithm(ed25519)?.name, "an Ed25519 key");
  assert.match(refusal(() => decodeSpki(ed25519.subarray(0, 43))), /SPKI DER must be 44 bytes$/);
  assert.equal(spkiAlgorithm(new Uint8Array([0x30, 0x81])), undefined);
});

Deno.test("decodePkcs8() says an Ed25519 key of another encoding than RFC 8410 §7's 48 bytes is refused for its length", () => {
  const v1 = decodeBase64(RFC8410_V1);
  assert.equal(pkcs8Algorithm(v1)?.name, "an Ed25519 key");
  assert.match(
    refusal(() => decodePkcs8(v1)),
    /PKCS#8 DER of 116 bytes, where an Ed25519 key has 48/,
  );
  assert.match(refusal(() => decodePkcs8(v1.subarray(0, 47))), /PKCS#8 DER of 47 bytes/);
  assert.match(refusal(() => decodePkcs8(new Uint8Array(48))), /not an Ed25519 PKCS#8/);
});

Deno.test("pkcs8Algorithm() reads nothing from bytes that are not a PKCS#8 start, and names an unknown algorithm by its OID", () => {
  for (const bad of [[], [0x30], [0x30, 0x81], [0x30, 0x05, 0x02, 0x01, 0x00, 0x30, 0x09]]) {
    assert.equal(pkcs8Algorithm(new Uint8Array(bad)), undefined, JSON.stringify(bad));
  }
  // SEQUENCE { INTEGER 0, SEQUENCE { OID 1.2.3.4 } }
  const der = new Uint8Array([
    0x30,
    0x0a,
    0x02,
    0x01,
    0x00,
    0x30,
    0x05,
    0x06,
    0x03,
    0x2a,
    0x03,
    0x04,
  ]);
  assert.deepEqual(pkcs8Algorithm(der), { oid: "1.2.3.4", name: "a key of algorithm 1.2.3.4" });
  const padded = new Uint8Array([
    0x30,
    0x0b,
    0x02,
    0x01,
    0x00,
    0x30,
    0x06,
    0x06,
    0x04,
    0x2a,
    0x80,
    0x03,
    0x04,
  ]);
  assert.equal(pkcs8Algorithm(padded), undefined, "an arc padded with 0x80 is not DER");
});

Deno.test("decodePkcs8() names no algorithm whose OID is over 32 bytes: a hostile key file's OID is not written into the message", () => {
  // A 40 kB OID of 0x01 bytes in a key file made an 80 kB error line ("a key of algorithm
  // 0.1.1.1..."). SEQUENCE { INTEGER 0, SEQUENCE { OID of n bytes } }, lengths in two bytes.
  const der = (n: number) => {
    const oid = [0x06, 0x82, n >> 8, n & 255, ...new Array<number>(n).fill(1)];
    const alg = [0x30, 0x82, oid.length >> 8, oid.length & 255, ...oid];
    const body = [0x02, 0x01, 0x00, ...alg];
    return new Uint8Array([0x30, 0x82, body.length >> 8, body.length & 255, ...body]);
  };
  assert.equal(pkcs8Algorithm(der(32))?.oid.length, 65); // "0.1" and 31 more ".1"
  assert.equal(pkcs8Algorithm(der(33)), undefined);
  const message = refusal(() => decodePkcs8(der(40_000), { what: "key 'k' (--key)" }));
  assert.equal(
    message,
    "Cannot use key 'k' (--key): PKCS#8 DER of 40015 bytes, where an Ed25519 key has 48 " +
      "(version 0, no attributes or public key: RFC 8410 §7)",
  );
});
