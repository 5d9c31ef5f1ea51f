/**
 * Hex encoding of byte strings (lowercase, strict decoding).
 *
 * @module
 */
import { bytesToHex as _b2h, hexToBytes as _h2b } from "@noble/hashes/utils.js";

/**
 * Encodes bytes as lowercase hex.
 *
 * @param bytes input
 * @returns hex text
 * @example
 * ```ts
 * import { bytesToHex } from "./hex.ts";
 * if (bytesToHex(new Uint8Array([1, 255])) !== "01ff") throw new Error();
 * ```
 */
export function bytesToHex(bytes: Uint8Array): string {
  return _b2h(bytes);
}

/**
 * Decodes lowercase or uppercase hex.
 *
 * @param hex even-length hex text
 * @returns bytes
 * @throws {SyntaxError} on odd length or non-hex characters
 * @example
 * ```ts
 * import { hexToBytes } from "./hex.ts";
 * if (hexToBytes("01ff")[1] !== 255) throw new Error();
 * ```
 */
export function hexToBytes(hex: string): Uint8Array {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) {
    throw new SyntaxError(`Cannot decode hex: expected an even number of hex digits`);
  }
  return _h2b(hex);
}
