/**
 * GEMM recipes against a literal per-element transcription of the spec's pseudocode
 * (`gemm.md` §2.1-§2.4) built from dotKWalk and the generic convert(), plus the spec's stated
 * partition tables.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { BF16, convert, FP32 } from "../../../src/numerics/mod.ts";
import { type Datapath, dotKWalk } from "../../../src/hardware/mod.ts";
import {
  type GemmRecipe,
  parseRecipe,
  referenceKWalker,
  runGemmRecipe,
  slicedStripes,
  splitKPartitions,
} from "../../../src/kernels/gemm/mod.ts";

const A100: Datapath = {
  family: "mma",
  input: BF16,
  output: FP32,
  k: 16,
  blockSize: 8,
  fracBits: 24,
  resultFormat: FP32,
  rounding: "rz",
  alignFloor: -132,
  chain: { kind: "contiguous" },
  accumulator: "early",
};
const H100: Datapath = { ...A100, blockSize: 16, fracBits: 25, alignFloor: -133 };

/** fl32(x + y) via exact BigInt-free reasoning: decode both to numbers (exact) and round once. */
function add32(x: number, y: number): number {
  const f = new Float32Array(2);
  const u = new Uint32Array(f.buffer);
  u[0] = x;
  u[1] = y;
  f[0] = f[0]! + f[1]!; // float64 sum rounded once to binary32: innocuous double rounding
  return u[0]!;
}
const bf = (x: number) => convert(FP32, BF16, x);
const up = (x: number) => convert(BF16, FP32, x);

function walk(
  dp: Datapath,
  a: Uint16Array,
  b: Uint16Array,
  k: number,
  i: number,
  j: number,
  ks: number[],
): number {
  return dotKWalk(dp, { a: ks.map((t) => a[i * k + t]!), b: ks.map((t) => b[j * k + t]!) });
}
const range = (s: number, e: number) => Array.from({ length: e - s }, (_, t) => s + t);

/**
 * Spec pseudocode, one output element at a time: the fp32 value the final epilogue rounds
 * (`acc`) and its bf16 rounding (`out`).
 */
function literalAcc(
  recipe: GemmRecipe,
  dp: Datapath,
  a: Uint16Array,
  b: Uint16Array,
  m: number,
  n: number,
  k: number,
): { acc: number[]; out: number[] } {
  const acc: number[] = [];
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      const E = (ks: number[]) => walk(dp, a, b, k, i, j, ks);
      // §2.3: one CTA over [s, e) with tileK / warpK warp partitions summed in partition order.
      const cta = ([s, e]: readonly [number, number], tileK: number, warpK: number) => {
        let sum = 0;
        for (let p = 0; p < tileK / warpK; p++) {
          const ks = slicedStripes([s, e], { tileK, warpK, p }).flatMap(([x, y]) => range(x, y));
          sum = p === 0 ? E(ks) : add32(sum, E(ks));
        }
        return sum;
      };
      switch (recipe.family) {
        case "kwalk": {
          // A warp K below the threadblock K is CUTLASS's kPartitionsK = tbK / warpK (§2.3, one slice).
          const [tbK, warpK] = [recipe.threadblock[2], recipe.warp[2]];
          acc.push(warpK === tbK ? E(range(0, k)) : cta([0, k], tbK, warpK));
          break;
        }
        case "single_walk":
          acc.push(E(range(0, k)));
          break;
        case "serial_split_k": {
          let fin = 0;
          splitKPartitions(k, recipe).forEach(([s, e], idx) => {
            fin = idx === 0 ? E(range(s, e)) : add32(E(range(s, e)), up(bf(fin)));
          });
          acc.push(fin);
          break;
        }
        case "sliced_k": {
          let fin = 0;
          splitKPartitions(k, recipe).forEach((slice, idx) => {
            const c = cta(slice, recipe.tileK, recipe.warpK);
            fin = idx === 0 ? c : add32(c, up(bf(fin)));
          });
          acc.push(fin);
          break;
        }
        case "parallel_split_k": {
          let r = 0;
          for (const [s, e] of splitKPartitions(k, recipe)) {
            const w = E(range(s, e));
            r = add32(r, recipe.workspace === "output" ? up(bf(w)) : w);
          }
          acc.push(r);
          break;
        }
      }
    }
  }
  return { acc, out: acc.map(bf) };
}

function randomBf16(seed: number, count: number, spread: number): Uint16Array {
  let s = seed >>> 0;
  const out = new Uint16Array(count);
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const exp = 127 + ((s >>> 8) % (2 * spread + 1)) - spread;
    out[i] = ((s >>> 31) << 15) | (exp << 7) | ((s >>> 16) & 0x7f);
  }
  return out;
}

const RECIPES: GemmRecipe[] = [
  parseRecipe({
    family: "kwalk",
    threadblock: [128, 128, 64],
    warp: [64, 64, 64],
    instruction: [16, 8, 16],
  }),
  parseRecipe({ family: "single_walk" }),
  parseRecipe({ family: "serial_split_k", splitK: 3, tileK: 64 }),
  parseRecipe({ family: "sliced_k", splitK: 2, tileK: 64, warpK: 32 }),
  parseRecipe({ family: "parallel_split_k", splitK: 3, tileK: 64, workspace: "output" }),
  parseRecipe({ family: "parallel_split_k", splitK: 2, tileK: 64, workspace: "fp32" }),
];

