/**
 * SHA-256 of a whole byte source, read in bounded chunks (a multi-GB weight file never sits in
 * memory at once).
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type ByteSource, readExactly } from "../safetensors/mod.ts";

/** Bytes read per step. */
const CHUNK = 16 << 20;

/**
 * Hashes a byte source from its first to its last byte.
 *
 * @param source the bytes
 * @returns lowercase hex SHA-256
 * @throws {InputError} `BYTE_SOURCE_SHORT_READ` when the source returns fewer bytes than asked
 * @example
 * ```ts
 * import { sha256OfSource } from "./sha256_of_source.ts";
 * import { bytesByteSource } from "../safetensors/mod.ts";
 * const d = await sha256OfSource(bytesByteSource(new Uint8Array(0)));
 * if (d !== "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") throw new Error();
 * ```
 */
export async function sha256OfSource(source: ByteSource): Promise<string> {
  const h = sha256.create();
  for (let at = 0; at < source.size; at += CHUNK) {
    const length = Math.min(CHUNK, source.size - at);
    h.update(await readExactly(source, { offset: at, length, what: "bytes to hash" }));
  }
  return bytesToHex(h.digest());
}
