import assert from "node:assert/strict";
import { createFa2Pool, createGemmPool, sharedBuffers } from "../../../src/engine/mod.ts";
import {
  openDecoderCheckpoint,
  runPrefillForward,
  type TokenPosition,
} from "../../../src/model/mod.ts";
import { memFiles, rewrite, synthDir } from "../checkpoint/_checkpoint_fixture.ts";
import {
  checkpoint,
  ENGINE,
  forwardRuntime,
  forwardStack,
  GQA_DENSE,
  GQA_MOE,
  mDispatch,
  vllmForwardStack,
} from "./_forward_fixture.ts";
import type { BlockRuntime } from "../../../src/model/mod.ts";

const A = [1, 5, 9, 33, 2];
const B = [60, 2, 8, 30, 31, 7, 7, 7, 9, 10, 11, 12];
const A2 = [3, 4, 5, 6, 7];
const LAST_OF_A: TokenPosition[] = [{ seq: 0, pos: 4 }];

async function run(
  config: object,
  sequences: number[][],
  runtime: BlockRuntime,
  positions = LAST_OF_A,
) {
  const r = await runPrefillForward(await checkpoint(config), {
    sequences,
    runtime,
    multiProcessorCount: 108,
    padTokenId: 0,
    positions,
  });
  if (!r.supported) throw new Error(r.reason);
  return r.result;
}

Deno.test("runPrefillForward(): compositions dispatching different GEMM kernels give different fingerprints", async () => {
  // Split-K below 9 rows: A alone (5 rows) and A padded with B (2 x 12 rows) run other kernels.
  for (const config of [GQA_DENSE, GQA_MOE]) {
    const alone = await run(config, [A], forwardRuntime({ gemm: mDispatch(9) }));
    const padded = await run(config, [A, B], forwardRuntime({ gemm: mDispatch(9) }));
    assert.notEqual(alone.fingerprint, padded.fingerprint);
  }
});

Deno.test("runPrefillForward(): compositions dispatching the same kernels give identical fingerprints", async () => {
  // One fixed kernel for every shape: the batch is invisible in A's rows (the equivalence class).
  for (const config of [GQA_DENSE, GQA_MOE]) {
    const prints = new Set<string>();
    for (const batching of ["pad-to-longest", "flatten"]) {
      const runtime = forwardRuntime({ stack: forwardStack({ batching }) });
      for (const seqs of [[A], [A, B], [A, A2]]) {
        prints.add((await run(config, seqs, runtime)).fingerprint);
      }
    }
    assert.equal(prints.size, 1);
  }
});

Deno.test("runPrefillForward(): each row is rotated at its own sequence's position: A's bits are the same first or second in a batch, on HF's and vLLM's RoPE", async () => {
  // One fixed kernel for every shape, so only the rows' positions could tell A's places apart:
  // second, A's rows sit at batch rows 12..16 (padded or flattened) but at positions 0..4.
  const second: TokenPosition[] = [{ seq: 1, pos: 4 }];
  const stacks = [
    forwardStack({ batching: "pad-to-longest" }),
    forwardStack({ batching: "flatten" }),
    vllmForwardStack(),
  ];
  for (const stack of stacks) {
    const runtime = forwardRuntime({ stack });
    const alone = await run(GQA_DENSE, [A], runtime);
    const after = await run(GQA_DENSE, [B, A], runtime, second);
    assert.equal(after.fingerprint, alone.fingerprint, stack.operators!.batching);
    assert.deepEqual(after.layerChain, alone.layerChain);
  }
});

