/**
 * Every recipe gives the same bits through the wasm engine (single thread and worker pool) as
 * through the plain reference walker, on random and adversarial data, for A100 and H100.
 */
import assert from "node:assert/strict";
import { createGemmEngine, createGemmPool } from "../../../src/engine/mod.ts";
import { findDatapath, parseGpuProfile } from "../../../src/hardware/mod.ts";
import { gemm, type KWalker, parseRecipe, referenceKWalker } from "../../../src/kernels/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";

const ROOT = new URL("../../../", import.meta.url);
const engine = createGemmEngine(await Deno.readFile(new URL("tables/wasm/gemm_engine.wasm", ROOT)));
const wasmWalker: KWalker = (dp, job) => Promise.resolve(engine.kWalk(dp, job));
const RECIPES = [
  { family: "kwalk", threadblock: [128, 128, 64], warp: [64, 64, 32], instruction: [16, 8, 16] },
  { family: "single_walk" },
  { family: "serial_split_k", splitK: 3, tileK: 64 },
  { family: "sliced_k", splitK: 2, tileK: 64, warpK: 32 },
  { family: "parallel_split_k", splitK: 4, tileK: 32, workspace: "output" },
  { family: "parallel_split_k", splitK: 2, tileK: 64, workspace: "fp32" },
].map((r) => parseRecipe(r));

function adversarial(count: number, seed: number): Uint16Array {
  const specials = [0x0000, 0x8000, 0x0001, 0x8001, 0x7f7f, 0xff7f, 0x0080, 0x3fe0, 0x3f80, 0xbf80];
  const x = synthBf16(`adv${seed}`, { label: "x", count, span: 40 });
  for (let i = 0; i < count; i += 7) x[i] = specials[(i / 7 + seed) % specials.length]!;
  return x;
}

for (const id of ["a100", "h100-sxm"]) {
  Deno.test(`gemm() gives identical bits through the wasm engine and the reference for every recipe on ${id}`, async () => {
    const profile = parseGpuProfile(
      JSON.parse(await Deno.readTextFile(new URL(`profiles/gpu/${id}.json`, ROOT))),
    );
    const datapath = findDatapath(profile, { input: "bf16", output: "fp32" })!;
    const pool = createGemmPool(engine, { workers: 2 });
    try {
      for (const [m, n, k, data] of [[3, 5, 200, "random"], [2, 7, 131, "adversarial"]] as const) {
        const x = data === "random"
          ? synthBf16("r", { label: "x", count: m * k })
          : adversarial(m * k, 1);
        const w = data === "random"
          ? synthBf16("r", { label: "w", count: n * k })
          : adversarial(n * k, 2);
        for (const recipe of RECIPES) {
          const base = { datapath, recipe, m, n, k };
          const ref = await gemm(x, w, { ...base, walker: referenceKWalker });
          const fast = await gemm(x, w, { ...base, walker: wasmWalker });
          const pooled = await gemm(x, w, { ...base, walker: (dp, job) => pool.kWalk(dp, job) });
          assert.deepEqual(fast.acc, ref.acc, `${recipe.family} ${data} acc`);
          assert.deepEqual(fast.out, ref.out, `${recipe.family} ${data} out`);
          assert.deepEqual(pooled.out, ref.out, `${recipe.family} ${data} pooled`);
        }
      }
    } finally {
      pool.close();
    }
  });
}
