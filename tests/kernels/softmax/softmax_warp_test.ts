import assert from "node:assert/strict";
import { createSfu, divF32, F32_RN } from "../../../src/hardware/mod.ts";
import { cudaExpf, softmaxWarp } from "../../../src/kernels/mod.ts";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const ieee = createSfu({ mode: "ieee" });
const table = teslaSfu();
const logits = (n: number, seed: string) =>
  Uint32Array.from(synthBf16(seed, { label: "x", count: n, span: 5 }), (b) => (b << 16) >>> 0);

Deno.test("softmaxWarp() is within a few fp32 ulps of the real softmax (ieee SFU)", () => {
  for (const dim of [1, 3, 32, 33, 100, 128, 1000, 1024]) {
    const x = logits(dim * 3, `d${dim}`);
    const y = softmaxWarp(x, { dim, mufu: ieee });
    for (let r = 0; r < 3; r++) {
      const row = Array.from(x.subarray(r * dim, (r + 1) * dim), f32FromBits);
      const m = Math.max(...row);
      const z = row.reduce((s, v) => s + Math.exp(v - m), 0);
      row.forEach((v, i) => {
        const want = Math.exp(v - m) / z;
        const got = f32FromBits(y[r * dim + i]!);
        assert.ok(
          Math.abs(got - want) <= want * 2 ** -19 + 2 ** -140,
          `dim ${dim} row ${r} i ${i}: ${got} vs ${want}`,
        );
      });
    }
  }
});

Deno.test("softmaxWarp() sums per lane, then by xor butterfly: not a left-to-right sum", () => {
  let differs = 0;
  for (let trial = 0; trial < 40; trial++) {
    const dim = 96;
    const x = logits(dim, `order${trial}`);
    const y = softmaxWarp(x, { dim, mufu: table });
    const m = Math.max(...Array.from(x, f32FromBits));
    const e = Array.from(x, (v) => cudaExpf(bitsFromF32(Math.fround(f32FromBits(v) - m)), table));
    const seq = e.reduce((s, v) => F32_RN.add(s, v), 0);
    if (e.some((v, i) => divF32(v, seq) !== y[i])) differs++;
  }
  assert.ok(differs > 0, "the kernel's summation tree must be observable");
});

Deno.test("softmaxWarp() gives 0 for masked -inf logits and NaN for a fully masked row", () => {
  const ninf = 0xff800000;
  const y = softmaxWarp(new Uint32Array([0x3f800000, ninf, 0x3f800000, ninf, ninf, ninf]), {
    dim: 3,
    mufu: table,
  });
  assert.equal(y[1], 0);
  assert.equal(y[0], y[2]);
  assert.equal(y[3], 0x7fffffff);
});

Deno.test("softmaxWarp() refuses rows longer than the version's warp-kernel limit", () => {
  assert.throws(() => softmaxWarp(new Uint32Array(1025), { dim: 1025, mufu: ieee }), RangeError);
  assert.equal(
    softmaxWarp(new Uint32Array(2048), { dim: 2048, mufu: ieee, maxDim: 2048 }).length,
    2048,
  );
});

Deno.test("softmaxWarp() sums each lane's elements in index order, then halves the 32 lane sums offset 16 first", () => {
  // An independent statement of PyTorch's reduction (spec stack_pytorch_hf.md §2.5;
  // PersistentSoftmax.cuh `softmax_warp_forward`: `sum += elements[it]` for it = 0..ITER-1, then
  // `warp_reduce` with `WARP_SHFL_XOR(sum, offset)` for offset = 16, 8, 4, 2, 1): lane l adds
  // x[l], x[l + 32], x[l + 64], ... from +0; lane 0's xor butterfly then equals folding the 32
  // lane sums in halves, t_j = s_j + s_(j+16), then t_j + t_(j+8), ..., down to one value.
  const add = (a: number, b: number) => F32_RN.add(a, b);
  const fold = (v: number[]) => {
    for (let half = v.length / 2; half >= 1; half /= 2) {
      v = v.slice(0, half).map((s, j) => add(s, v[j + half]!));
    }
    return v[0]!;
  };
  let [backwardsDiffers, offsetOneFirstDiffers] = [0, 0];
  for (const dim of [64, 100, 200, 512, 1000, 1024]) {
    const iter = 2 ** Math.ceil(Math.log2(dim)) / 32; // P2 / WARP
    for (let r = 0; r < 8; r++) {
      const x = logits(dim, `tree${dim}/${r}`);
      const m = Math.max(...Array.from(x, f32FromBits));
      const e = Array.from(x, (v) => cudaExpf(bitsFromF32(Math.fround(f32FromBits(v) - m)), table));
      const lane = (l: number, order: number[]) =>
        order.reduce((s, it) => l + 32 * it < dim ? add(s, e[l + 32 * it]!) : s, 0);
      const its = Array.from({ length: iter }, (_, it) => it);
      const lanes = Array.from({ length: 32 }, (_, l) => lane(l, its));
      const sum = fold(lanes);
      const y = softmaxWarp(x, { dim, mufu: table });
      e.forEach((v, i) => assert.equal(y[i], divF32(v, sum), `dim ${dim} row ${r} i ${i}`));
      // The same sums in another order: the lanes backwards, or the butterfly offset 1 first.
      const backwards = fold(Array.from({ length: 32 }, (_, l) => lane(l, [...its].reverse())));
      const rev5 = (l: number) =>
        parseInt(l.toString(2).padStart(5, "0").split("").reverse().join(""), 2);
      const bitReversed = fold(Array.from({ length: 32 }, (_, l) => lanes[rev5(l)]!));
      if (backwards !== sum) backwardsDiffers++;
      if (bitReversed !== sum) offsetOneFirstDiffers++;
    }
  }
  // The rows are ones where the order shows: a good share of them sum differently either way.
  assert.ok(
    backwardsDiffers >= 10,
    `rows whose lanes summed backwards differ: ${backwardsDiffers}`,
  );
  assert.ok(
    offsetOneFirstDiffers >= 10,
    `rows whose offset-1-first sum differs: ${offsetOneFirstDiffers}`,
  );
});
