import assert from "node:assert/strict";
import { cubBlockReduceSum } from "../../../src/kernels/vllm/mod.ts";
import { F32_RN } from "../../../src/hardware/mod.ts";
import { f32Bits, f32Value } from "./_inputs.ts";

/**
 * An independent statement of CUB's warp-reductions tree: within a 32-lane warp, lane 0 ends with
 * the balanced pairwise sum of its valid lanes (left half + right half, the right half dropped
 * where it starts past the last valid lane); thread 0 then folds the warp sums left to right.
 */
function treeSum(values: Uint32Array): number {
  const pairwise = (lo: number, size: number, end: number): number => {
    if (size === 1) return values[lo]!;
    const half = size / 2;
    const left = pairwise(lo, half, end);
    return lo + half < end ? F32_RN.add(left, pairwise(lo + half, half, end)) : left;
  };
  let acc = 0;
  for (let w = 0; 32 * w < values.length; w++) {
    const s = pairwise(32 * w, 32, Math.min(values.length, 32 * w + 32));
    acc = w === 0 ? s : F32_RN.add(acc, s);
  }
  return acc;
}

function mixed(seed: number, n: number): Uint32Array {
  let s = seed;
  return Uint32Array.from({ length: n }, () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return f32Bits((s / 2 ** 32) * 2 ** ((s & 31) - 12)); // positive, 2^-12 .. 2^19
  });
}

Deno.test("`cubBlockReduceSum()` equals the pairwise-then-serial tree for every count of valid threads", () => {
  for (const n of [1, 2, 3, 5, 17, 31, 32, 33, 63, 100, 255, 256, 257, 320, 512, 999, 1023, 1024]) {
    const v = mixed(n, n);
    assert.equal(cubBlockReduceSum(v), treeSum(v), `num_valid ${n}`);
  }
});

Deno.test("`cubBlockReduceSum()` adds neighbouring lanes first, then the warp sums in warp order", () => {
  const big = 0x4b800000; // 2^24: adding 1 is a tie that rounds back to 2^24
  const one = 0x3f800000;
  // Lanes 0+1 first: (2^24 + 1) + 1 = 2^24; lanes 0 and 1 being ones: (1 + 1) + 2^24 = 2^24 + 2.
  assert.equal(cubBlockReduceSum(new Uint32Array([big, one, one])), big);
  assert.equal(cubBlockReduceSum(new Uint32Array([one, one, big])), 0x4b800001);
  // Warp sums folded serially: warp 0 = 2^24, warp 1 = 1 + 1 = 2 (its lanes pair first) -> 2^24 + 2.
  const v = new Uint32Array(64);
  v[0] = big;
  v[32] = one;
  v[33] = one;
  assert.equal(cubBlockReduceSum(v), 0x4b800001);
  // The same ones in warps 1 and 2 arrive one at a time: 2^24 + 1 + 1 = 2^24.
  const w = new Uint32Array(96);
  w[0] = big;
  w[32] = one;
  w[64] = one;
  assert.equal(cubBlockReduceSum(w), big);
});

Deno.test("`cubBlockReduceSum()` stays within its error bound of the float64 sum", () => {
  // Depth: 5 shuffle levels plus at most 31 serial adds, each a relative error of at most 2^-24
  // on positive values: |error| <= 36 * 2^-24 * sum (to first order).
  for (const n of [37, 256, 1024]) {
    const v = mixed(1000 + n, n);
    const exact = Array.from(v, f32Value).reduce((a, b) => a + b, 0);
    const got = f32Value(cubBlockReduceSum(v));
    assert.ok(Math.abs(got - exact) <= 36 * 2 ** -24 * exact, `n ${n}: ${got} vs ${exact}`);
  }
});

Deno.test("`cubBlockReduceSum()` propagates NaN and infinities as FP32 adds do", () => {
  const v = new Uint32Array(300).fill(0x3f800000);
  v[299] = 0x7f800000;
  assert.equal(cubBlockReduceSum(v), 0x7f800000);
  v[5] = 0xff800000; // +inf + -inf meet in the serial fold
  assert.equal(cubBlockReduceSum(v), 0x7fffffff);
  v.fill(0);
  v[7] = 0x7fc00001; // a NaN payload becomes the canonical NaN
  assert.equal(cubBlockReduceSum(v), 0x7fffffff);
});

Deno.test("`cubBlockReduceSum()` keeps zero signs and subnormals as FP32 adds do", () => {
  assert.equal(cubBlockReduceSum(new Uint32Array([0x80000000])), 0x80000000); // one -0 lane
  assert.equal(cubBlockReduceSum(new Uint32Array([0x80000000, 0x80000000])), 0x80000000);
  assert.equal(cubBlockReduceSum(new Uint32Array([0x80000000, 0])), 0); // -0 + +0 = +0
  assert.equal(cubBlockReduceSum(new Uint32Array([1, 1, 1])), 3); // no flush to zero
});

Deno.test("`cubBlockReduceSum()` refuses counts outside 1..BLOCK_THREADS and odd block sizes", () => {
  assert.throws(() => cubBlockReduceSum(new Uint32Array(0)), RangeError);
  assert.throws(() => cubBlockReduceSum(new Uint32Array(1025)), RangeError);
  assert.throws(() => cubBlockReduceSum(new Uint32Array(300), { blockThreads: 256 }), RangeError);
  assert.throws(() => cubBlockReduceSum(new Uint32Array(10), { blockThreads: 100 }), RangeError);
  const v = mixed(7, 256);
  assert.equal(cubBlockReduceSum(v, { blockThreads: 256 }), cubBlockReduceSum(v));
});
