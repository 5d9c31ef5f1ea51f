/**
 * SHA-256 of byte strings, as lowercase hex.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/**
 * Hashes bytes with SHA-256.
 *
 * @param bytes input
 * @returns 64 lowercase hex digits
 * @throws {TypeError} when `bytes` is not a Uint8Array
 * @example
 * ```ts
 * import { sha256Hex } from "./sha256_hex.ts";
 * const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
 * if (sha256Hex(new Uint8Array()) !== empty) throw new Error();
 * ```
 */
export function sha256Hex(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`Cannot hash: expected a Uint8Array, got ${typeof bytes}`);
  }
  return bytesToHex(sha256(bytes));
}