Deno.test("runPrefillForward(): MoE expert GEMM rows count every routed row of the batch, pads included", async () => {
  const rows = async (batching: string) =>
    (await run(GQA_MOE, [A, B], forwardRuntime({ stack: forwardStack({ batching }) })))
      .expertRows.get(1)!;
  const padded = await rows("pad-to-longest");
  const flat = await rows("flatten");
  const sum = (m: ReadonlyMap<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  assert.equal(sum(flat), 2 * (A.length + B.length)); // top-2 of 17 tokens
  assert.equal(sum(padded), 2 * 2 * B.length); // top-2 of 2 x 12 rows
  // Expert-dependent M: with split-K below 9 rows the two layouts run different expert kernels.
  const a = await run(GQA_MOE, [A, B], forwardRuntime({ gemm: mDispatch(9) }));
  const f = await run(
    GQA_MOE,
    [A, B],
    forwardRuntime({ gemm: mDispatch(9), stack: forwardStack({ batching: "flatten" }) }),
  );
  assert.notEqual(a.fingerprint, f.fingerprint);
});

Deno.test("runPrefillForward(): the same bits on 1 and 2 threads", async () => {
  const gemm = createGemmPool(ENGINE, { workers: 2 });
  const fa2 = createFa2Pool(ENGINE, { workers: 2 });
  try {
    const one = await run(GQA_MOE, [A, B], forwardRuntime());
    const two = await run(GQA_MOE, [A, B], {
      ...forwardRuntime(),
      walker: gemm.kWalk,
      attention: fa2.forward,
    });
    assert.deepEqual(two.hidden, one.hidden);
    assert.equal(two.fingerprint, one.fingerprint);
    assert.deepEqual(two.layerChain, one.layerChain);
  } finally {
    gemm.close();
    fa2.close();
  }
});

Deno.test("runPrefillForward() reports configurations it cannot emulate, with the reason", async () => {
  const cases: [object, number[][], BlockRuntime, RegExp][] = [
    [GQA_DENSE, [A], forwardRuntime({ stack: forwardStack({ attention: "cudnn-sdpa" }) }), /cuDNN/],
    [
      GQA_DENSE,
      [A, B],
      forwardRuntime({ stack: forwardStack({ attention: "eager", batching: "flatten" }) }),
      /eager attention runs on padded batches/,
    ],
    [
      GQA_DENSE,
      [A, B],
      forwardRuntime({ stack: forwardStack({ attention: "fa2-pytorch-bundled" }) }),
      /padding mask/,
    ],
    [GQA_MOE, [A], forwardRuntime({ stack: forwardStack({ experts: "fused-moe" }) }), /fused/],
    [
      GQA_DENSE,
      [A],
      forwardRuntime({ gemm: (c) => ({ covered: false, reason: `no kernel for ${c.name}` }) }),
      /no kernel for q_proj/,
    ],
  ];
  for (const [config, seqs, runtime, why] of cases) {
    const r = await runPrefillForward(await checkpoint(config), {
      sequences: seqs,
      runtime,
      multiProcessorCount: 108,
      padTokenId: 0,
    });
    assert.ok(!r.supported);
    assert.match(r.reason, why);
  }
});

Deno.test("runPrefillForward(): one flipped weight bit in layer 1's experts changes the chain from layer 1's MLP stage on", async () => {
  const dir = synthDir(GQA_MOE, { seed: "forward-test" });
  const runOn = async (files: Map<string, Uint8Array>) => {
    const r = await runPrefillForward(await openDecoderCheckpoint(memFiles(files)), {
      sequences: [A, B],
      runtime: forwardRuntime(),
      multiProcessorCount: 108,
      padTokenId: 0,
      // every token: the flipped expert reaches some of them (the chain covers claimed rows only)
      positions: [A, B].flatMap((s, seq) => s.map((_, pos) => ({ seq, pos }))),
    });
    if (!r.supported) throw new Error(r.reason);
    return r.result;
  };
  const honest = await runOn(dir);
  const expert = [...honest.expertRows.get(1)!.keys()][0]!;
  const name = `model.layers.1.mlp.experts.${expert}.up_proj.weight`;
  const flipped = await rewrite(dir, "model.safetensors", (ts) =>
    ts.map((t) => {
      if (t.name !== name) return t;
      const data = (t.data as Uint16Array).slice();
      data[0] = data[0]! ^ 0x4000; // one exponent bit of one weight
      return { ...t, data };
    }));
  const bad = await runOn(flipped);
  assert.deepEqual(bad.layerChain[0], honest.layerChain[0]);
  assert.equal(bad.layerChain[1]!.attention, honest.layerChain[1]!.attention);
  assert.notEqual(bad.layerChain[1]!.mlp, honest.layerChain[1]!.mlp);
  assert.notEqual(bad.fingerprint, honest.fingerprint);
});

Deno.test("runPrefillForward(): weights read ahead onto recycled shared buffers, scribbled over on release, give the same bits; each tensor is released once after its layer", async () => {
  for (const config of [GQA_DENSE, GQA_MOE]) {
    const plain = await run(config, [A, B], forwardRuntime());
    const buffers = sharedBuffers();
    const ckpt = await openDecoderCheckpoint(memFiles(synthDir(config, { seed: "forward-test" })), {
      alloc: buffers.alloc,
    });
    const released = new Set<ArrayBufferLike>();
    const r = await runPrefillForward(ckpt, {
      sequences: [A, B],
      runtime: forwardRuntime(),
      multiProcessorCount: 108,
      padTokenId: 0,
      positions: LAST_OF_A,
      releaseTensor: (t) => {
        assert.ok(!released.has(t.buffer), "a tensor released twice");
        released.add(t.buffer);
        new Uint16Array(t.buffer).fill(0x7fc0); // a later use of it would read NaNs
        buffers.release(t.buffer);
      },
    });
    if (!r.supported) throw new Error(r.reason);
    assert.deepEqual(r.result.hidden, plain.hidden);
    assert.deepEqual(r.result.layerChain, plain.layerChain);
    assert.ok(released.size >= 2 * ckpt.config.layers, `${released.size} tensors released`);
    // Every buffer still out is the final norm's (read after the last layer, never released) or
    // one the reused ones replaced: far fewer than one per tensor.
    assert.ok(buffers.inUse < 4096, `${buffers.inUse} bytes still out`);
  }
});
