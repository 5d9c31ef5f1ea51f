import assert from "node:assert/strict";
import fc from "fast-check";
import { sha256 } from "@noble/hashes/sha2.js";
import { counterStream, sampleIndices, uniformBelow } from "../../src/verify/sample_indices.ts";

const SEED = new Uint8Array(32).map((_, i) => i); // 00 01 02 ... 1f

/** Reference: the documented algorithm with WebCrypto SHA-256 and a dense array. */
async function referenceSample(seed: Uint8Array, n: number, k: number): Promise<number[]> {
  const words: bigint[] = [];
  let block = 0n;
  const word = async () => {
    if (words.length === 0) {
      const input = new Uint8Array(seed.length + 8);
      input.set(seed);
      new DataView(input.buffer).setBigUint64(seed.length, block++);
      const h = new DataView(await crypto.subtle.digest("SHA-256", input));
      for (let i = 0; i < 4; i++) words.push(h.getBigUint64(8 * i));
    }
    return words.shift() as bigint;
  };
  const a = Array.from({ length: n }, (_, i) => i);
  for (let j = 0; j < k; j++) {
    const m = BigInt(n - j);
    let r = 0;
    if (m > 1n) {
      const limit = 2n ** 64n - (2n ** 64n % m);
      let w = await word();
      while (w >= limit) w = await word();
      r = Number(w % m);
    }
    [a[j], a[j + r]] = [a[j + r] as number, a[j] as number];
  }
  return a.slice(0, k);
}

Deno.test("sampleIndices() matches pinned known answers checked against a dense reference", async () => {
  const pinned = [221, 68, 995, 327, 908, 508, 993, 163, 346, 963];
  assert.deepEqual(await referenceSample(SEED, 1000, 10), pinned);
  assert.deepEqual(sampleIndices(SEED, { population: 1000, k: 10 }).selected, pinned);
  // First step by hand: block 0 = SHA-256(seed || 00..00), first word w0, 1000 divides nothing
  // special: index = w0 mod 1000 unless w0 >= 2^64 - (2^64 mod 1000).
  const input = new Uint8Array(40);
  input.set(SEED);
  const w0 = new DataView(await crypto.subtle.digest("SHA-256", input)).getBigUint64(0);
  assert.ok(w0 < 2n ** 64n - (2n ** 64n % 1000n));
  assert.equal(Number(w0 % 1000n), 221);
  const full = [1, 5, 3, 8, 2, 4, 9, 7, 0, 6];
  assert.deepEqual(await referenceSample(SEED, 10, 10), full);
  assert.deepEqual(sampleIndices(SEED, { population: 10, k: 10 }).selected, full);
  assert.deepEqual(sampleIndices(SEED, { population: 2 ** 53 - 1, k: 3 }).selected, [
    6444238342098443,
    3344799473777324,
    5107804117874482,
  ]);
});

Deno.test("sampleIndices() agrees with the dense reference for random seeds and sizes", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ minLength: 1, maxLength: 40 }),
      fc.integer({ min: 1, max: 300 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      async (seed, n, frac) => {
        const k = Math.floor(frac * n);
        const got = sampleIndices(seed, { population: n, k });
        assert.deepEqual(got.selected, await referenceSample(seed, n, k));
      },
    ),
    { numRuns: 150, seed: 42 },
  );
});

Deno.test("sampleIndices() is deterministic, distinct, in range and prefix-stable", () => {
  const a = sampleIndices(SEED, { population: 5000, k: 400 });
  const b = sampleIndices(SEED.slice(), { population: 5000, k: 400 });
  assert.deepEqual(a, b);
  assert.equal(new Set(a.selected).size, 400);
  assert.ok(a.selected.every((x) => Number.isInteger(x) && x >= 0 && x < 5000));
  assert.deepEqual(a.sorted, [...a.selected].sort((x, y) => x - y));
  assert.deepEqual(
    sampleIndices(SEED, { population: 5000, k: 50 }).selected,
    a.selected.slice(0, 50),
  );
  const other = sampleIndices(Uint8Array.of(...SEED.subarray(1), 0), { population: 5000, k: 400 });
  assert.notDeepEqual(other.selected, a.selected);
});