for (const recipe of RECIPES) {
  for (const [name, dp] of [["A100", A100], ["H100", H100]] as const) {
    Deno.test(`runGemmRecipe() follows the spec pseudocode for ${recipe.family} on ${name}`, async () => {
      const [m, n, k] = [3, 4, 200];
      const a = randomBf16(k + n, m * k, 6);
      const b = randomBf16(k * 7 + m, n * k, 6);
      const got = await runGemmRecipe(recipe, { dp, walker: referenceKWalker, a, b, m, n, k });
      assert.deepEqual(Array.from(got.out), literalAcc(recipe, dp, a, b, m, n, k).out);
    });
  }
}

/** Recipes whose fp32 order (partition folds, warp sums, warp slices) the rounded output hides. */
const ORDER_RECIPES: GemmRecipe[] = [
  parseRecipe({ family: "parallel_split_k", splitK: 3, tileK: 64, workspace: "fp32" }),
  parseRecipe({ family: "parallel_split_k", splitK: 4, tileK: 64, workspace: "output" }),
  parseRecipe({ family: "sliced_k", splitK: 1, tileK: 64, warpK: 16 }),
  parseRecipe({ family: "sliced_k", splitK: 2, tileK: 64, warpK: 32 }),
  parseRecipe({
    family: "kwalk",
    threadblock: [128, 128, 64],
    warp: [64, 64, 32],
    instruction: [16, 8, 16],
  }),
  parseRecipe({
    family: "kwalk",
    threadblock: [128, 128, 64],
    warp: [64, 64, 16],
    instruction: [16, 8, 16],
  }),
];

for (const recipe of ORDER_RECIPES) {
  const label = recipe.family === "kwalk"
    ? `kwalk warpK ${recipe.warp[2]} < tbK ${recipe.threadblock[2]}`
    : recipe.family === "sliced_k"
    ? `sliced_k split ${recipe.splitK}, ${recipe.tileK / recipe.warpK} warps`
    : recipe.family === "parallel_split_k"
    ? `parallel_split_k split ${recipe.splitK}, ${recipe.workspace} workspace`
    : recipe.family;
  Deno.test(`runGemmRecipe() fp32 acc follows the spec order for ${label}`, async () => {
    const [m, n, k] = [8, 16, 512];
    const a = randomBf16(1, m * k, 6);
    const b = randomBf16(2, n * k, 6);
    for (const dp of [A100, H100]) {
      const got = await runGemmRecipe(recipe, { dp, walker: referenceKWalker, a, b, m, n, k });
      const want = literalAcc(recipe, dp, a, b, m, n, k);
      assert.deepEqual(Array.from(got.acc), want.acc);
      assert.deepEqual(Array.from(got.out), want.out);
    }
  });
}

Deno.test("recipes differ from each other on data where partition rounding matters", async () => {
  const [m, n, k] = [4, 8, 256];
  const a = randomBf16(1, m * k, 3);
  const b = randomBf16(2, n * k, 3);
  const outs = await Promise.all(
    RECIPES.slice(1).map((r) =>
      runGemmRecipe(r, { dp: A100, walker: referenceKWalker, a, b, m, n, k }).then((x) =>
        Array.from(x.out).join()
      )
    ),
  );
  assert.ok(new Set(outs).size >= 3, "split recipes must not all coincide with the single walk");
});

Deno.test("splitKPartitions() reproduces the spec's partition table for K = 9728 and 2560", () => {
  const t = (k: number, s: number) =>
    splitKPartitions(k, { splitK: s, tileK: 64 }).map((p) => p.join("-")).join(" ");
  assert.equal(t(9728, 2), "0-4864 4864-9728");
  assert.equal(t(9728, 3), "0-3264 3264-6528 6528-9728");
  assert.equal(t(9728, 4), "0-2432 2432-4864 4864-7296 7296-9728");
  assert.equal(t(9728, 5), "0-1984 1984-3968 3968-5952 5952-7936 7936-9728");
  assert.equal(t(2560, 2), "0-1280 1280-2560");
  assert.equal(t(2560, 3), "0-896 896-1792 1792-2560");
});

Deno.test("slicedStripes() gives warp 0 the even and warp 1 the odd 32-wide stripes", () => {
  assert.deepEqual(slicedStripes([64, 200], { tileK: 64, warpK: 32, p: 0 }), [
    [64, 96],
    [128, 160],
    [192, 200],
  ]);
  assert.deepEqual(slicedStripes([64, 200], { tileK: 64, warpK: 32, p: 1 }), [[96, 128], [
    160,
    192,
  ]]);
});

Deno.test("splitKPartitions() covers K exactly once for any split (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 20000 }),
      fc.integer({ min: 1, max: 16 }),
      fc.integer({ min: 1, max: 128 }),
      (k, s, t) => {
        const parts = splitKPartitions(k, { splitK: s, tileK: t });
        assert.equal(parts.length, s);
        let next = 0;
        for (const [a, e] of parts) {
          assert.equal(a, Math.min(next, k));
          next = e;
        }
        assert.equal(parts.at(-1)![1], k);
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("parseRecipe() refuses malformed descriptors naming the field", () => {
  assert.throws(() => parseRecipe({ family: "serial_split_k", splitK: 0, tileK: 64 }), /splitK/);
  assert.throws(
    () => parseRecipe({ family: "sliced_k", splitK: 1, tileK: 64, warpK: 48 }),
    /warpK/,
  );
  assert.throws(() => parseRecipe({ family: "magic" }), /family/);
  assert.throws(() => parseRecipe({ family: "single_walk", extra: 1 }), /extra': unknown field/);
});
