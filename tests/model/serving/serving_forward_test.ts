import assert from "node:assert/strict";
import {
  argmaxBf16,
  decodeClasses,
  type PassShape,
  runPrefillForward,
  runServingForward,
  type ServedSequence,
  type ServingForwardResult,
} from "../../../src/model/mod.ts";
import { REDUCE_STACK_CUDA_RECENT } from "../../../src/kernels/mod.ts";
import {
  checkpoint,
  forwardRuntime,
  forwardStack,
  GQA_DENSE,
  GQA_MOE,
  mDispatch,
  vllmForwardStack,
} from "../forward/_forward_fixture.ts";
import type { BlockRuntime, GemmDispatch } from "../../../src/model/mod.ts";
import type { SfuFunctionStatus } from "../../../src/hardware/mod.ts";

const flat = (o: { gpu?: string; gemm?: ReturnType<typeof mDispatch> } = {}) =>
  forwardRuntime({ ...o, stack: forwardStack({ batching: "flatten" }) });

// A: prompt 5, generates 3; B: prompt 12, generates 2; three passes, the first two chunked/mixed.
const A = [1, 5, 9, 33, 2, 7, 8, 9];
const B = [60, 2, 8, 30, 31, 7, 7, 7, 9, 10, 11, 12, 13];
const PASSES: PassShape[] = [
  { entries: [{ query: 5, cached: 0 }, { query: 6, cached: 0 }], rows: 11, logitsRows: 1 },
  { entries: [{ query: 1, cached: 5 }, { query: 6, cached: 6 }], rows: 7, logitsRows: 2 },
  { entries: [{ query: 1, cached: 6 }, { query: 1, cached: 12 }], rows: 2, logitsRows: 2 },
];
const steps = (entry: number) => PASSES.map((_, pass) => ({ pass, entry }));
const seqA: ServedSequence = { tokens: A, prompt: 5, steps: steps(0) };
const seqB = (tokens: number[]): ServedSequence => ({ tokens, prompt: 12, steps: steps(1) });

async function serve(
  config: object,
  work: { passes: readonly PassShape[]; sequences: readonly ServedSequence[] },
  runtime: BlockRuntime,
  extra: { positions?: number[][] } = {},
): Promise<ServingForwardResult> {
  const r = await runServingForward(await checkpoint(config), work, {
    runtime,
    multiProcessorCount: 108,
    ...extra,
  });
  if (!r.supported) throw new Error(r.reason);
  return r.result;
}

const same = (a: Uint16Array, b: Uint16Array) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

Deno.test("runServingForward(): a dense sequence's bits do not depend on its neighbours' tokens, only on the pass shapes", async () => {
  const runtime = flat({ gemm: mDispatch(9) });
  const withB = await serve(GQA_DENSE, { passes: PASSES, sequences: [seqA, seqB(B)] }, runtime);
  const other = B.map((t) => (t * 7 + 3) % 64);
  const withOther = await serve(
    GQA_DENSE,
    { passes: PASSES, sequences: [seqA, seqB(other)] },
    runtime,
  );
  const alone = await serve(GQA_DENSE, { passes: PASSES, sequences: [seqA] }, runtime);
  for (const r of [withOther, alone]) {
    assert.ok(same(r.sequences[0]!.hidden, withB.sequences[0]!.hidden));
    assert.deepEqual([...r.sequences[0]!.greedy], [...withB.sequences[0]!.greedy]);
    assert.equal(r.sequences[0]!.fingerprint, withB.sequences[0]!.fingerprint);
  }
  assert.ok(!same(withOther.sequences[1]!.hidden, withB.sequences[1]!.hidden));
});

