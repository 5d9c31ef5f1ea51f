/**
 * Ed25519 key generation and public-key derivation (`@noble/ed25519`, WebCrypto SHA-512).
 *
 * @module
 */
import * as ed from "@noble/ed25519";

/** An Ed25519 key pair as raw bytes. */
export interface Ed25519KeyPair {
  /** 32-byte RFC 8032 private key (seed). Keep secret. */
  readonly privateKey: Uint8Array;
  /** 32-byte RFC 8032 public key. */
  readonly publicKey: Uint8Array;
}

/**
 * Generates a fresh key pair from the platform CSPRNG (`crypto.getRandomValues`).
 *
 * @returns the private seed and its public key
 * @example
 * ```ts
 * import { generateKeyPair } from "./generate_key_pair.ts";
 * const { privateKey, publicKey } = await generateKeyPair();
 * if (privateKey.length !== 32 || publicKey.length !== 32) throw new Error();
 * ```
 */
export async function generateKeyPair(): Promise<Ed25519KeyPair> {
  const { secretKey, publicKey } = await ed.keygenAsync();
  return { privateKey: secretKey, publicKey };
}

/**
 * Derives the public key of a private key (RFC 8032 §5.1.5).
 *
 * @param privateKey 32-byte private key (seed)
 * @returns the 32-byte public key
 * @throws {RangeError} when the key is not 32 bytes
 * @example
 * ```ts
 * import { publicKeyFromPrivate } from "./generate_key_pair.ts";
 * const seed = Uint8Array.from({ length: 32 }, (_, i) => i);
 * if ((await publicKeyFromPrivate(seed)).length !== 32) throw new Error();
 * ```
 */
export async function publicKeyFromPrivate(privateKey: Uint8Array): Promise<Uint8Array> {
  _check(privateKey, 32, "private key");
  return await ed.getPublicKeyAsync(privateKey);
}

/**
 * Throws a RangeError unless `bytes` is a Uint8Array of exactly `length` bytes.
 *
 * @internal shared with the signature functions of this folder
 */
export function _check(bytes: Uint8Array, length: number, what: string): void {
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    const got = bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes;
    throw new RangeError(`Cannot use ${what}: expected ${length} bytes, got ${got}`);
  }
}