Deno.test("sampleIndices() returns a permutation when k = N and nothing when k = 0", () => {
  const all = sampleIndices(SEED, { population: 257, k: 257 });
  assert.deepEqual(all.sorted, Array.from({ length: 257 }, (_, i) => i));
  assert.deepEqual(sampleIndices(SEED, { population: 0, k: 0 }), { selected: [], sorted: [] });
});

/** Pearson chi-square statistic of observed counts against a uniform expectation. */
function chiSquare(counts: number[]): number {
  const total = counts.reduce((s, c) => s + c, 0);
  const e = total / counts.length;
  return counts.reduce((s, c) => s + (c - e) ** 2 / e, 0);
}

Deno.test("sampleIndices() passes a chi-square uniformity smoke test with fixed seeds", () => {
  // 2000 fixed seeds, 3 of 10 each. Critical value for 9 degrees of freedom at p = 0.001: 27.88.
  const overall = new Array(10).fill(0);
  const first = new Array(10).fill(0);
  for (let t = 0; t < 2000; t++) {
    const seed = sha256(new TextEncoder().encode(`chi-square ${t}`));
    const { selected } = sampleIndices(seed, { population: 10, k: 3 });
    selected.forEach((x) => overall[x]++);
    first[selected[0] as number]++;
  }
  assert.ok(chiSquare(overall) < 27.88, `overall chi2 ${chiSquare(overall)}`);
  assert.ok(chiSquare(first) < 27.88, `first-pick chi2 ${chiSquare(first)}`);
  // Huge N: the top 4 bits of 4000 indices below 2^53 - 1 fall evenly in 16 buckets
  // (15 degrees of freedom, p = 0.001: 37.70).
  const buckets = new Array(16).fill(0);
  const big = sampleIndices(sha256(new Uint8Array([9])), { population: 2 ** 53 - 1, k: 4000 });
  big.selected.forEach((x) => buckets[Math.floor(x / 2 ** 49)]++);
  assert.ok(chiSquare(buckets) < 37.7, `big-N chi2 ${chiSquare(buckets)}`);
});

Deno.test("uniformBelow() rejects words at or above the largest multiple of m", () => {
  const words = [2n ** 64n - 1n, 2n ** 64n - 2n, 7n];
  const next = () => words.shift() as bigint;
  // m = 3: 2^64 mod 3 = 1, limit = 2^64 - 1, so 2^64 - 1 is rejected and 2^64 - 2 is accepted.
  assert.equal(uniformBelow(next, 3), Number((2n ** 64n - 2n) % 3n));
  assert.equal(uniformBelow(next, 3), 1);
  assert.equal(uniformBelow(() => 0n, 1), 0);
  assert.throws(() => uniformBelow(next, 0), RangeError);
  assert.throws(() => uniformBelow(next, 2 ** 53), RangeError);
});

Deno.test("counterStream() reads SHA-256(seed || u64be(i)) as big-endian words", () => {
  const next = counterStream(Uint8Array.of(0xaa));
  const b0 = new DataView(sha256(Uint8Array.of(0xaa, 0, 0, 0, 0, 0, 0, 0, 0)).buffer);
  const b1 = new DataView(sha256(Uint8Array.of(0xaa, 0, 0, 0, 0, 0, 0, 0, 1)).buffer);
  const want = [0, 8, 16, 24].map((o) => b0.getBigUint64(o)).concat(b1.getBigUint64(0));
  assert.deepEqual([next(), next(), next(), next(), next()], want);
});

Deno.test("sampleIndices() throws RangeError when k or N is out of range", () => {
  assert.throws(() => sampleIndices(SEED, { population: 5, k: 6 }), RangeError);
  assert.throws(() => sampleIndices(SEED, { population: 5, k: -1 }), RangeError);
  assert.throws(() => sampleIndices(SEED, { population: 5, k: 1.5 }), RangeError);
  assert.throws(() => sampleIndices(SEED, { population: 2 ** 53, k: 1 }), RangeError);
  assert.throws(() => sampleIndices(SEED, { population: -1, k: 0 }), RangeError);
  assert.throws(() => sampleIndices(new Uint8Array(0), { population: 5, k: 1 }), RangeError);
});