Deno.test("runServingForward(): an MoE sequence replayed alone with the recorded expert rows has the bits it had in the batch", async () => {
  const runtime = flat({ gemm: mDispatch(9) });
  const full = await serve(GQA_MOE, { passes: PASSES, sequences: [seqA, seqB(B)] }, runtime);
  const recorded = PASSES.map((p, i) => ({ ...p, expertRows: full.expertRows[i]! }));
  const alone = await serve(GQA_MOE, { passes: recorded, sequences: [seqA] }, runtime);
  assert.ok(same(alone.sequences[0]!.hidden, full.sequences[0]!.hidden));
  // Without the counts a partial pass cannot be replayed; with a count below the sequence's own
  // routed rows the record contradicts itself.
  await assert.rejects(
    serve(GQA_MOE, { passes: PASSES, sequences: [seqA] }, runtime),
    /expert rows/,
  );
  const short = recorded.map((p) => ({
    ...p,
    expertRows: p.expertRows.map((l) => l.map(() => 0)),
  }));
  await assert.rejects(serve(GQA_MOE, { passes: short, sequences: [seqA] }, runtime), RangeError);
});

Deno.test("runServingForward(): a pass recording more rows for an expert than its other rows could route there contradicts itself (HF loop and vLLM's fused MoE)", async () => {
  const stacks = { hf: forwardStack({ batching: "flatten" }), vllm: vllmForwardStack() };
  for (const [experts, stack] of Object.entries(stacks)) {
    const runtime = forwardRuntime({ gemm: mDispatch(9), stack });
    const full = await serve(GQA_MOE, { passes: PASSES, sequences: [seqA, seqB(B)] }, runtime);
    const recorded = PASSES.map((p, i) => ({ ...p, expertRows: full.expertRows[i]! }));
    const alone = await serve(GQA_MOE, { passes: recorded, sequences: [seqA] }, runtime);
    // Pass 0: 11 rows, 5 of them A's; B's 6 rows each route to distinct experts, so an expert
    // holds at most A's own count plus 6 (the count the batch gave is within that).
    const own = alone.expertRows[0]![0]!;
    const e = own.findIndex((n, i) => recorded[0]!.expertRows[0]![i]! - n < 6);
    assert.ok(e >= 0);
    // Expert e's count set to m, the sum kept (rows x top-k) by taking from other experts'
    // rows beyond A's own.
    const at = (m: number) => {
      const counts = [...recorded[0]!.expertRows[0]!];
      let delta = m - counts[e]!;
      counts[e] = m;
      for (let j = 0; j < counts.length && delta > 0; j++) {
        if (j === e) continue;
        const take = Math.min(counts[j]! - own[j]!, delta);
        counts[j]! -= take;
        delta -= take;
      }
      assert.equal(delta, 0);
      return recorded.map((p, i) =>
        i === 0 ? { ...p, expertRows: [counts, ...p.expertRows.slice(1)] } : p
      );
    };
    // At the bound the replay runs (its bits are the recorded rows' to judge, not this check's).
    await serve(GQA_MOE, { passes: at(own[e]! + 6), sequences: [seqA] }, runtime);
    await assert.rejects(
      serve(GQA_MOE, { passes: at(own[e]! + 7), sequences: [seqA] }, runtime),
      new RegExp(
        `pass 0 records ${own[e]! + 7} rows for expert ${e} of MoE layer 0, more than the ${
          own[e]
        } its computed rows route there and one for each of its 6 other rows`,
      ),
      experts,
    );
  }
});

Deno.test("FA2 launches take the stack's split range: vLLM's each sequence's own key length, HF's the launch's (serving replay and prefill)", async () => {
  const stacks = [
    [vllmForwardStack(), "sequence"],
    [forwardStack({ batching: "flatten" }), "launch"],
  ] as const;
  const ck = await checkpoint(GQA_DENSE);
  for (const [stack, want] of stacks) {
    const base = forwardRuntime({ gemm: mDispatch(9), stack });
    const forward = base.attention;
    if (forward === undefined) throw new Error("the fixture's runtime runs FA2");
    const seen = new Set<string | undefined>();
    const runtime: BlockRuntime = {
      ...base,
      attention: (inputs, opts) => {
        seen.add(opts.splitRange);
        return forward(inputs, opts);
      },
    };
    await serve(GQA_DENSE, { passes: PASSES, sequences: [seqA, seqB(B)] }, runtime);
    const p = await runPrefillForward(ck, { sequences: [A], runtime, multiProcessorCount: 108 });
    assert.ok(p.supported);
    assert.deepEqual([...seen], [want], stack.id);
  }
});

