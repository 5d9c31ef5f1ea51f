/**
 * Ed25519 signatures (RFC 8032 PureEdDSA) with strict verification.
 *
 * Verification follows RFC 8032 §5.1.7 / FIPS 186-5 (`@noble/ed25519` with `zip215: false`), not
 * the permissive ZIP-215 rules noble uses by default: non-canonical encodings of R or A
 * (y ≥ p), S ≥ L and small-order public keys are refused. That gives strong unforgeability and
 * strongly binding signatures: one valid signature cannot be reworked into another, and a
 * signature cannot be valid for two different keys or messages by construction of a weak key.
 *
 * @module
 */
import * as ed from "@noble/ed25519";
import { _check } from "./generate_key_pair.ts";

/** What {@link verify} checks a message against. */
export interface SignatureCheck {
  /** 64-byte signature R || S. */
  readonly signature: Uint8Array;
  /** 32-byte public key. */
  readonly publicKey: Uint8Array;
}

/**
 * Signs a message (RFC 8032 §5.1.6; deterministic: same key and message, same signature).
 *
 * @param message bytes to sign (for DSSE: the PAE, see `pae`)
 * @param privateKey 32-byte private key (seed)
 * @returns 64-byte signature
 * @throws {RangeError} when the key is not 32 bytes
 * @example
 * ```ts
 * import { sign, verify } from "./signature.ts";
 * import { publicKeyFromPrivate } from "./generate_key_pair.ts";
 * const privateKey = new Uint8Array(32).fill(1);
 * const message = new TextEncoder().encode("verdict");
 * const signature = await sign(message, privateKey);
 * const publicKey = await publicKeyFromPrivate(privateKey);
 * if (!await verify(message, { signature, publicKey })) throw new Error();
 * ```
 */
export async function sign(message: Uint8Array, privateKey: Uint8Array): Promise<Uint8Array> {
  if (!(message instanceof Uint8Array)) throw new TypeError("Cannot sign: message must be bytes");
  _check(privateKey, 32, "private key");
  return await ed.signAsync(message, privateKey);
}

/**
 * Verifies a signature strictly (RFC 8032 §5.1.7 with canonical encodings and no small-order
 * keys). A well-formed but wrong signature, a public key that is not a curve point or a tampered
 * message all give `false`.
 *
 * @param message the signed bytes
 * @param check 64-byte `signature` and 32-byte `publicKey`
 * @returns whether the signature is valid
 * @throws {RangeError} when the signature is not 64 bytes or the key not 32 bytes (misuse: check
 *   lengths at the boundary)
 * @example
 * ```ts
 * import { verify } from "./signature.ts";
 * const ok = await verify(new Uint8Array(1), {
 *   signature: new Uint8Array(64), publicKey: new Uint8Array(32).fill(3),
 * });
 * if (ok) throw new Error("zero signature must not verify");
 * ```
 */
export async function verify(message: Uint8Array, check: SignatureCheck): Promise<boolean> {
  if (!(message instanceof Uint8Array)) throw new TypeError("Cannot verify: message must be bytes");
  _check(check.signature, 64, "signature");
  _check(check.publicKey, 32, "public key");
  return await ed.verifyAsync(check.signature, message, check.publicKey, { zip215: false });
}
