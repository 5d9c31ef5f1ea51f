/**
 * RFC 6962 §2.1 Merkle Tree Hash over a claim log's list of 32-byte record digests.
 *
 * Leaves are the 32-byte SHA-256 digests of the records (not the records themselves); the tree
 * hashes them again with domain separation: leaf = SHA-256(0x00 || digest),
 * node = SHA-256(0x01 || left || right), so a leaf can never be passed off as a node.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";

/** Byte length of a leaf digest and of every tree hash (SHA-256). */
export const MERKLE_HASH_BYTES = 32;

/**
 * Hashes one leaf: SHA-256(0x00 || leaf) (RFC 6962 §2.1).
 *
 * @param leaf 32-byte record digest
 * @returns 32-byte leaf hash
 * @throws {RangeError} when `leaf` is not 32 bytes
 * @example
 * ```ts
 * import { merkleLeafHash } from "./merkle.ts";
 * if (merkleLeafHash(new Uint8Array(32)).length !== 32) throw new Error();
 * ```
 */
export function merkleLeafHash(leaf: Uint8Array): Uint8Array {
  _check32(leaf, "leaf");
  const buf = new Uint8Array(1 + MERKLE_HASH_BYTES);
  buf[0] = 0x00;
  buf.set(leaf, 1);
  return sha256(buf);
}

/**
 * Hashes an interior node: SHA-256(0x01 || left || right) (RFC 6962 §2.1).
 *
 * @param left 32-byte hash of the left subtree
 * @param right 32-byte hash of the right subtree
 * @returns 32-byte node hash
 * @throws {RangeError} when either input is not 32 bytes
 * @example
 * ```ts
 * import { merkleNodeHash } from "./merkle.ts";
 * if (merkleNodeHash(new Uint8Array(32), new Uint8Array(32)).length !== 32) throw new Error();
 * ```
 */
export function merkleNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  _check32(left, "left");
  _check32(right, "right");
  const buf = new Uint8Array(1 + 2 * MERKLE_HASH_BYTES);
  buf[0] = 0x01;
  buf.set(left, 1);
  buf.set(right, 1 + MERKLE_HASH_BYTES);
  return sha256(buf);
}

/**
 * Computes the Merkle Tree Hash MTH(D[n]) of a list of leaf digests (RFC 6962 §2.1).
 *
 * MTH({}) = SHA-256(""); MTH({d0}) = leaf hash of d0; for n > 1 with k the largest power of two
 * smaller than n: MTH(D[n]) = node hash of MTH(D[0:k]) and MTH(D[k:n]).
 *
 * @param leaves record digests, 32 bytes each, in log order
 * @returns the 32-byte root
 * @throws {RangeError} when a leaf is not 32 bytes
 * @example
 * ```ts
 * import { merkleRoot } from "./merkle.ts";
 * import { bytesToHex } from "@noble/hashes/utils.js";
 * const empty = bytesToHex(merkleRoot([]));
 * if (empty !== "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") throw new Error();
 * ```
 */
export function merkleRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256(new Uint8Array(0));
  return _subtreeRoot(leaves.map(merkleLeafHash), 0, leaves.length);
}

/**
 * Root of the subtree over already hashed leaves `hashes[lo, hi)`; `hi > lo`.
 *
 * @internal shared with the proof functions of this folder
 */
export function _subtreeRoot(hashes: readonly Uint8Array[], lo: number, hi: number): Uint8Array {
  const n = hi - lo;
  if (n === 1) return hashes[lo] as Uint8Array;
  const k = _splitPoint(n);
  return merkleNodeHash(_subtreeRoot(hashes, lo, lo + k), _subtreeRoot(hashes, lo + k, hi));
}

/**
 * Largest power of two strictly smaller than `n` (n ≥ 2), the RFC 6962 split point.
 *
 * @internal shared with the proof functions of this folder
 */
export function _splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * Whether two byte strings are equal (examines every byte, whatever differs first).
 *
 * @internal shared with the proof functions of this folder
 */
export function _equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

function _check32(bytes: Uint8Array, what: string): void {
  if (!(bytes instanceof Uint8Array) || bytes.length !== MERKLE_HASH_BYTES) {
    const got = bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes;
    throw new RangeError(`Cannot hash Merkle ${what}: expected 32 bytes, got ${got}`);
  }
}
