import assert from "node:assert/strict";
import { bytesToHex } from "@noble/hashes/utils.js";
import { merkleRoot } from "../../src/claims/merkle.ts";
import { inclusionProof, verifyInclusion } from "../../src/claims/merkle_proof.ts";
import { merkleTree } from "../../src/claims/merkle_tree.ts";
import { logRoot, logTree } from "../../src/claims/claim_log.ts";
import { testLeaves } from "./_merkle_reference.ts";

const hex = (ps: readonly Uint8Array[]) => ps.map(bytesToHex);

Deno.test("merkleTree() gives inclusionProof()'s bytes and merkleRoot() for every index of sizes 1..130", () => {
  const all = testLeaves(130);
  for (let n = 1; n <= 130; n++) {
    const leaves = all.slice(0, n);
    const tree = merkleTree(leaves);
    assert.equal(tree.size, n);
    assert.equal(bytesToHex(tree.root), bytesToHex(merkleRoot(leaves)), `root n=${n}`);
    for (let i = 0; i < n; i++) {
      assert.deepEqual(hex(tree.proof(i)), hex(inclusionProof(leaves, i)), `n=${n} i=${i}`);
    }
  }
});

Deno.test("merkleTree() gives inclusionProof()'s bytes on larger sizes around powers of two", () => {
  const all = testLeaves(4097);
  for (const n of [255, 256, 257, 1000, 1023, 1024, 1025, 3001, 4095, 4096, 4097]) {
    const leaves = all.slice(0, n);
    const tree = merkleTree(leaves);
    const root = merkleRoot(leaves);
    assert.equal(bytesToHex(tree.root), bytesToHex(root), `root n=${n}`);
    for (const i of [0, 1, n >> 1, n - 2, n - 1, (n * 7) % n, 512 % n, 1024 % n]) {
      const proof = tree.proof(i);
      assert.deepEqual(hex(proof), hex(inclusionProof(leaves, i)), `n=${n} i=${i}`);
      const leaf = leaves[i] as Uint8Array;
      assert.ok(verifyInclusion({ leaf, index: i, treeSize: n, proof, root }), `n=${n} i=${i}`);
    }
  }
});

Deno.test("merkleTree() throws RangeError without leaves, on a bad leaf or an index outside", () => {
  assert.throws(() => merkleTree([]), RangeError);
  assert.throws(() => merkleTree([new Uint8Array(31)]), RangeError);
  const tree = merkleTree(testLeaves(3));
  for (const i of [3, -1, 0.5, Number.NaN]) assert.throws(() => tree.proof(i), RangeError);
});

Deno.test("logTree() builds one tree per digest list and its root is the log's", () => {
  const digests = testLeaves(9).map(bytesToHex);
  const log = { records: [], digests, root: logRoot(digests) };
  const tree = logTree(log);
  assert.equal(bytesToHex(tree.root), log.root);
  assert.equal(logTree(log), tree, "the same log reuses its tree");
  assert.equal(logTree({ ...log }), tree, "the same digest list reuses its tree");
  const other = logTree({ digests: digests.slice(0, 8) });
  assert.notEqual(other, tree);
  assert.equal(bytesToHex(other.root), logRoot(digests.slice(0, 8)));
});
