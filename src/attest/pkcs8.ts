/**
 * Ed25519 private keys as PKCS#8 DER (RFC 8410 §7) and "PRIVATE KEY" PEM files.
 *
 * The encoding is fixed: `302e020100300506032b657004220420 || seed32` (OneAsymmetricKey version 0,
 * algorithm 1.3.101.112, privateKey = OCTET STRING wrapping the 32-byte RFC 8032 seed), 48 bytes,
 * as produced by OpenSSL and WebCrypto `exportKey("pkcs8")`. The optional attributes and embedded
 * public key of version 1 are refused, so a key file has exactly one encoding.
 *
 * @module
 */
import { hexToBytes } from "@noble/hashes/utils.js";
import { InputError } from "../errors.ts";
import { type DecodeOptions, decodePem, encodePem } from "./pem.ts";
import { notEd25519, pkcs8Algorithm } from "./key_algorithm.ts";

/** DER prefix of an Ed25519 PKCS#8 v1 private key (RFC 8410 §7, §10.3). */
export const PKCS8_ED25519_PREFIX: Uint8Array = hexToBytes("302e020100300506032b657004220420");

/**
 * Encodes a 32-byte Ed25519 private key (seed) as PKCS#8 DER.
 *
 * @param privateKey 32-byte RFC 8032 private key (the seed, not the expanded 64-byte form)
 * @returns 48 bytes of DER
 * @throws {RangeError} when the key is not 32 bytes
 * @example
 * ```ts
 * import { encodePkcs8 } from "./pkcs8.ts";
 * if (encodePkcs8(new Uint8Array(32)).length !== 48) throw new Error();
 * ```
 */
export function encodePkcs8(privateKey: Uint8Array): Uint8Array {
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) {
    throw new RangeError("Cannot encode private key: expected 32 bytes");
  }
  const out = new Uint8Array(PKCS8_ED25519_PREFIX.length + 32);
  out.set(PKCS8_ED25519_PREFIX);
  out.set(privateKey, PKCS8_ED25519_PREFIX.length);
  return out;
}

/**
 * Decodes Ed25519 PKCS#8 DER back to the 32-byte private key.
 *
 * @param der exactly 48 bytes: the RFC 8410 prefix and the seed
 * @param options `what` the key is, for messages (the file it came from)
 * @returns the 32-byte private key
 * @throws {InputError} `BAD_KEY` when the DER is not an Ed25519 PKCS#8 of exactly that form (a key
 *   of another algorithm is named: "it is an RSA key, not an Ed25519 key")
 * @example
 * ```ts
 * import { decodePkcs8, encodePkcs8 } from "./pkcs8.ts";
 * if (decodePkcs8(encodePkcs8(new Uint8Array(32).fill(9)))[0] !== 9) throw new Error();
 * ```
 */
export function decodePkcs8(der: Uint8Array, options: DecodeOptions = {}): Uint8Array {
  const bad = (why: string): never => {
    const what = options.what === undefined ? "read private key" : `use ${options.what}`;
    throw new InputError("BAD_KEY", `Cannot ${what}: ${why}`);
  };
  if (!(der instanceof Uint8Array)) bad("PKCS#8 DER must be bytes");
  const exact = der.length === PKCS8_ED25519_PREFIX.length + 32 &&
    PKCS8_ED25519_PREFIX.every((b, i) => der[i] === b);
  if (!exact) bad(_notEd25519(der));
  return der.slice(PKCS8_ED25519_PREFIX.length);
}

/** Why DER that is not the one Ed25519 encoding is refused: another algorithm is named. */
function _notEd25519(der: Uint8Array): string {
  const other = notEd25519(pkcs8Algorithm(der));
  if (other !== undefined) return other;
  if (der.length !== PKCS8_ED25519_PREFIX.length + 32) {
    return `PKCS#8 DER of ${der.length} bytes, where an Ed25519 key has 48 (version 0, no ` +
      "attributes or public key: RFC 8410 §7)";
  }
  return "not an Ed25519 PKCS#8 (RFC 8410 §7)";
}

/**
 * Encodes a private key as a "PRIVATE KEY" PEM file (keep it secret: it is unencrypted).
 *
 * @param privateKey 32-byte Ed25519 private key
 * @returns PEM text
 * @throws {RangeError} when the key is not 32 bytes
 * @example
 * ```ts
 * import { encodePrivateKeyPem } from "./pkcs8.ts";
 * const pem = encodePrivateKeyPem(new Uint8Array(32));
 * if (!pem.startsWith("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI")) throw new Error(pem);
 * ```
 */
export function encodePrivateKeyPem(privateKey: Uint8Array): string {
  return encodePem("PRIVATE KEY", encodePkcs8(privateKey));
}

/**
 * Reads a "PRIVATE KEY" PEM file holding an Ed25519 PKCS#8 key.
 *
 * @param pem PEM text
 * @param options `what` the key is, for messages (e.g. `key 'inspector.key' (--key)`)
 * @returns the 32-byte private key
 * @throws {InputError} `BAD_PEM` (armor) or `BAD_KEY` (DER)
 * @example
 * ```ts
 * import { decodePrivateKeyPem, encodePrivateKeyPem } from "./pkcs8.ts";
 * if (decodePrivateKeyPem(encodePrivateKeyPem(new Uint8Array(32))).length !== 32) throw new Error();
 * ```
 */
export function decodePrivateKeyPem(pem: string, options: DecodeOptions = {}): Uint8Array {
  return decodePkcs8(decodePem(pem, "PRIVATE KEY", options), options);
}
