/**
 * RFC 9162 §2.1.4 Merkle consistency proofs: show that the tree of `oldSize` leaves with one root
 * is a prefix of the tree of `newSize` leaves with another, so a log only grew between two
 * checkpoints.
 *
 * @module
 */
import {
  _equalBytes,
  _splitPoint,
  _subtreeRoot,
  MERKLE_HASH_BYTES,
  merkleLeafHash,
  merkleNodeHash,
  merkleRoot,
} from "./merkle.ts";

/** MTH({}) = SHA-256(""): the one root a tree of no leaves has (RFC 6962 §2.1, RFC 9162 §2.1.1). */
const _EMPTY_ROOT = merkleRoot([]);

/** Inputs of {@link verifyConsistency}. */
export interface ConsistencyCheck {
  /** Leaves of the older tree. */
  readonly oldSize: number;
  /** Leaves of the newer tree (>= oldSize). */
  readonly newSize: number;
  /** 32-byte root of the older tree. */
  readonly oldRoot: Uint8Array;
  /** 32-byte root of the newer tree. */
  readonly newRoot: Uint8Array;
  /** The proof, as built by {@link consistencyProof}. */
  readonly proof: readonly Uint8Array[];
}

/**
 * Builds the consistency proof PROOF(m, D[n]) of RFC 9162 §2.1.4.1 between the first `oldSize`
 * leaves and all of `leaves`.
 *
 * @param leaves record digests of the newer tree (32 bytes each)
 * @param oldSize leaves of the older tree, in [0, leaves.length]
 * @returns the proof hashes (empty when `oldSize` is 0 or equals the tree size)
 * @throws {RangeError} when `oldSize` is out of range or a leaf is not 32 bytes
 * @example
 * ```ts
 * import { consistencyProof } from "./merkle_consistency.ts";
 * const leaves = [1, 2, 3, 4, 5, 6, 7].map((b) => new Uint8Array(32).fill(b));
 * if (consistencyProof(leaves, 3).length !== 4) throw new Error(); // RFC 9162 §2.1.5: [c, d, g, l]
 * ```
 */
export function consistencyProof(leaves: readonly Uint8Array[], oldSize: number): Uint8Array[] {
  if (!Number.isSafeInteger(oldSize) || oldSize < 0 || oldSize > leaves.length) {
    throw new RangeError(
      `Cannot build consistency proof: old size ${oldSize} is not in [0, ${leaves.length}]`,
    );
  }
  if (oldSize === 0 || oldSize === leaves.length) return [];
  const hashes = leaves.map(merkleLeafHash);
  const out: Uint8Array[] = [];
  _subproof(hashes, { m: oldSize, lo: 0, hi: hashes.length, complete: true }, out);
  return out;
}

function _subproof(
  hashes: readonly Uint8Array[],
  at: { m: number; lo: number; hi: number; complete: boolean },
  out: Uint8Array[],
): void {
  const { m, lo, hi, complete } = at;
  const n = hi - lo;
  if (m === n) {
    if (!complete) out.push(_subtreeRoot(hashes, lo, hi));
    return;
  }
  const k = _splitPoint(n);
  if (m <= k) {
    _subproof(hashes, { m, lo, hi: lo + k, complete }, out);
    out.push(_subtreeRoot(hashes, lo + k, hi));
  } else {
    _subproof(hashes, { m: m - k, lo: lo + k, hi, complete: false }, out);
    out.push(_subtreeRoot(hashes, lo, lo + k));
  }
}

/**
 * Verifies a consistency proof with the algorithm of RFC 9162 §2.1.4.2. Equal sizes are
 * consistent only with an empty proof and equal roots; an empty old tree is consistent with any
 * newer tree given an empty proof, provided its root is the empty tree's (SHA-256 of the empty
 * string: a tree of size 0 with another root is no tree, and is a prefix of nothing). Anything
 * that does not check gives `false`.
 *
 * @param check sizes, roots and proof
 * @returns whether the older tree is a prefix of the newer one
 * @throws {RangeError} on misuse: sizes not safe non-negative integers, `oldSize > newSize`, or
 *   roots not 32 bytes
 * @example
 * ```ts
 * import { merkleRoot } from "./merkle.ts";
 * import { consistencyProof, verifyConsistency } from "./merkle_consistency.ts";
 * const leaves = [1, 2, 3, 4, 5].map((b) => new Uint8Array(32).fill(b));
 * const ok = verifyConsistency({
 *   oldSize: 3, newSize: 5, oldRoot: merkleRoot(leaves.slice(0, 3)), newRoot: merkleRoot(leaves),
 *   proof: consistencyProof(leaves, 3),
 * });
 * if (!ok) throw new Error();
 * ```
 */
export function verifyConsistency(check: ConsistencyCheck): boolean {
  const { oldSize, newSize, oldRoot, newRoot, proof } = check;
  for (const [v, what] of [[oldSize, "old size"], [newSize, "new size"]] as const) {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`Cannot verify consistency: ${what} ${v} is not a non-negative integer`);
    }
  }
  if (oldSize > newSize) {
    throw new RangeError(`Cannot verify consistency: old size ${oldSize} > new size ${newSize}`);
  }
  for (const [r, what] of [[oldRoot, "old root"], [newRoot, "new root"]] as const) {
    if (!(r instanceof Uint8Array) || r.length !== MERKLE_HASH_BYTES) {
      throw new RangeError(`Cannot verify consistency: ${what} must be 32 bytes`);
    }
  }
  if (oldSize === 0 && !_equalBytes(oldRoot, _EMPTY_ROOT)) return false;
  if (oldSize === newSize) return proof.length === 0 && _equalBytes(oldRoot, newRoot);
  if (oldSize === 0) return proof.length === 0;
  if (proof.length === 0 || proof.some((p) => !(p instanceof Uint8Array) || p.length !== 32)) {
    return false;
  }
  // Step 2: when the old tree is a complete subtree, its root is the first node of the path.
  const path = (oldSize & (oldSize - 1)) === 0 ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = merkleNodeHash(c, fr);
      sr = merkleNodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = merkleNodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && _equalBytes(fr, oldRoot) && _equalBytes(sr, newRoot);
}
