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
 * An incremental SHA-256: bytes in order, then the digest. Any implementation of FIPS 180-4
 * gives the same digest; the host may pass a faster one than the portable default (e.g. the
 * runtime's native hash, see `nativeSha256` in `src/cli`).
 */
export interface Sha256Stream {
  /** Appends bytes. */
  update(bytes: Uint8Array): void;
  /** The digest of every byte appended, as 64 lowercase hex digits (call once). */
  hex(): string;
}

/**
 * The portable incremental SHA-256 (`@noble/hashes`, pure TypeScript).
 *
 * @returns a fresh stream
 * @example
 * ```ts
 * import { portableSha256 } from "./sha256_of_source.ts";
 * const h = portableSha256();
 * h.update(new TextEncoder().encode("abc"));
 * if (!h.hex().startsWith("ba7816bf")) throw new Error();
 * ```
 */
export function portableSha256(): Sha256Stream {
  const h = sha256.create();
  return {
    update: (bytes) => void h.update(bytes),
    hex: () => bytesToHex(h.digest()),
  };
}

/**
 * Hashes a byte source from its first to its last byte.
 *
 * @param source the bytes
 * @param options `hasher`: makes the incremental SHA-256 (default {@link portableSha256})
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
export async function sha256OfSource(
  source: ByteSource,
  options: { readonly hasher?: () => Sha256Stream } = {},
): Promise<string> {
  const h = (options.hasher ?? portableSha256)();
  for (let at = 0; at < source.size; at += CHUNK) {
    const length = Math.min(CHUNK, source.size - at);
    h.update(await readExactly(source, { offset: at, length, what: "bytes to hash" }));
  }
  return h.hex();
}
