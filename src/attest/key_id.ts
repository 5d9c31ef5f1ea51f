/**
 * Key identifiers: the `keyid` of DSSE signatures and trust roots.
 *
 * @module
 */
import { sha256Hex } from "../claims/mod.ts";
import { encodeSpki } from "./spki.ts";

/**
 * Computes the key id of an Ed25519 public key: lowercase hex SHA-256 of its SPKI DER (RFC 8410),
 * the Sigstore `PublicKeyIdentifier` convention. Anyone can recompute it from the `.pub` file
 * (`openssl pkey -pubin -in key.pub -outform DER | sha256sum`). Show the first 16 hex characters
 * to humans; compare the full 64.
 *
 * @param publicKey 32-byte Ed25519 public key
 * @returns 64 lowercase hex characters
 * @throws {RangeError} when the key is not 32 bytes
 * @example
 * ```ts
 * import { keyId } from "./key_id.ts";
 * if (!/^[0-9a-f]{64}$/.test(keyId(new Uint8Array(32)))) throw new Error();
 * ```
 */
export function keyId(publicKey: Uint8Array): string {
  return sha256Hex(encodeSpki(publicKey));
}