Deno.test("runServingForward(): under piecewise CUDA graphs every GEMM of a pass runs at the capture size holding its tokens, not at the pass's own row count", async () => {
  // parallel_and_vllm.md §B5: vLLM pads a pass's num_tokens to the smallest capture size >= it
  // (bs_to_padded_graph_size, pad_for_cudagraph); the passes hold 11, 7 and 2 rows.
  const seen = new Set<number>();
  const split = mDispatch(8);
  const gemm: GemmDispatch = (call) => (seen.add(call.m), split(call));
  const run = async (graphs?: readonly number[]) => {
    seen.clear();
    const stack = vllmForwardStack(graphs === undefined ? {} : { graphs });
    const work = { passes: PASSES, sequences: [seqA, seqB(B)] };
    const r = await serve(GQA_DENSE, work, forwardRuntime({ gemm, stack }));
    return { hidden: r.sequences.map((s) => s.hidden), m: [...seen].sort((a, b) => a - b) };
  };
  const eager = await run();
  assert.deepEqual(eager.m, [2, 7, 11]);
  const padded = await run([1, 2, 4, 8, 16]);
  assert.deepEqual(padded.m, [2, 8, 16]);
  const exact = await run([2, 7, 11]);
  assert.deepEqual(exact.m, [2, 7, 11]);
  // 7 rows take split-K, the 8-row launch that holds them does not.
  assert.ok(!same(eager.hidden[0]!, padded.hidden[0]!), "the padded launch runs another kernel");
  assert.ok(
    eager.hidden.every((h, i) => same(h, exact.hidden[i]!)),
    "capture sizes equal to the passes change nothing",
  );
});

Deno.test("runServingForward(): the LM head launches at the pass's rows under HF continuous batching, at its requests under vLLM", async () => {
  // HF Transformers 4.57 (continuous_batching/continuous_api.py `_model_forward`) returns
  // `self.model(**batch_data).logits` with the default `logits_to_keep=0`: logits at every row of
  // the pass (11, 7, 2), sampled rows picked afterwards by `logits_indices`. vLLM 0.11
  // (v1/worker/gpu_model_runner.py) computes them at `hidden_states[logits_indices]`,
  // `logits_indices = query_start_loc[1:] - 1`: one row per scheduled request (2 each pass).
  const stacks = [
    [forwardStack({ batching: "flatten" }), [2, 7, 11]],
    [vllmForwardStack(), [2]],
  ] as const;
  for (const [stack, want] of stacks) {
    const seen = new Set<number>();
    const split = mDispatch(9);
    const gemm: GemmDispatch = (call) => (call.name === "lm_head" && seen.add(call.m), split(call));
    await serve(
      GQA_DENSE,
      { passes: PASSES, sequences: [seqA, seqB(B)] },
      forwardRuntime({ gemm, stack }),
    );
    assert.deepEqual([...seen].sort((a, b) => a - b), want, stack.id);
  }
});

Deno.test("runServingForward(): pass by pass with carried KV caches (the prover) equals the layer-by-layer replay (the verifier)", async () => {
  for (const config of [GQA_DENSE, GQA_MOE]) {
    const runtime = flat({ gemm: mDispatch(9) });
    const all = await serve(config, { passes: PASSES, sequences: [seqA, seqB(B)] }, runtime);
    const ck = await checkpoint(config);
    let kv: ServingForwardResult["kv"] = undefined;
    const hidden: Uint16Array[][] = [[], []];
    const starts = [0, 0];
    for (const pass of PASSES) {
      const seqs = [seqA, seqB(B)].map((s, i) => ({
        tokens: s.tokens,
        prompt: s.prompt,
        steps: [{ pass: 0, entry: i }],
        start: starts[i]!,
      }));
      const r = await runServingForward(ck, { passes: [pass], sequences: seqs }, {
        runtime,
        multiProcessorCount: 108,
        keepKv: true,
        ...(kv === undefined ? {} : { kv }),
      });
      if (!r.supported) throw new Error(r.reason);
      kv = r.result.kv;
      pass.entries.forEach((e, i) => {
        hidden[i]!.push(r.result.sequences[i]!.hidden);
        starts[i]! += e.query;
      });
    }
    for (let i = 0; i < 2; i++) {
      const joined = new Uint16Array(hidden[i]!.reduce((n, h) => n + h.length, 0));
      let at = 0;
      for (const h of hidden[i]!) joined.set(h, (at += h.length) - h.length);
      assert.ok(same(joined, all.sequences[i]!.hidden));
    }
  }
});

