/**
 * A whole RFC 6962 Merkle tree held level by level, so that any number of inclusion proofs cost
 * O(log n) each after one O(n) build (an audit of k records over an n-record log: n + k log n
 * hashes, not k n).
 *
 * Level 0 holds the leaf hashes; each next level pairs neighbours (node hash of 2i and 2i + 1)
 * and carries an unpaired last node up unchanged. This is the RFC 6962 §2.1 tree: its split at
 * the largest power of two below n puts every left subtree on full, aligned pairs, so the only
 * unpaired node of a level is the last, the root of the right-most (smaller) subtree, which the
 * recursive definition combines one level higher. Proofs are the same bytes as
 * {@link inclusionProof} (tested for every index of many sizes).
 *
 * @module
 */
import { MERKLE_HASH_BYTES, merkleLeafHash, merkleNodeHash } from "./merkle.ts";

/** A Merkle tree over a fixed list of leaves: its size, root and inclusion proofs. */
export interface MerkleTree {
  /** Number of leaves. */
  readonly size: number;
  /** The 32-byte Merkle Tree Hash (RFC 6962 §2.1). */
  readonly root: Uint8Array;
  /**
   * The audit path of leaf `index`, deepest sibling first: the same hashes as
   * `inclusionProof(leaves, index)`.
   *
   * @throws {RangeError} when `index` is not an integer in [0, size)
   */
  readonly proof: (index: number) => Uint8Array[];
}

/**
 * Builds the tree over a list of leaf digests once (2n - 1 hashes, about 64 bytes a leaf held).
 *
 * @param leaves record digests, 32 bytes each, in log order (at least one)
 * @returns the tree, whose `proof(index)` takes O(log n)
 * @throws {RangeError} when there is no leaf or a leaf is not 32 bytes
 * @example
 * ```ts
 * import { merkleTree } from "./merkle_tree.ts";
 * import { inclusionProof } from "./merkle_proof.ts";
 * const leaves = [1, 2, 3, 4, 5].map((b) => new Uint8Array(32).fill(b));
 * const tree = merkleTree(leaves);
 * if (tree.proof(4).length !== inclusionProof(leaves, 4).length) throw new Error();
 * ```
 */
export function merkleTree(leaves: readonly Uint8Array[]): MerkleTree {
  const n = leaves.length;
  if (n === 0) throw new RangeError("Cannot build Merkle tree: no leaves");
  const H = MERKLE_HASH_BYTES;
  // Each level is one flat buffer (32 bytes a node): 2n nodes in all, no object per node.
  const first = new Uint8Array(n * H);
  leaves.forEach((leaf, i) => first.set(merkleLeafHash(leaf), i * H));
  const levels: Uint8Array[] = [first];
  for (let c = n; c > 1; c = Math.ceil(c / 2)) {
    const below = levels.at(-1)!;
    const up = new Uint8Array(Math.ceil(c / 2) * H);
    for (let i = 0; i + 1 < c; i += 2) {
      const left = below.subarray(i * H, (i + 1) * H);
      const right = below.subarray((i + 1) * H, (i + 2) * H);
      up.set(merkleNodeHash(left, right), (i / 2) * H);
    }
    if (c % 2 === 1) up.set(below.subarray((c - 1) * H, c * H), ((c - 1) / 2) * H);
    levels.push(up);
  }
  const proof = (index: number): Uint8Array[] => {
    if (!Number.isSafeInteger(index) || index < 0 || index >= n) {
      throw new RangeError(`Cannot build inclusion proof: index ${index} is not in [0, ${n})`);
    }
    const path: Uint8Array[] = [];
    let m = index;
    for (let l = 0, c = n; c > 1; l++, c = Math.ceil(c / 2)) {
      const sibling = m % 2 === 0 ? m + 1 : m - 1;
      // The last node of a level without a right neighbour has no sibling here: it is carried up.
      if (sibling < c) path.push(levels[l]!.slice(sibling * H, (sibling + 1) * H));
      m = Math.floor(m / 2);
    }
    return path;
  };
  return { size: n, root: levels.at(-1)!.slice(0, H), proof };
}
