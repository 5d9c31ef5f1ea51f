import assert from "node:assert/strict";
import { bytesToHex } from "@noble/hashes/utils.js";
import { merkleLeafHash, merkleNodeHash, merkleRoot } from "../../src/claims/merkle.ts";
import { h, referenceRoot, testLeaves } from "./_merkle_reference.ts";

Deno.test("merkleRoot() is SHA-256('') when the tree is empty (RFC 6962 §2.1)", () => {
  assert.equal(
    bytesToHex(merkleRoot([])),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
});

Deno.test("merkleRoot() matches the recursive RFC 6962 definition for every size 1..70", async () => {
  const all = testLeaves(70);
  for (let n = 1; n <= 70; n++) {
    const leaves = all.slice(0, n);
    assert.equal(bytesToHex(merkleRoot(leaves)), bytesToHex(await referenceRoot(leaves)), `n=${n}`);
  }
});

Deno.test("merkleRoot() has the RFC 6962 shape when n is 3 (left subtree of 2, right leaf)", async () => {
  const [a, b, c] = testLeaves(3) as [Uint8Array, Uint8Array, Uint8Array];
  const la = await h(Uint8Array.of(0), a);
  const lb = await h(Uint8Array.of(0), b);
  const lc = await h(Uint8Array.of(0), c);
  const want = await h(Uint8Array.of(1), await h(Uint8Array.of(1), la, lb), lc);
  assert.deepEqual(merkleRoot([a, b, c]), want);
  assert.deepEqual(merkleLeafHash(a), la);
  assert.deepEqual(merkleNodeHash(la, lb), await h(Uint8Array.of(1), la, lb));
});

Deno.test("merkleRoot() separates leaves from nodes when a leaf equals a node hash", () => {
  const [a, b] = testLeaves(2) as [Uint8Array, Uint8Array];
  const node = merkleNodeHash(merkleLeafHash(a), merkleLeafHash(b));
  assert.notDeepEqual(merkleRoot([node]), merkleRoot([a, b]));
});

Deno.test("merkleRoot() changes when any leaf changes or leaves swap", () => {
  const leaves = testLeaves(9);
  const root = bytesToHex(merkleRoot(leaves));
  for (let i = 0; i < leaves.length; i++) {
    const copy = leaves.map((l) => l.slice());
    const l = copy[i] as Uint8Array;
    l[31] = (l[31] as number) ^ 1;
    assert.notEqual(bytesToHex(merkleRoot(copy)), root);
  }
  const swapped = [leaves[1], leaves[0], ...leaves.slice(2)] as Uint8Array[];
  assert.notEqual(bytesToHex(merkleRoot(swapped)), root);
});

Deno.test("merkleRoot() throws RangeError when a leaf is not 32 bytes", () => {
  assert.throws(() => merkleRoot([new Uint8Array(31)]), RangeError);
  assert.throws(() => merkleLeafHash(new Uint8Array(33)), RangeError);
  assert.throws(() => merkleNodeHash(new Uint8Array(32), new Uint8Array(0)), RangeError);
});
