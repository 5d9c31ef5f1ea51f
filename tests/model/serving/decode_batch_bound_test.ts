/**
 * A served sequence's decode steps run as batches of bounded size (their recorded tile walks grew
 * with the square of the sequence's length: 16,000 steps of the tiny checkpoint took 9 GB in one
 * batch): 2,400 steps of one sequence, whose launches sum past one batch's bound, give the bits
 * the launches give one by one.
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../../src/assets/mod.ts";
import { createGemmWalker } from "../../../src/engine/mod.ts";
import type { FlashAttentionOptions } from "../../../src/kernels/mod.ts";
import { type PassShape, runServingForward } from "../../../src/model/mod.ts";
import {
  DISPATCH_CATALOGS,
  loadAsset,
  loadGemmEngine,
  loadGpuProfile,
  modelRuntime,
  openCheckpointDir,
  STACK_PROFILES,
} from "../../../src/resolve/mod.ts";

const STEPS = 2400; // sum of keys x head dimension: 2,400^2 / 2 x 128 = 369 M, past 2^28

Deno.test("runServingForward(): a long run of decode steps in bounded batches has the launch-by-launch bits", async () => {
  const store = await openAssetStore();
  const { profile } = await loadGpuProfile(store, "a100");
  const stack = (await loadAsset(store, {
    kind: STACK_PROFILES,
    id: "hf-qwen3-continuous-batching-torch2.8-lg2-model",
  })).value;
  const catalog = (await loadAsset(store, { kind: DISPATCH_CATALOGS, id: "demo-qwen3-tiny-a100" }))
    .value;
  const w = createGemmWalker(await loadGemmEngine(store), { callerWalks: false, threads: 1 });
  try {
    using opened = await openCheckpointDir(
      new URL("../../../tables/models/qwen3-tiny-dense", import.meta.url).pathname,
    );
    const passes: PassShape[] = Array.from({ length: STEPS }, (_, i) => ({
      entries: [{ query: 1, cached: i }],
      rows: 1,
      logitsRows: 1,
    }));
    const tokens = Array.from({ length: STEPS + 1 }, (_, i) => (i * 37 + 5) % 500);
    const run = async (batched: boolean) => {
      // The runner's batch entry is what batches a sequence's launches; without it each runs alone.
      const one = (i: Parameters<typeof w.attention>[0], o: FlashAttentionOptions) =>
        w.attention(i, o);
      const attention = batched ? w.attention : one;
      const runtime = await modelRuntime(store, {
        profile,
        stack,
        kernel: { catalog },
        walker: w.walker,
        attention,
      });
      const r = await runServingForward(opened.ckpt, {
        passes,
        sequences: [{
          tokens,
          prompt: 1,
          steps: passes.map((_, pass) => ({ pass, entry: 0 })),
        }],
      }, { runtime, multiProcessorCount: 108, logits: false });
      if (!r.supported) throw new Error(r.reason);
      return r.result.sequences[0]!;
    };
    const [batched, alone] = [await run(true), await run(false)];
    assert.equal(batched.fingerprint, alone.fingerprint);
    assert.deepEqual([...batched.hidden], [...alone.hidden]);
  } finally {
    w.close();
  }
});
