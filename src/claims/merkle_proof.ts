/**
 * RFC 6962 / RFC 9162 Merkle inclusion proofs: show that one record digest is in a claim log
 * whose root was committed, with about log2(n) hashes.
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
} from "./merkle.ts";

/** Inputs of {@link verifyInclusion}. */
export interface InclusionCheck {
  /** The 32-byte record digest claimed to be in the tree. */
  readonly leaf: Uint8Array;
  /** Its 0-based position in the log. */
  readonly index: number;
  /** Number of leaves of the tree the root belongs to. */
  readonly treeSize: number;
  /** Audit path, deepest sibling first (as produced by {@link inclusionProof}). */
  readonly proof: readonly Uint8Array[];
  /** The committed 32-byte Merkle Tree Hash. */
  readonly root: Uint8Array;
}

/**
 * Builds the audit path PATH(m, D[n]) of RFC 6962 §2.1.1 for leaf `index`.
 *
 * @param leaves all record digests of the tree (32 bytes each)
 * @param index 0-based position of the leaf to prove
 * @returns the sibling hashes from the leaf level up to just below the root
 * @throws {RangeError} when `index` is not an integer in [0, leaves.length) or a leaf is not 32 bytes
 * @example
 * ```ts
 * import { inclusionProof } from "./merkle_proof.ts";
 * const leaves = [1, 2, 3].map((b) => new Uint8Array(32).fill(b));
 * if (inclusionProof(leaves, 2).length !== 1) throw new Error();
 * ```
 */
export function inclusionProof(leaves: readonly Uint8Array[], index: number): Uint8Array[] {
  if (!Number.isSafeInteger(index) || index < 0 || index >= leaves.length) {
    throw new RangeError(
      `Cannot build inclusion proof: index ${index} is not in [0, ${leaves.length})`,
    );
  }
  const hashes = leaves.map(merkleLeafHash);
  const path: Uint8Array[] = [];
  let lo = 0;
  let hi = hashes.length;
  let m = index;
  // Walk down from the root; siblings are collected top-down, the proof lists them bottom-up.
  while (hi - lo > 1) {
    const k = _splitPoint(hi - lo);
    if (m < k) {
      path.push(_subtreeRoot(hashes, lo + k, hi));
      hi = lo + k;
    } else {
      path.push(_subtreeRoot(hashes, lo, lo + k));
      lo += k;
      m -= k;
    }
  }
  return path.reverse();
}

/**
 * Verifies an inclusion proof with the algorithm of RFC 9162 §2.1.3.2.
 *
 * A proof that does not lead to `root` (wrong sibling, wrong length, sibling of the wrong size,
 * proof for another index or tree size) gives `false`.
 *
 * @param check leaf, index, tree size, proof and root
 * @returns whether the proof shows `leaf` at `index` in the tree of `treeSize` leaves with `root`
 * @throws {RangeError} on misuse: `treeSize` or `index` not a safe non-negative integer,
 *   `index >= treeSize`, or `leaf` / `root` not 32 bytes
 * @example
 * ```ts
 * import { merkleRoot } from "./merkle.ts";
 * import { inclusionProof, verifyInclusion } from "./merkle_proof.ts";
 * const leaves = [1, 2, 3, 4, 5].map((b) => new Uint8Array(32).fill(b));
 * const ok = verifyInclusion({
 *   leaf: leaves[3]!, index: 3, treeSize: 5, proof: inclusionProof(leaves, 3), root: merkleRoot(leaves),
 * });
 * if (!ok) throw new Error();
 * ```
 */
export function verifyInclusion(check: InclusionCheck): boolean {
  const { leaf, index, treeSize, proof, root } = check;
  if (!Number.isSafeInteger(treeSize) || treeSize < 1) {
    throw new RangeError(
      `Cannot verify inclusion: tree size ${treeSize} is not a positive integer`,
    );
  }
  if (!Number.isSafeInteger(index) || index < 0 || index >= treeSize) {
    throw new RangeError(`Cannot verify inclusion: index ${index} is not in [0, ${treeSize})`);
  }
  if (!(root instanceof Uint8Array) || root.length !== MERKLE_HASH_BYTES) {
    throw new RangeError("Cannot verify inclusion: root must be 32 bytes");
  }
  let fn = index;
  let sn = treeSize - 1;
  let r = merkleLeafHash(leaf);
  for (const p of proof) {
    if (sn === 0) return false;
    if (!(p instanceof Uint8Array) || p.length !== MERKLE_HASH_BYTES) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = merkleNodeHash(p, r);
      // Skip the levels where this node has no right sibling (it is the last of its level).
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = merkleNodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && _equalBytes(r, root);
}