for (const gpu of ["a100", "h100-sxm"]) {
  Deno.test(`runServingForward(): decode steps against a one-shot prefill on ${gpu}: equal where the kernels are equal, different where they differ`, async () => {
    const h = 256;
    const row = (x: Uint16Array, p: number) => x.subarray(p * h, (p + 1) * h);
    const decodeOf = async (runtime: BlockRuntime, tokens: number[], prompt: number) => {
      const passes: PassShape[] = [{
        entries: [{ query: prompt, cached: 0 }],
        rows: prompt,
        logitsRows: 1,
      }];
      for (let p = prompt; p < tokens.length - 1; p++) {
        passes.push({ entries: [{ query: 1, cached: p }], rows: 1, logitsRows: 1 });
      }
      const seq = { tokens, prompt, steps: passes.map((_, pass) => ({ pass, entry: 0 })) };
      return (await serve(GQA_DENSE, { passes, sequences: [seq] }, runtime)).sequences[0]!.hidden;
    };
    const prefillOf = async (runtime: BlockRuntime, tokens: number[]) => {
      const r = await runPrefillForward(await checkpoint(GQA_DENSE), {
        sequences: [tokens],
        runtime,
        multiProcessorCount: 108,
      });
      if (!r.supported) throw new Error(r.reason);
      return r.result.hidden;
    };
    // Short context, one fixed GEMM kernel, one KV block: the decode step runs what the prefill
    // ran for that row.
    const short = [1, 5, 9, 33, 2, 7, 8, 9];
    const fixed = flat({ gpu });
    const d = await decodeOf(fixed, short, 5);
    const p = await prefillOf(fixed, short.slice(0, 7));
    for (let pos = 0; pos < 7; pos++) assert.ok(same(row(d, pos), row(p, pos)), `position ${pos}`);
    // An M-dependent dispatch: decode (M = 1, split-K) and prefill (M = 7, one walk) differ.
    const m = flat({ gpu, gemm: mDispatch(2) });
    assert.ok(
      !same(row(await decodeOf(m, short, 5), 6), row(await prefillOf(m, short.slice(0, 7)), 6)),
    );
    // 200 keys: the decode step runs split-KV attention and its combine, the prefill the standard
    // kernel (the split heuristic of one sequence with 2 KV heads picks 2 splits).
    const long = Array.from({ length: 202 }, (_, t) => (t * 31 + 7) % 64);
    const dl = await decodeOf(fixed, long, 200);
    const pl = await prefillOf(fixed, long.slice(0, 201));
    assert.ok(same(row(dl, 199), row(pl, 199)));
    assert.ok(!same(row(dl, 200), row(pl, 200)));
  });
}

Deno.test("runServingForward(): decode batch sizes in one class give identical bits, across a class boundary they differ", async () => {
  const runtime = flat({ gemm: mDispatch(9) });
  const ck = await checkpoint(GQA_DENSE);
  const context = 20;
  const classes = decodeClasses(ck.config, {
    dispatch: runtime.gemm,
    reduceStack: REDUCE_STACK_CUDA_RECENT,
    multiProcessorCount: 108,
    context,
    maxBatch: 16,
  }).classes;
  const tokens = Array.from({ length: context + 2 }, (_, t) => (t * 13 + 1) % 64);
  const decodeAt = async (batch: number) => {
    const passes: PassShape[] = [
      { entries: [{ query: context, cached: 0 }], rows: context, logitsRows: 1 },
      {
        entries: Array.from({ length: batch }, () => ({ query: 1, cached: context })),
        rows: batch,
        logitsRows: batch,
      },
    ];
    const seq = { tokens, prompt: context, steps: [{ pass: 0, entry: 0 }, { pass: 1, entry: 0 }] };
    const r = await serve(GQA_DENSE, { passes, sequences: [seq] }, runtime);
    return r.sequences[0]!.hidden.subarray(context * 256);
  };
  const first = classes[0]!;
  assert.ok(first.to > first.from, "the first class holds several batch sizes");
  const a = await decodeAt(first.from), b = await decodeAt(first.to);
  assert.ok(same(a, b));
  const next = await decodeAt(classes[1]!.from);
  assert.ok(!same(a, next));
});

