/**
 * RFC 9162 §2.1.4 consistency proofs, checked against the worked example of RFC 9162 §2.1.5 (the
 * seven-leaf tree and its proofs from sizes 3, 4 and 6) and by properties on random trees.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  consistencyProof,
  merkleLeafHash,
  merkleNodeHash,
  merkleRoot,
  verifyConsistency,
} from "../../src/claims/mod.ts";

const leaves = (n: number) =>
  Array.from({ length: n }, (_, i) => new Uint8Array(32).fill(i + 1).map((b, j) => b ^ j));

Deno.test("consistencyProof() gives the RFC 9162 §2.1.5 example proofs for the seven-leaf tree", () => {
  const d = leaves(7);
  const [a, b, c, dd, e, f, j] = d.map(merkleLeafHash) as Uint8Array[];
  const g = merkleNodeHash(a!, b!);
  const h = merkleNodeHash(c!, dd!);
  const i = merkleNodeHash(e!, f!);
  const k = merkleNodeHash(g, h);
  const l = merkleNodeHash(i, j!);
  assert.deepEqual(consistencyProof(d, 3), [c, dd, g, l]);
  assert.deepEqual(consistencyProof(d, 4), [l]);
  assert.deepEqual(consistencyProof(d, 6), [i, j, k]);
  for (const m of [3, 4, 6]) {
    const ok = verifyConsistency({
      oldSize: m,
      newSize: 7,
      oldRoot: merkleRoot(d.slice(0, m)),
      newRoot: merkleRoot(d),
      proof: consistencyProof(d, m),
    });
    assert.equal(ok, true, `size ${m}`);
  }
});

Deno.test("verifyConsistency() accepts every prefix of random trees and rejects tampering", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 70 }), fc.nat(), fc.nat(), (n, mSeed, pick) => {
      const d = leaves(n);
      const m = mSeed % (n + 1);
      const base = {
        oldSize: m,
        newSize: n,
        oldRoot: merkleRoot(d.slice(0, m)),
        newRoot: merkleRoot(d),
        proof: consistencyProof(d, m),
      };
      assert.equal(verifyConsistency(base), true);
      if (base.proof.length > 0) {
        const proof = base.proof.map((p) => p.slice());
        const at = pick % proof.length;
        const target = proof[at] as Uint8Array;
        target[pick % 32] = (target[pick % 32] as number) ^ 1;
        assert.equal(verifyConsistency({ ...base, proof }), false);
        assert.equal(verifyConsistency({ ...base, proof: base.proof.slice(0, -1) }), false);
        assert.equal(verifyConsistency({ ...base, proof: [...base.proof, base.newRoot] }), false);
      }
      if (m > 0 && m < n) {
        // Another log of the same sizes whose first m leaves differ.
        const forked = d.map((x, i) => (i === pick % m ? x.map((b) => b ^ 0xff) : x));
        assert.equal(
          verifyConsistency({ ...base, oldRoot: merkleRoot(forked.slice(0, m)) }),
          false,
        );
        assert.equal(verifyConsistency({ ...base, newRoot: merkleRoot(forked) }), false);
      }
    }),
    { numRuns: 300 },
  );
});

Deno.test("verifyConsistency() handles equal sizes and the empty tree", () => {
  const d = leaves(5);
  const root = merkleRoot(d);
  assert.equal(
    verifyConsistency({ oldSize: 5, newSize: 5, oldRoot: root, newRoot: root, proof: [] }),
    true,
  );
  const other = merkleRoot(leaves(4));
  assert.equal(
    verifyConsistency({ oldSize: 5, newSize: 5, oldRoot: other, newRoot: root, proof: [] }),
    false,
  );
  assert.equal(
    verifyConsistency({ oldSize: 5, newSize: 5, oldRoot: root, newRoot: root, proof: [root] }),
    false,
  );
  assert.equal(
    verifyConsistency({
      oldSize: 0,
      newSize: 5,
      oldRoot: merkleRoot([]),
      newRoot: root,
      proof: [],
    }),
    true,
  );
});

Deno.test("verifyConsistency() refuses an old tree of size 0 whose root is not the empty tree's", () => {
  const root = merkleRoot(leaves(5));
  const notEmpty = new Uint8Array(32).fill(0x11);
  for (const newSize of [0, 5]) {
    const newRoot = newSize === 0 ? notEmpty : root;
    assert.equal(
      verifyConsistency({ oldSize: 0, newSize, oldRoot: notEmpty, newRoot, proof: [] }),
      false,
    );
  }
  const empty = merkleRoot([]);
  assert.equal(
    verifyConsistency({ oldSize: 0, newSize: 0, oldRoot: empty, newRoot: empty, proof: [] }),
    true,
  );
});

Deno.test("verifyConsistency() and consistencyProof() throw RangeError on misuse", () => {
  const r = new Uint8Array(32);
  assert.throws(
    () => verifyConsistency({ oldSize: 3, newSize: 2, oldRoot: r, newRoot: r, proof: [] }),
    RangeError,
  );
  assert.throws(
    () => verifyConsistency({ oldSize: -1, newSize: 2, oldRoot: r, newRoot: r, proof: [] }),
    RangeError,
  );
  assert.throws(
    () =>
      verifyConsistency({
        oldSize: 1,
        newSize: 2,
        oldRoot: new Uint8Array(31),
        newRoot: r,
        proof: [],
      }),
    RangeError,
  );
  assert.throws(() => consistencyProof(leaves(2), 3), RangeError);
});
