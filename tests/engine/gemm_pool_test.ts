/** The worker pool gives the same bits as the single-threaded engine for 1 to 4 threads. */
import assert from "node:assert/strict";
import { createGemmPool } from "../../src/engine/mod.ts";
import { loadEngine, pattern, rng, sixteenBitFp32Datapaths } from "./_engine_fixture.ts";

const engine = await loadEngine();
const dps = await sixteenBitFp32Datapaths();

for (const workers of [1, 2, 3, 4]) {
  Deno.test(`GemmPool.kWalk() equals GemmEngine.kWalk() with ${workers} worker(s)`, async () => {
    const pool = createGemmPool(engine, { workers, inlineBelow: 0 }); // always split
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

Deno.test("GemmPool.kWalk() reads operands on SharedArrayBuffers in place, leaving them unchanged", async () => {
  const pool = createGemmPool(engine, { workers: 2, inlineBelow: 0 });
  try {
    const dp = dps.find(([l]) => l === "h100-sxm/mma-bf16-fp32")?.[1];
    assert.ok(dp !== undefined);
    const next = rng(5);
    const [m, n, k] = [9, 41, 64];
    // (map() would return arrays on plain ArrayBuffers: fill shared ones instead)
    const shared = (len: number) => {
      const x = new Uint16Array(new SharedArrayBuffer(len * 2));
      for (let i = 0; i < len; i++) x[i] = pattern(next, "bf16", 1, 254);
      return x;
    };
    const a = shared(m * k);
    const b = shared(n * k);
    assert.ok(a.buffer instanceof SharedArrayBuffer && b.buffer instanceof SharedArrayBuffer);
    const [a0, b0] = [[...a], [...b]];
    const want = [...engine.kWalk(dp, { a, b, m, n, k })];
    for (let r = 0; r < 3; r++) {
      assert.deepEqual([...await pool.kWalk(dp, { a, b, m, n, k })], want);
    }
    assert.deepEqual([[...a], [...b]], [a0, b0]);
  } finally {
    pool.close();
  }
});

Deno.test("GemmPool.kWalk() gives the same bits for many chunks, overlapping calls and m = 0", async () => {
  const pool = createGemmPool(engine, { workers: 3, inlineBelow: 0 });
  try {
    const dp = dps.find(([l]) => l === "a100/mma-bf16-fp32")?.[1];
    assert.ok(dp !== undefined);
    const next = rng(17);
    const jobs = [[6, 301, 48], [13, 97, 32], [0, 12, 16], [4, 0, 16]].map(([m, n, k]) => {
      const a = new Uint16Array(m! * k!).map(() => pattern(next, "bf16", 100, 150));
      const b = new Uint16Array(n! * k!).map(() => pattern(next, "bf16", 100, 150));
      return { a, b, m: m!, n: n!, k: k! };
    });
    const got = await Promise.all(jobs.map((ops) => pool.kWalk(dp, ops)));
    jobs.forEach((ops, i) => assert.deepEqual([...got[i]!], [...engine.kWalk(dp, ops)]));
  } finally {
    pool.close();
  }
});

Deno.test("GemmPool.kWalk() runs small walks on the calling thread with the same bits", async () => {
  const pool = createGemmPool(engine, { workers: 2 });
  try {
    const dp = dps.find(([l]) => l === "a100/mma-bf16-fp32")?.[1];
    assert.ok(dp !== undefined);
    const next = rng(99);
    const [m, n, k] = [3, 9, 40];
    const a = new Uint16Array(m * k).map(() => pattern(next, "bf16", 1, 254));
    const b = new Uint16Array(n * k).map(() => pattern(next, "bf16", 1, 254));
    assert.deepEqual([...await pool.kWalk(dp, { a, b, m, n, k })], [
      ...engine.kWalk(dp, { a, b, m, n, k }),
    ]);
    await assert.rejects(
      () => pool.kWalk({ ...dp, rounding: "rne" }, { a, b, m, n, k }),
      RangeError,
    );
  } finally {
    pool.close();
  }
});

Deno.test("createGemmPool() throws RangeError for a non-positive worker count or negative inlineBelow", () => {
  assert.throws(() => createGemmPool(engine, { workers: 0 }), RangeError);
  assert.throws(() => createGemmPool(engine, { workers: 1, inlineBelow: -1 }), RangeError);
  for (const rowBlockBytes of [0, -1, NaN, Infinity]) {
    assert.throws(() => createGemmPool(engine, { workers: 2, rowBlockBytes }), RangeError);
  }
});

Deno.test("GemmPool.kWalk() walks tall jobs row block by row block, same bits", async () => {
  // A budget of 16 rows at this K: 45 rows make three row blocks, the last one short.
  const k = 96;
  const pool = createGemmPool(engine, { workers: 2, inlineBelow: 0, rowBlockBytes: 16 * k * 8 });
  try {
    for (const id of ["a100/mma-bf16-fp32", "h100-sxm/mma-fp16-fp32"]) {
      const dp = dps.find(([l]) => l === id)?.[1];
      assert.ok(dp !== undefined);
      const next = rng(71);
      const fmt = dp.input.name as "bf16" | "fp16";
      const [m, n] = [45, 70];
      const hi = fmt === "bf16" ? 254 : 30;
      const a = new Uint16Array(m * k).map(() => pattern(next, fmt, 1, hi));
      const b = new Uint16Array(n * k).map(() => pattern(next, fmt, 1, hi));
      const init = new Uint32Array(m * n).map(() => next());
      const ops = { a, b, m, n, k, init };
      assert.deepEqual([...await pool.kWalk(dp, ops)], [...engine.kWalk(dp, ops)], id);
    }
  } finally {
    pool.close();
  }
});

Deno.test("GemmPool with callerWalks false: its workers alone walk jobs posted back to back, same bits", async () => {
  for (const workers of [1, 2]) {
    const pool = createGemmPool(engine, { workers, inlineBelow: 0, callerWalks: false });
    try {
      assert.equal(pool.size, workers);
      const dp = dps.find(([l]) => l === "a100/mma-bf16-fp32")?.[1];
      assert.ok(dp !== undefined);
      const next = rng(31 + workers);
      const jobs = [[5, 300, 64], [1, 17, 48], [12, 64, 128]].map(([m, n, k]) => ({
        a: new Uint16Array(m! * k!).map(() => pattern(next, "bf16", 1, 254)),
        b: new Uint16Array(n! * k!).map(() => pattern(next, "bf16", 1, 254)),
        m: m!,
        n: n!,
        k: k!,
      }));
      const got = await Promise.all(jobs.map((ops) => pool.kWalk(dp, ops)));
      got.forEach((c, i) => assert.deepEqual([...c], [...engine.kWalk(dp, jobs[i]!)]));
    } finally {
      pool.close();
    }
  }
});

Deno.test("GemmPool.kWalk() reuses its job buffers across launches of changing shapes, same bits", async () => {
  // Each launch's copies (padded A and B, C, the counter) come from the pool's recycled shared
  // memory: a later, smaller launch must see zero padding and no trace of the earlier one.
  const pool = createGemmPool(engine, { workers: 2, inlineBelow: 0 });
  try {
    const dp = dps.find(([l]) => l === "a100/mma-bf16-fp32")?.[1];
    assert.ok(dp !== undefined);
    const next = rng(11);
    for (const [m, n, k] of [[12, 40, 80], [11, 37, 70], [12, 40, 66], [3, 9, 17], [12, 40, 80]]) {
      const a = new Uint16Array(m! * k!).map(() => pattern(next, "bf16", 1, 254));
      const b = new Uint16Array(n! * k!).map(() => pattern(next, "bf16", 1, 254));
      const ops = { a, b, m: m!, n: n!, k: k! };
      assert.deepEqual([...await pool.kWalk(dp, ops)], [...engine.kWalk(dp, ops)]);
    }
  } finally {
    pool.close();
  }
});

Deno.test("GemmPool.kWalk() writes C into a given out (init itself or another array), same bits", async () => {
  for (const inlineBelow of [0, Infinity]) {
    const pool = createGemmPool(engine, { workers: 2, inlineBelow });
    try {
      const dp = dps.find(([l]) => l === "a100/mma-bf16-fp32")?.[1];
      assert.ok(dp !== undefined);
      const next = rng(9);
      const [m, n, k] = [6, 19, 48];
      const a = new Uint16Array(m * k).map(() => pattern(next, "bf16", 100, 150));
      const b = new Uint16Array(n * k).map(() => pattern(next, "bf16", 100, 150));
      const init = new Uint32Array(m * n).map(() => pattern(next, "bf16", 100, 150) << 16);
      const want = [...engine.kWalk(dp, { a, b, m, n, k, init })];
      const acc = init.slice();
      assert.equal(await pool.kWalk(dp, { a, b, m, n, k, init: acc, out: acc }), acc);
      assert.deepEqual([...acc], want, `inlineBelow ${inlineBelow}: out = init`);
      const out = new Uint32Array(m * n).fill(0xffffffff);
      assert.equal(await pool.kWalk(dp, { a, b, m, n, k, init, out }), out);
      assert.deepEqual([...out], want, `inlineBelow ${inlineBelow}: out`);
    } finally {
      pool.close();
    }
  }
});
