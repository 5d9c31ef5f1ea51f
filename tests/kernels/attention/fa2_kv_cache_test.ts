/**
 * KV tiles kept across launches (`kvCache`): decode steps over one growing cache give the bits of
 * launches that build every tile anew, and the kept tiles are what later launches read.
 */
import assert from "node:assert/strict";
import {
  FA2_PYTORCH_BUNDLED,
  fa2KvCache,
  flashAttentionBatch,
  flashAttentionForward,
} from "../../../src/kernels/mod.ts";
import { D, ENGINE, fa2Options, profile, qkv } from "./_fa2_fixture.ts";

const HEADS = 4, KV_HEADS = 2, KEYS = 300;
const x = qkv("kept", { sq: 1, sk: KEYS, heads: HEADS, kvHeads: KV_HEADS });
const kvw = KV_HEADS * D;
const o = fa2Options({
  heads: HEADS,
  kvHeads: KV_HEADS,
  returnLse: true,
  returnFp32: true,
  kWalk: ENGINE.kWalkAuto,
});

/** Decode step over the first `sk` keys (the same buffers, read in place). */
const step = (sk: number, extra: object = {}) =>
  flashAttentionForward({ q: x.q, k: x.k.subarray(0, sk * kvw), v: x.v.subarray(0, sk * kvw) }, {
    ...o,
    ...extra,
  });

Deno.test("flashAttentionForward() with a kvCache gives each decode step's bits, on one and on several KV splits", () => {
  for (const over of [{}, { profile: profile("h100-sxm"), multiProcessorCount: 132 }]) {
    const cache = fa2KvCache();
    let splits = 0;
    for (let sk = 120; sk <= KEYS; sk += 17) {
      const want = step(sk, over);
      const got = step(sk, { ...over, kvCache: cache });
      assert.deepEqual(got.out, want.out, `sk ${sk}`);
      assert.deepEqual(got.outF32, want.outF32, `sk ${sk}`);
      assert.deepEqual(got.lse, want.lse, `sk ${sk}`);
      splits = Math.max(splits, got.splits);
    }
    assert.ok(cache.tiles.size > 0, "complete tiles are kept");
    if ("profile" in over) assert.ok(splits > 1, "the H100 case runs split-KV launches");
  }
});

Deno.test("flashAttentionForward() reads kept tiles instead of rebuilding them, and keeps no partial tile", () => {
  const cache = fa2KvCache();
  const first = step(200, { kvCache: cache });
  // Every kept tile is complete: its last key lies inside the 200 keys of the launch.
  for (const key of cache.tiles.keys()) {
    const [, , , , blockN, block] = key.split(":").map(Number);
    assert.ok((block! + 1) * blockN! <= 200, key);
  }
  assert.ok(cache.tiles.size > 0);
  // Poison the kept tiles: a launch that reads them gives other bits, one without the cache not.
  // (The engine's packed form of K rides with the tile too: poison the patterns it repacks.)
  for (const tile of cache.tiles.values()) {
    assert.ok(tile.kbMemo?.prepared !== undefined, "the wasm K-walk kept K's packed panels");
    tile.kb.fill(0x3f80);
    tile.kbMemo.prepared = undefined;
  }
  assert.notDeepEqual(step(200, { kvCache: cache }).out, first.out);
  assert.deepEqual(step(200).out, first.out);
});

Deno.test("flashAttentionBatch() gives every launch of a batch the bits it gets alone", () => {
  // Decode steps (one query row) and a prefill chunk (several rows, causal) over one cache, on
  // one and on several KV splits, with both walk directions (the Dao build walks blocks from the
  // highest, PyTorch's copy too, the split kernel per split).
  const y = qkv("batch", { sq: 40, sk: KEYS, heads: HEADS, kvHeads: KV_HEADS });
  for (
    const over of [
      {},
      { profile: profile("h100-sxm"), multiProcessorCount: 132 },
      { build: FA2_PYTORCH_BUNDLED },
    ]
  ) {
    const launches = [[260, 1], [120, 1], [300, 40], [129, 1], [256, 1], [257, 1], [300, 1]].map(
      ([sk, sq]) => ({
        inputs: {
          q: y.q.subarray(0, sq! * HEADS * D),
          k: y.k.subarray(0, sk! * kvw),
          v: y.v.subarray(0, sk! * kvw),
        },
        options: { ...o, ...over },
      }),
    );
    const want = launches.map((l) => flashAttentionForward(l.inputs, l.options));
    const cache = fa2KvCache();
    const got = flashAttentionBatch(
      launches.map((l) => ({ ...l, options: { ...l.options, kvCache: cache } })),
    );
    assert.equal(got.length, want.length);
    got.forEach((g, i) => {
      assert.deepEqual(g.out, want[i]!.out, `launch ${i}`);
      assert.deepEqual(g.outF32, want[i]!.outF32, `launch ${i}`);
      assert.deepEqual(g.lse, want[i]!.lse, `launch ${i}`);
      assert.equal(g.splits, want[i]!.splits, `launch ${i}`);
    });
    assert.ok(cache.tiles.size > 0);
  }
});

Deno.test("flashAttentionBatch() refuses an empty batch, one without a kvCache and launches that differ", () => {
  const cache = fa2KvCache();
  const l = { inputs: x, options: { ...o, kvCache: cache } };
  assert.throws(() => flashAttentionBatch([]), /no launch/);
  assert.throws(() => flashAttentionBatch([{ inputs: x, options: o }]), /no kvCache/);
  assert.throws(
    () => flashAttentionBatch([l, { ...l, options: { ...l.options, kvCache: fa2KvCache() } }]),
    /launch 1 differs in 'kvCache'/,
  );
  assert.throws(
    () => flashAttentionBatch([l, { ...l, options: { ...l.options, build: FA2_PYTORCH_BUNDLED } }]),
    /differs in 'build'/,
  );
});
