import assert from "node:assert/strict";
import { createSfu } from "../../src/hardware/mod.ts";
import { createFa2Pool, FA2_POOL_INLINE_BELOW, type Fa2Pool } from "../../src/engine/mod.ts";
import {
  FA2_PYTORCH_BUNDLED,
  fa2KvCache,
  flashAttentionForward,
  type FlashAttentionOptions,
} from "../../src/kernels/mod.ts";
import {
  ENGINE as engine,
  fa2Options,
  profile,
  qkv as inputs,
  TESLA as tesla,
} from "../kernels/attention/_fa2_fixture.ts";

const BASE = fa2Options({
  heads: 4,
  kvHeads: 2,
  returnLse: true,
  returnFp32: true,
  kWalk: engine.kWalkAuto, // equal to kWalkReference (fa2_tile_walk_test.ts), much faster
});

// Launch kinds the pool must cover (label, options, sq, sk, splits at least): standard prefill past
// one m-block, split-KV on 132 SMs, decode with the GQA swap, varlen with two sequences, two
// sequences of a vLLM decode pass of 64 (3 splits: 150 keys in 3 by their own length, not 2 + 0
// + 0 by the longest), the PyTorch build on the IEEE SFU.
const H100 = { profile: profile("h100-sxm"), multiProcessorCount: 132 };
const CASES: [string, Partial<FlashAttentionOptions>, number, number, number][] = [
  ["standard, GQA", {}, 150, 150, 1],
  ["split-KV", { ...H100, heads: 2 }, 130, 130, 2],
  ["decode", { ...H100, heads: 4, kvHeads: 1 }, 1, 300, 2],
  ["varlen", { cuSeqlensQ: [0, 40, 97], cuSeqlensK: [0, 40, 97] }, 97, 97, 1],
  [
    "vLLM decode pass, per-sequence split ranges",
    {
      ...H100,
      heads: 4,
      kvHeads: 1,
      cuSeqlensQ: [0, 1, 2],
      cuSeqlensK: [0, 150, 700],
      launch: { batch: 64, maxSeqlenQ: 1, maxSeqlenK: 550 },
      pagedKv: true,
      splitRange: "sequence",
    },
    2,
    700,
    3,
  ],
  [
    "PyTorch build, IEEE SFU",
    { build: FA2_PYTORCH_BUNDLED, mufu: createSfu({ mode: "ieee" }), causal: false },
    70,
    70,
    1,
  ],
];

/** Runs `fn` on a fresh pool and closes it. */
async function withPool(
  workers: number,
  fn: (pool: Fa2Pool) => Promise<void>,
  callerComputes = true,
): Promise<void> {
  const pool = createFa2Pool(engine, { workers, inlineBelow: 0, callerComputes });
  try {
    await fn(pool);
  } finally {
    pool.close();
  }
}

for (
  const [workers, callerComputes] of [[1, true], [2, true], [3, true], [1, false], [
    2,
    false,
  ]] as const
) {
  const who = callerComputes ? "" : ", none of them the calling thread";
  Deno.test(`Fa2Pool.forward() equals flashAttentionForward() with ${workers} thread(s)${who}`, () =>
    withPool(workers, async (pool) => {
      for (const [label, over, sq, sk, minSplits] of CASES) {
        const o = { ...BASE, ...over };
        const x = inputs(label, { sq, sk, heads: o.heads, kvHeads: o.kvHeads });
        const ref = flashAttentionForward(x, o);
        const got = await pool.forward(x, o);
        assert.ok(ref.splits >= minSplits, `${label}: ${ref.splits} splits`);
        assert.deepEqual(got.out, ref.out, label);
        assert.deepEqual(got.outF32, ref.outF32, label);
        assert.deepEqual(got.lse, ref.lse, label);
        assert.equal(got.splits, ref.splits, label);
        assert.deepEqual(got.sfuFunctionsUsed, ref.sfuFunctionsUsed, label);
        assert.ok(
          !(got.out.buffer instanceof SharedArrayBuffer),
          "result copied off shared memory",
        );
      }
    }, callerComputes));
}

