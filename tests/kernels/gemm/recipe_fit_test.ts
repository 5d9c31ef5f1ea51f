/**
 * Red-team finding F3: a recipe's partition counts were never checked against its GEMM's K, so a
 * descriptor such as `sliced_k {splitK 1024, tileK 64, warpK 1}` walked a 128 x 128 x 16 output
 * 65,536 times (10 s instead of 0.07 s; tileK 4096 about 10 min) for the bits of one walk.
 * `recipeFit` is the check, asked where a recipe meets its K: here its rule, that every bundled
 * recipe and catalog entry passes it, and that the kernels' entry points refuse before walking.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { BF16, FP32 } from "../../../src/numerics/mod.ts";
import type { Datapath } from "../../../src/hardware/mod.ts";
import {
  type GemmRecipe,
  type KWalker,
  lookupRecipe,
  MAX_CTA_WARPS,
  maxRecipeWalks,
  parseDispatchCatalog,
  parseRecipe,
  recipeFit,
  recipeWalks,
  referenceKWalker,
  runGemmRecipe,
  slicedStripes,
  splitKPartitions,
} from "../../../src/kernels/gemm/mod.ts";

const ROOT = new URL("../../../", import.meta.url);
const DP: Datapath = {
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

/** The red team's descriptors (finding F3), each on a K = 16 GEMM. */
const HOSTILE: GemmRecipe[] = [
  { family: "sliced_k", splitK: 1024, tileK: 64, warpK: 1 },
  { family: "sliced_k", splitK: 1024, tileK: 4096, warpK: 128 },
  { family: "sliced_k", splitK: 1024, tileK: 64, warpK: 2 },
  { family: "serial_split_k", splitK: 1024, tileK: 4096 },
  { family: "parallel_split_k", splitK: 1024, tileK: 64, workspace: "fp32" },
  {
    family: "kwalk",
    threadblock: [128, 128, 4096],
    warp: [128, 128, 128],
    instruction: [16, 8, 16],
  },
];

/** Walks with at least one K element, counted the long way: the segments `runGemmRecipe` walks. */
function fullWalksByEnumeration(recipe: GemmRecipe, k: number): number {
  const full = (segments: readonly (readonly [number, number])[]) =>
    segments.some(([s, e]) => s < e) ? 1 : 0;
  const sliced = (slice: readonly [number, number], tileK: number, warpK: number) => {
    let n = 0;
    for (let p = 0; p < tileK / warpK; p++) {
      n += full(slicedStripes([slice[0], slice[1]], { tileK, warpK, p }));
    }
    return n;
  };
  switch (recipe.family) {
    case "single_walk":
      return full([[0, k]]);
    case "kwalk":
      return recipe.threadblock[2] === recipe.warp[2]
        ? full([[0, k]])
        : sliced([0, k], recipe.threadblock[2], recipe.warp[2]);
    case "serial_split_k":
    case "parallel_split_k":
      return splitKPartitions(k, recipe).reduce((n, p) => n + full([p]), 0);
    case "sliced_k":
      return splitKPartitions(k, recipe)
        .reduce((n, p) => n + sliced(p, recipe.tileK, recipe.warpK), 0);
  }
}

Deno.test("recipeWalks() counts one M x N walk per K partition and warp slice", () => {
  assert.equal(recipeWalks({ family: "single_walk" }), 1);
  assert.equal(recipeWalks({ family: "serial_split_k", splitK: 3, tileK: 64 }), 3);
  assert.equal(
    recipeWalks({ family: "parallel_split_k", splitK: 5, tileK: 64, workspace: "output" }),
    5,
  );
  assert.equal(recipeWalks({ family: "sliced_k", splitK: 1024, tileK: 64, warpK: 1 }), 65536);
  const kwalk = (warpK: number): GemmRecipe => ({
    family: "kwalk",
    threadblock: [128, 128, 64],
    warp: [64, 64, warpK],
    instruction: [16, 8, 16],
  });
  assert.equal(recipeWalks(kwalk(64)), 1);
  assert.equal(recipeWalks(kwalk(16)), 4);
});

