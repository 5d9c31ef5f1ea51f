/**
 * Ed25519 public keys as SubjectPublicKeyInfo DER (RFC 8410 §4) and "PUBLIC KEY" PEM files.
 *
 * The encoding is fixed: `302a300506032b6570032100 || pub32` (SEQUENCE { SEQUENCE { OID
 * 1.3.101.112 }, BIT STRING (0 unused bits) pub32 }), 44 bytes. It is what OpenSSL, WebCrypto
 * (`exportKey("spki")`) and Go's `x509.MarshalPKIXPublicKey` produce, so the `.pub` file works with
 * any standard Ed25519 implementation.
 *
 * @module
 */
import { hexToBytes } from "@noble/hashes/utils.js";
import { InputError } from "../errors.ts";
import { type DecodeOptions, decodePem, encodePem } from "./pem.ts";
import { notEd25519, spkiAlgorithm } from "./key_algorithm.ts";

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410 §4, §10.1). */
export const SPKI_ED25519_PREFIX: Uint8Array = hexToBytes("302a300506032b6570032100");

/**
 * Encodes a 32-byte Ed25519 public key as SPKI DER.
 *
 * @param publicKey 32-byte Ed25519 public key (RFC 8032 §5.1.5 encoding)
 * @returns 44 bytes of DER
 * @throws {RangeError} when the key is not 32 bytes
 * @example
 * ```ts
 * import { encodeSpki } from "./spki.ts";
 * if (encodeSpki(new Uint8Array(32)).length !== 44) throw new Error();
 * ```
 */
export function encodeSpki(publicKey: Uint8Array): Uint8Array {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new RangeError("Cannot encode public key: expected 32 bytes");
  }
  const out = new Uint8Array(SPKI_ED25519_PREFIX.length + 32);
  out.set(SPKI_ED25519_PREFIX);
  out.set(publicKey, SPKI_ED25519_PREFIX.length);
  return out;
}

/**
 * Decodes Ed25519 SPKI DER back to the 32-byte public key.
 *
 * @param der exactly 44 bytes: the RFC 8410 prefix and the key
 * @param options `what` the key is, for messages (the file it came from): an error then reads
 *   "Cannot use <what>: <why>"
 * @returns the 32-byte public key
 * @throws {InputError} `BAD_KEY` when the DER is not an Ed25519 SPKI of exactly that form (a key
 *   of another algorithm is named: "it is an RSA key, not an Ed25519 key")
 * @example
 * ```ts
 * import { decodeSpki, encodeSpki } from "./spki.ts";
 * const pub = new Uint8Array(32).fill(7);
 * if (decodeSpki(encodeSpki(pub))[31] !== 7) throw new Error();
 * ```
 */
export function decodeSpki(der: Uint8Array, options: DecodeOptions = {}): Uint8Array {
  const bad = (why: string): never => {
    const what = options.what === undefined ? "read public key" : `use ${options.what}`;
    throw new InputError("BAD_KEY", `Cannot ${what}: ${why}`);
  };
  if (!(der instanceof Uint8Array)) bad("SPKI DER must be bytes");
  const exact = der.length === SPKI_ED25519_PREFIX.length + 32 &&
    SPKI_ED25519_PREFIX.every((b, i) => der[i] === b);
  if (!exact) bad(_notEd25519(der));
  return der.slice(SPKI_ED25519_PREFIX.length);
}

/** Why DER that is not the one Ed25519 encoding is refused: another algorithm is named. */
function _notEd25519(der: Uint8Array): string {
  const other = notEd25519(spkiAlgorithm(der));
  if (other !== undefined) return other;
  if (der.length !== SPKI_ED25519_PREFIX.length + 32) return "SPKI DER must be 44 bytes";
  return "not an Ed25519 SPKI (RFC 8410)";
}

/**
 * Encodes a public key as a "PUBLIC KEY" PEM file.
 *
 * @param publicKey 32-byte Ed25519 public key
 * @returns PEM text
 * @throws {RangeError} when the key is not 32 bytes
 * @example
 * ```ts
 * import { decodePublicKeyPem, encodePublicKeyPem } from "./spki.ts";
 * const pem = encodePublicKeyPem(new Uint8Array(32).fill(1));
 * if (!pem.startsWith("-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA")) throw new Error(pem);
 * if (decodePublicKeyPem(pem)[0] !== 1) throw new Error();
 * ```
 */
export function encodePublicKeyPem(publicKey: Uint8Array): string {
  return encodePem("PUBLIC KEY", encodeSpki(publicKey));
}

/**
 * Reads a "PUBLIC KEY" PEM file holding an Ed25519 SPKI.
 *
 * @param pem PEM text
 * @param options `what` the key is, for messages (e.g. `key 'worker.pub' (--worker-pub)`)
 * @returns the 32-byte public key
 * @throws {InputError} `BAD_PEM` (armor) or `BAD_KEY` (DER)
 * @example
 * ```ts
 * import { decodePublicKeyPem, encodePublicKeyPem } from "./spki.ts";
 * if (decodePublicKeyPem(encodePublicKeyPem(new Uint8Array(32))).length !== 32) throw new Error();
 * ```
 */
export function decodePublicKeyPem(pem: string, options: DecodeOptions = {}): Uint8Array {
  return decodeSpki(decodePem(pem, "PUBLIC KEY", options), options);
}