Deno.test("Fa2Pool.forward() runs a MUFU model that is not an unmodified createSfu() result on the calling thread, with its own functions", () =>
  withPool(2, async (pool) => {
    const x = inputs("custom", { sq: 20, sk: 20, heads: 4, kvHeads: 2 });
    // A copy of the SFU with a different EX2: a worker recreating the original would be wrong.
    const custom = { ...tesla, ex2: (b: number) => tesla.ex2(b) ^ 1 };
    const ref = flashAttentionForward(x, { ...BASE, mufu: custom });
    const got = await pool.forward(x, { ...BASE, mufu: custom });
    assert.deepEqual(got.out, ref.out);
    assert.notDeepEqual(got.outF32, flashAttentionForward(x, BASE).outF32);
  }));

Deno.test("Fa2Pool.forward() rejects bad shapes with the forward's RangeError and stays usable", () =>
  withPool(2, async (pool) => {
    const x = inputs("bad", { sq: 10, sk: 10, heads: 4, kvHeads: 2 });
    await assert.rejects(pool.forward({ ...x, k: x.k.subarray(1) }, BASE), RangeError);
    await assert.rejects(pool.forward(x, { ...BASE, headDim: 32 }), RangeError);
    const ok = await pool.forward(x, BASE);
    assert.deepEqual(ok.out, flashAttentionForward(x, BASE).out);
  }));

Deno.test("Fa2Pool.forward() rejects after close() instead of waiting", async () => {
  const pool = createFa2Pool(engine, { workers: 2, inlineBelow: 0 });
  pool.close();
  const x = inputs("closed", { sq: 10, sk: 10, heads: 4, kvHeads: 2 });
  await assert.rejects(pool.forward(x, BASE), /closed/);
});

Deno.test("createFa2Pool() throws RangeError for a non-positive or fractional worker count", () => {
  assert.throws(() => createFa2Pool(engine, { workers: 0 }), RangeError);
  assert.throws(() => createFa2Pool(engine, { workers: 1.5 }), RangeError);
});

Deno.test("Fa2Pool.forward() runs launches below inlineBelow on the calling thread, with the same bits", async () => {
  const pool = createFa2Pool(engine, { workers: 2 });
  try {
    // A decode step (one query row, 300 keys, 4 heads: 1,200 scores) is below the default.
    const o = { ...BASE, ...H100, heads: 4, kvHeads: 1 };
    const x = inputs("decode-inline", { sq: 1, sk: 300, heads: 4, kvHeads: 1 });
    const got = await pool.forward(x, o);
    assert.deepEqual(got.out, flashAttentionForward(x, o).out);
    assert.ok(FA2_POOL_INLINE_BELOW > 1200);
  } finally {
    pool.close();
  }
});

for (const workers of [2, 3]) {
  Deno.test(`Fa2Pool.forward() with a kvCache gives each decode step's bits on ${workers} threads`, () =>
    withPool(workers, async (pool) => {
      // Decode steps over one growing cache (KV heads dealt out in turn: each thread keeps the
      // tiles of the heads it computes), on one and on several KV splits.
      for (const over of [{}, H100]) {
        const o = { ...BASE, ...over, heads: 6, kvHeads: 3 };
        const x = inputs("kept", { sq: 1, sk: 280, heads: o.heads, kvHeads: o.kvHeads });
        const kvw = o.kvHeads * 128;
        const cache = fa2KvCache();
        for (let sk = 130; sk <= 280; sk += 30) {
          const y = { q: x.q, k: x.k.subarray(0, sk * kvw), v: x.v.subarray(0, sk * kvw) };
          const ref = flashAttentionForward(y, o);
          const got = await pool.forward(y, { ...o, kvCache: cache });
          assert.deepEqual(got.out, ref.out, `sk ${sk}`);
          assert.deepEqual(got.lse, ref.lse, `sk ${sk}`);
          assert.deepEqual(got.outF32, ref.outF32, `sk ${sk}`);
        }
        assert.ok(cache.tiles.size > 0, "the calling thread keeps the tiles of its KV heads");
        // K is not on shared memory, so the pool works on a copy placed in its own buffer; kept
        // tiles are still found by where the caller's keys lie, so the next launch finds them.
        assert.ok(!(x.k.buffer instanceof SharedArrayBuffer));
        for (const key of cache.tiles.keys()) {
          assert.ok(key.startsWith(`${x.k.byteOffset / 2}:`), `kept under ${key}`);
        }
      }
    }));
}