Deno.test("runServingForward(): a long-context decode on a stack refusing the LG2 model is not emulated, with the reason", async () => {
  const tokens = Array.from({ length: 202 }, (_, t) => t % 64);
  const passes: PassShape[] = [
    { entries: [{ query: 200, cached: 0 }], rows: 200, logitsRows: 1 },
    { entries: [{ query: 1, cached: 200 }], rows: 1, logitsRows: 1 },
  ];
  const runtime = forwardRuntime({ stack: forwardStack({ batching: "flatten" }) });
  // The IEEE model with its LG2 marked unmeasured, below the stack's minimum.
  const lg2: SfuFunctionStatus = { status: "model-only", evidence: "test: unmeasured" };
  const functions = { ...runtime.sfu.status.functions, lg2 };
  const strict: BlockRuntime = {
    ...runtime,
    sfu: { ...runtime.sfu, status: { ...runtime.sfu.status, functions } },
  };
  const r = await runServingForward(await checkpoint(GQA_DENSE), {
    passes,
    sequences: [{ tokens, prompt: 200, steps: [{ pass: 0, entry: 0 }, { pass: 1, entry: 0 }] }],
  }, { runtime: strict, multiProcessorCount: 108 });
  assert.equal(r.supported, false);
  if (!r.supported) assert.match(r.reason, /lg2/);
});

Deno.test("runServingForward(): a pad-to-longest stack is not a continuous-batching engine", async () => {
  const r = await runServingForward(await checkpoint(GQA_DENSE), {
    passes: PASSES,
    sequences: [seqA],
  }, { runtime: forwardRuntime(), multiProcessorCount: 108 });
  assert.equal(r.supported, false);
  if (!r.supported) assert.match(r.reason, /flatten/);
});

Deno.test("runServingForward(): histories that contradict themselves are refused with the pass named", async () => {
  const runtime = flat();
  const bad = async (passes: PassShape[], seq: ServedSequence, re: RegExp) =>
    await assert.rejects(serve(GQA_DENSE, { passes, sequences: [seq] }, runtime), re);
  const cached = PASSES.map((p, i) =>
    i === 1 ? { ...p, entries: [{ query: 1, cached: 4 }, p.entries[1]!] } : p
  );
  await bad(cached, seqA, /pass 1 says 4 cached tokens/);
  const rows = PASSES.map((p, i) => (i === 2 ? { ...p, rows: 3 } : p));
  await bad(rows, seqA, /pass 2 says 3 GEMM rows, its entries flatten to 2/);
  const logits = PASSES.map((p, i) => (i === 1 ? { ...p, logitsRows: 0 } : p));
  await bad(logits, seqA, /pass 1 records 0 logits rows/);
  await bad(PASSES, { ...seqA, tokens: A.slice(0, 6) }, /computes positions up to 6/);
});

Deno.test("argmaxBf16(): torch.argmax order: first of equal maxima, NaN largest, -0 equals +0", () => {
  assert.equal(argmaxBf16(new Uint16Array([0xbf80, 0xc000])), 0); // -1, -2
  assert.equal(argmaxBf16(new Uint16Array([0x3f80, 0x7fc0, 0x7f80])), 1); // 1, NaN, inf
  assert.equal(argmaxBf16(new Uint16Array([0xff80, 0x8000, 0x0000])), 1); // -inf, -0, +0
  assert.equal(argmaxBf16(new Uint16Array([0x4000, 0x7f80])), 1); // 2, inf
});
