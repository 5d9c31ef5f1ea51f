/**
 * Long run of the engine fuzzer (`tests/engine/_engine_fuzz.ts`): the wasm GEMM kernel against
 * `kWalkReference` on every engine-supported bf16/fp16 -> fp32 datapath of every GPU profile, on
 * one thread and on a 2-worker pool that splits every job (`deno task test:slow`; record runs in
 * `FULL_SWEEPS.md`). One test per seed and runner; each prints its cases, products and time, and
 * fails naming the first mismatching cases (seed and index: `fuzzCase` rebuilds a case alone).
 *
 * Environment (defaults: about 2 minutes a seed, 8-10 minutes in all on 2 cores):
 * - `BITAUDIT_FUZZ_SEEDS`: comma-separated seeds (default `1,2,3,4`);
 * - `BITAUDIT_FUZZ_CASES`: cases per seed on one thread (default 120000: about 1.6e8 products,
 *   75 s);
 * - `BITAUDIT_FUZZ_POOL_CASES`: cases per seed on the pool, with pool-sized shapes (default a
 *   tenth of `BITAUDIT_FUZZ_CASES`: about 1.3e8 products, 50 s);
 * - `BITAUDIT_FUZZ_WASM`: a kernel module to test instead of `tables/wasm/gemm_engine.wasm` (a
 *   rebuilt or deliberately broken one; the sample test always uses the committed module).
 */
import assert from "node:assert/strict";
import {
  createGemmEngine,
  createGemmPool,
  type GemmEngine,
  type GemmPool,
} from "../../../src/engine/mod.ts";
import {
  checkCase,
  describeMismatch,
  fuzzCases,
  fuzzDatapaths,
  type FuzzMismatch,
  type FuzzOptions,
} from "../../engine/_engine_fuzz.ts";
import { WASM_URL } from "../../engine/_engine_fixture.ts";

function envCount(name: string, fallback: number): number {
  const raw = Deno.env.get(name);
  if (raw === undefined || raw === "") return fallback;
  const x = Number(raw);
  if (!Number.isSafeInteger(x) || x < 0) throw new RangeError(`${name}: not a count: ${raw}`);
  return x;
}

const SEEDS = (Deno.env.get("BITAUDIT_FUZZ_SEEDS") ?? "1,2,3,4").split(",").map((s) => {
  const x = Number(s.trim());
  if (!Number.isSafeInteger(x)) throw new RangeError(`BITAUDIT_FUZZ_SEEDS: not a seed: ${s}`);
  return x;
});
const CASES = envCount("BITAUDIT_FUZZ_CASES", 120_000);
const POOL_CASES = envCount("BITAUDIT_FUZZ_POOL_CASES", Math.ceil(CASES / 10));
const WASM = Deno.env.get("BITAUDIT_FUZZ_WASM") ?? WASM_URL;

const engine = createGemmEngine(await Deno.readFile(WASM));
const datapaths = await fuzzDatapaths();

async function run(
  runner: GemmEngine | GemmPool,
  name: string,
  seed: number,
  count: number,
  options: FuzzOptions,
): Promise<void> {
  const t0 = performance.now();
  const first: FuzzMismatch[] = [];
  let differing = 0;
  let products = 0;
  for (const c of fuzzCases(datapaths, seed, count, options)) {
    products += c.ops.m * c.ops.n * c.ops.k;
    const x = await checkCase(runner, c);
    if (x === null) continue;
    differing++;
    if (first.length < 5) first.push(x);
  }
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(
    `engine fuzz ${name} seed=${seed}: ${count} cases, ${products} products, ` +
      `${differing} mismatching cases, ${seconds} s`,
  );
  assert.equal(
    differing,
    0,
    `${differing} of ${count} cases differ from kWalkReference; first:\n` +
      first.map(describeMismatch).join("\n"),
  );
}

for (const seed of SEEDS) {
  Deno.test(`engine fuzz, seed ${seed}: one thread = kWalkReference`, async () => {
    await run(engine, "one thread", seed, CASES, {});
  });

  Deno.test(`engine fuzz, seed ${seed}: 2-worker pool = kWalkReference`, async () => {
    const pool = createGemmPool(engine, { workers: 2, inlineBelow: 0, rowBlockBytes: 1 });
    try {
      await run(pool, "2-worker pool", seed, POOL_CASES, { poolShapes: true });
    } finally {
      pool.close();
    }
  });
}