Deno.test("Fa2Pool.forward() finds the tiles kept by the previous launch when K is a view inside a larger buffer", () =>
  withPool(2, async (pool) => {
    // The caller's K and V start 1,000 elements into their buffers; the pool's copies lie
    // elsewhere. A second launch over the same keys builds no tile the first one kept.
    const o = { ...BASE, heads: 2, kvHeads: 2 };
    const x = inputs("kept-offset", { sq: 1, sk: 256, heads: 2, kvHeads: 2 });
    const pad = (a: Uint16Array) => {
      const b = new Uint16Array(a.length + 1000);
      b.set(a, 1000);
      return b.subarray(1000);
    };
    const y = { q: x.q, k: pad(x.k), v: pad(x.v) };
    const cache = fa2KvCache();
    const ref = flashAttentionForward(y, o);
    const first = await pool.forward(y, { ...o, kvCache: cache });
    const kept = new Map(cache.tiles);
    assert.ok(kept.size > 0);
    const second = await pool.forward(y, { ...o, kvCache: cache });
    assert.deepEqual(first.out, ref.out);
    assert.deepEqual(second.out, ref.out);
    assert.deepEqual([...cache.tiles.keys()].sort(), [...kept.keys()].sort());
    for (const [key, tile] of kept) assert.equal(cache.tiles.get(key), tile, `${key} rebuilt`);
    for (const key of kept.keys()) assert.ok(key.startsWith("1000:"), key);
  }));

for (const workers of [2, 3]) {
  Deno.test(`Fa2Pool.forward.batch() gives each launch of a batch its own bits on ${workers} threads`, () =>
    withPool(workers, async (pool) => {
      // A sequence's decode steps and a prefill chunk over one cache (K and V shared once as the
      // longest launch's rows), on one and on several KV splits.
      for (const over of [{}, H100]) {
        const o = { ...BASE, ...over, heads: 6, kvHeads: 3 };
        const x = inputs("batch", { sq: 30, sk: 290, heads: o.heads, kvHeads: o.kvHeads });
        const kvw = o.kvHeads * 128;
        const cache = fa2KvCache();
        const launches = [[150, 1], [290, 30], [200, 1], [256, 1], [257, 1]].map(([sk, sq]) => ({
          inputs: {
            q: x.q.subarray(0, sq! * o.heads * 128),
            k: x.k.subarray(0, sk! * kvw),
            v: x.v.subarray(0, sk! * kvw),
          },
          options: { ...o, kvCache: cache },
        }));
        const got = await pool.forward.batch(launches);
        launches.forEach((l, i) => {
          const ref = flashAttentionForward(l.inputs, o);
          assert.deepEqual(got[i]!.out, ref.out, `launch ${i}`);
          assert.deepEqual(got[i]!.lse, ref.lse, `launch ${i}`);
          assert.deepEqual(got[i]!.outF32, ref.outF32, `launch ${i}`);
          assert.equal(got[i]!.splits, ref.splits, `launch ${i}`);
        });
      }
    }));
}

Deno.test("a pool whose calling thread does not compute leaves it free while a launch runs", async () => {
  for (const callerComputes of [false, true]) {
    await withPool(1, async (pool) => {
      const o = { ...BASE, heads: 4, kvHeads: 2 };
      const x = inputs("free", { sq: 1024, sk: 1024, heads: o.heads, kvHeads: o.kvHeads });
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      try {
        const started = performance.now();
        await pool.forward(x, o);
        const ms = performance.now() - started;
        assert.ok(ms > 100, `the launch took ${ms} ms: too short to tell`);
        // Free: the timer ran throughout. Computing: it could not run until the launch ended.
        if (callerComputes) assert.ok(ticks <= 1, `${ticks} ticks`);
        else assert.ok(ticks >= 5, `${ticks} ticks in ${ms} ms`);
      } finally {
        clearInterval(timer);
      }
    }, callerComputes);
  }
});
