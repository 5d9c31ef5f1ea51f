/**
 * CI sample of the engine fuzzer (`_engine_fuzz.ts`): a fixed seed and a fixed number of cases,
 * cycling through one datapath of each kernel parameter set of the GPU profiles, on one thread
 * and on a 2-worker pool that splits every job (about 15 s on 2 cores). Each test checks that it
 * covered every parameter set in the mixed and saturating modes, and every bf16 one in the
 * tiny-bound mode. The long run is `tests/slow/engine/engine_fuzz_test.ts`.
 */
import assert from "node:assert/strict";
import { createGemmPool, type GemmEngine, type GemmPool } from "../../src/engine/mod.ts";
import {
  checkCase,
  describeMismatch,
  fuzzCases,
  fuzzDatapaths,
  type FuzzMismatch,
  type FuzzMode,
  type FuzzOptions,
  parameterKey,
} from "./_engine_fuzz.ts";
import { loadEngine } from "./_engine_fixture.ts";

/**
 * Fixed seed: a failure names its case (seed, index), which `fuzzCase` rebuilds alone (the pool's
 * cases differ from the one-thread ones: their shapes are drawn differently).
 */
const SEED = 2026;
const ENGINE_CASES = 12_000;
const POOL_CASES = 1_500;
/** Cases each parameter set must get in each mode it applies to. */
const MIN_PER_MODE = 5;

const engine = await loadEngine();
const datapaths = await fuzzDatapaths({ distinct: true });

async function sample(
  runner: GemmEngine | GemmPool,
  seed: number,
  count: number,
  options: FuzzOptions,
): Promise<void> {
  const mismatches: FuzzMismatch[] = [];
  let differing = 0;
  const seen = new Map<string, number>(); // "key mode" -> cases
  for (const c of fuzzCases(datapaths, seed, count, options)) {
    const key = `${parameterKey(c.dp)} ${c.mode}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    const x = await checkCase(runner, c);
    if (x === null) continue;
    differing++;
    if (mismatches.length < 3) mismatches.push(x);
  }
  assert.equal(
    differing,
    0,
    `${differing} of ${count} cases differ from kWalkReference; first:\n` +
      mismatches.map(describeMismatch).join("\n"),
  );
  for (const { dp } of datapaths) {
    const modes: FuzzMode[] = dp.input.name === "bf16"
      ? ["mixed", "tiny-bound", "saturating"]
      : ["mixed", "saturating"];
    for (const mode of modes) {
      const key = `${parameterKey(dp)} ${mode}`;
      assert.ok((seen.get(key) ?? 0) >= MIN_PER_MODE, `too few cases of ${key}`);
    }
  }
}

Deno.test(`GemmEngine.kWalk() = kWalkReference: ${ENGINE_CASES} fuzz cases`, async () => {
  assert.ok(datapaths.length > 0);
  await sample(engine, SEED, ENGINE_CASES, {});
});

Deno.test(`GemmPool.kWalk() (2 workers) = kWalkReference: ${POOL_CASES} fuzz cases`, async () => {
  const pool = createGemmPool(engine, { workers: 2, inlineBelow: 0, rowBlockBytes: 1 });
  try {
    await sample(pool, SEED, POOL_CASES, { poolShapes: true });
  } finally {
    pool.close();
  }
});
