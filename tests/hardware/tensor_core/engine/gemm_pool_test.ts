/** The worker pool gives the same bits as the single-threaded engine for 1, 2 and 3 workers. */
import assert from "node:assert/strict";
import { createGemmPool } from "../../../../src/hardware/tensor_core/engine/mod.ts";
import { loadEngine, pattern, rng, sixteenBitFp32Datapaths } from "./_engine_fixture.ts";

const engine = await loadEngine();
const dps = await sixteenBitFp32Datapaths();

for (const workers of [1, 2, 3]) {
  Deno.test(`GemmPool.kWalk() equals GemmEngine.kWalk() with ${workers} worker(s)`, async () => {
    const pool = createGemmPool(engine, { workers });
    try {
      for (const id of ["a100/mma-bf16-fp32", "h100-sxm/mma-fp16-fp32"]) {
        const dp = dps.find(([l]) => l === id)?.[1];
        assert.ok(dp !== undefined);
        const next = rng(workers * 7 + 1);
        const fmt = dp.input.name as "bf16" | "fp16";
        const [m, n, k] = [7, 23, 70];
        const a = new Uint16Array(m * k).map(() =>
          pattern(next, fmt, 1, fmt === "bf16" ? 254 : 30)
        );
        const b = new Uint16Array(n * k).map(() =>
          pattern(next, fmt, 1, fmt === "bf16" ? 254 : 30)
        );
        const init = new Uint32Array(m * n).map(() => next());
        const ops = { a, b, m, n, k, init, segments: [[32, 70], [0, 32]] as [number, number][] };
        assert.deepEqual([...await pool.kWalk(dp, ops)], [...engine.kWalk(dp, ops)]);
      }
    } finally {
      pool.close();
    }
  });
}

Deno.test("createGemmPool() throws RangeError for a non-positive worker count", () => {
  assert.throws(() => createGemmPool(engine, { workers: 0 }), RangeError);
});