Deno.test("maxRecipeWalks() is max(16, ceil(K / 64))", () => {
  assert.deepEqual(
    [0, 1, 16, 1024, 1025, 2560, 9728].map(maxRecipeWalks),
    [16, 16, 16, 16, 17, 40, 152],
  );
});

Deno.test("recipeFit() refuses the red team's descriptors on a K = 16 GEMM, with the reason", () => {
  for (const recipe of HOSTILE) {
    const r = recipeFit(recipe, 16);
    assert.equal(r.fits, false, JSON.stringify(recipe));
    if (r.fits) continue;
    assert.match(r.reason, /^recipe \{.*\} (needs \d+ warps in one CTA|takes \d+ M x N walks)/);
    assert.ok(!r.reason.includes("\n"));
  }
  const sliced = recipeFit(HOSTILE[0]!, 16);
  assert.ok(!sliced.fits && /needs 64 warps in one CTA, more than the 32/.test(sliced.reason));
  // Partition 0 holds K = 16 (8 warp stripes of 2), the other 1023 partitions nothing.
  const r = recipeFit(HOSTILE[2]!, 16);
  assert.ok(!r.fits);
  assert.match(r.reason, /takes 32768 M x N walks for K = 16 \(32760 of them over no K element\)/);
  assert.match(r.reason, /emulates at most 16, max\(16, ceil\(K \/ 64\)\)$/);
  const serial = recipeFit(HOSTILE[3]!, 16);
  assert.ok(!serial.fits && /1024 M x N walks .*\(1023 of them/.test(serial.reason));
});

Deno.test("recipeFit() admits up to maxRecipeWalks(K) walks, empty ones included", () => {
  // A split-K with an empty trailing partition (the serial kernel launches it: a +0 partial).
  const r = recipeFit({ family: "serial_split_k", splitK: 2, tileK: 64 }, 16);
  assert.deepEqual(r, { fits: true, walks: 2 });
  for (const k of [16, 1024, 4096, 9728]) {
    const most = maxRecipeWalks(k);
    const at = { family: "serial_split_k", splitK: most, tileK: 64 } as const;
    assert.equal(recipeFit(at, k).fits, true, `K = ${k}`);
    assert.equal(recipeFit({ ...at, splitK: most + 1 }, k).fits, false, `K = ${k}`);
  }
  const warps = (n: number): GemmRecipe => ({
    family: "sliced_k",
    splitK: 1,
    tileK: 64 * n,
    warpK: 64,
  });
  assert.equal(recipeFit(warps(MAX_CTA_WARPS), 4096).fits, true);
  assert.equal(recipeFit(warps(MAX_CTA_WARPS * 2), 1 << 20).fits, false);
  assert.throws(() => recipeFit({ family: "single_walk" }, -1), RangeError);
  assert.throws(() => recipeFit({ family: "single_walk" }, 1.5), RangeError);
});

Deno.test("recipeFit() counts the empty walks of a refused recipe as runGemmRecipe's segments do (property)", () => {
  const recipe = fc.oneof(
    fc.record({
      family: fc.constantFrom("serial_split_k" as const, "parallel_split_k" as const),
      splitK: fc.integer({ min: 1, max: 1024 }),
      tileK: fc.integer({ min: 1, max: 4096 }),
    }).map((r) => ({ ...r, workspace: "fp32" as const }) as GemmRecipe),
    fc.record({
      splitK: fc.integer({ min: 1, max: 256 }),
      warpK: fc.integer({ min: 1, max: 64 }),
      warps: fc.integer({ min: 1, max: 32 }),
    }).map((r): GemmRecipe => ({
      family: "sliced_k",
      splitK: r.splitK,
      tileK: r.warpK * r.warps,
      warpK: r.warpK,
    })),
    fc.record({ warpK: fc.integer({ min: 1, max: 128 }), warps: fc.integer({ min: 2, max: 32 }) })
      .map((r): GemmRecipe => ({
        family: "kwalk",
        threadblock: [16, 8, r.warpK * r.warps],
        warp: [16, 8, r.warpK],
        instruction: [16, 8, 1],
      })),
  );
  fc.assert(
    fc.property(recipe, fc.integer({ min: 0, max: 3000 }), (r, k) => {
      const fit = recipeFit(r, k);
      const walks = recipeWalks(r);
      assert.equal(fit.fits, walks <= maxRecipeWalks(k));
      if (fit.fits) return;
      const empty = walks - fullWalksByEnumeration(r, k);
      const said = /\((\d+) of them over no K element\)/.exec(fit.reason)?.[1];
      assert.equal(said === undefined ? 0 : Number(said), empty, fit.reason);
    }),
    { numRuns: 300 },
  );
});

Deno.test("every bundled recipe and every catalog entry fits K (their walks are unchanged)", async () => {
  for await (const f of Deno.readDir(new URL("profiles/recipes/", ROOT))) {
    const json = JSON.parse(await Deno.readTextFile(new URL(`profiles/recipes/${f.name}`, ROOT)));
    const { name: _, ...descriptor } = json;
    const recipe = parseRecipe(descriptor);
    for (const k of [1, 16, 32, 128, 256, 2560, 9728]) {
      assert.deepEqual(recipeFit(recipe, k), { fits: true, walks: recipeWalks(recipe) }, f.name);
    }
  }
  let entries = 0;
  for await (const f of Deno.readDir(new URL("tables/catalogs/", ROOT))) {
    if (!f.name.endsWith(".json")) continue;
    const c = parseDispatchCatalog(
      JSON.parse(await Deno.readTextFile(new URL(`tables/catalogs/${f.name}`, ROOT))),
    );
    for (const e of c.entries) {
      entries++;
      assert.ok(recipeFit(e.recipe, e.k).fits, `${f.name}: ${JSON.stringify(e.recipe)}`);
      if (e.verified === false) continue;
      const q = { m: e.mMin, n: e.n, k: e.k, dtype: c.dtypes.a, out: c.dtypes.out, bias: e.bias };
      assert.ok(lookupRecipe(c, { ...q, layout: c.layout }).covered, f.name);
    }
  }
  assert.ok(entries > 100);
});

Deno.test("runGemmRecipe() refuses a recipe that does not fit K before any walk", async () => {
  let walks = 0;
  const counting: KWalker = (dp, job) => (walks++, referenceKWalker(dp, job));
  const a = new Uint16Array(128 * 16).fill(0x3f80);
  const problem = { dp: DP, walker: counting, a, b: a, m: 128, n: 128, k: 16 };
  for (const recipe of HOSTILE) {
    await assert.rejects(
      runGemmRecipe(recipe, problem),
      (e) => e instanceof RangeError && /^Cannot run GEMM: recipe /.test(e.message),
    );
  }
  assert.equal(walks, 0);
  // A split with an empty trailing partition still runs (a +0 partial, as the kernel adds).
  const r = await runGemmRecipe({ family: "serial_split_k", splitK: 2, tileK: 64 }, problem);
  assert.equal(walks, 2);
  assert.equal(r.out[0], 0x4180); // 16.0
});

Deno.test("lookupRecipe() leaves a shape whose K the entry's recipe does not fit uncovered", () => {
  const catalog = parseDispatchCatalog({
    schema: "bitaudit.dispatch-catalog/v1",
    id: "hostile",
    gpu: "a100",
    library: { name: "cublas", version: "12" },
    dtypes: { a: "bf16", b: "bf16", out: "bf16", compute: "fp32" },
    layout: "tn",
    sources: [],
    entries: [{
      n: 128,
      k: 16,
      mMin: 1,
      mMax: 128,
      recipe: HOSTILE[2],
      kernel: null,
      verified: null,
      evidence: "a descriptor nothing ties to its K",
    }],
  });
  const q = { m: 128, n: 128, k: 16, dtype: "bf16", out: "bf16", layout: "tn" } as const;
  const hit = lookupRecipe(catalog, q);
  assert.ok(!hit.covered && /^M=128 N=128 K=16: recipe .* 32768 M x N walks/.test(hit.reason));
});
