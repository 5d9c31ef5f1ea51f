/**
 * Tensor parallelism in the one decoder layer (HF `tp_plan` layout): per-rank heads and weight
 * blocks, BF16 partials, the recorded all-reduce.
 * - TP = 2: every all-reduce implementation gives the same forward bits (one correctly rounded
 *   add per element), dense and MoE, prefill and served replay;
 * - TP = 4: implementations that order or round differently give different bits;
 * - TP = 1, 2, 4 agree with the independent float64 reference within its tolerance, and a TP
 *   forward is not the one-GPU forward;
 * - a served replay of a TP pass (several passes, KV cache written by ranks) equals the prefill,
 *   also for two prompts in one pass (the second's rows after the first's in the message);
 * - `reduceRows` places rows in their launch's message where the order depends on it.
 */
import assert from "node:assert/strict";
import {
  type ClaimedAllReduce,
  type ModelledAllReduceKind,
  tensorParallelLayout,
} from "../../../src/kernels/mod.ts";
import {
  runPrefillForward,
  runServingForward,
  type TensorParallel,
} from "../../../src/model/mod.ts";
import { reduceRows } from "../../../src/model/decoder/mod.ts";
import { openSynthCheckpoint } from "../checkpoint/_checkpoint_fixture.ts";
import { forwardRuntime, forwardStack } from "../forward/_forward_fixture.ts";
import { referenceForward } from "../reference/f64_forward.ts";
import { rowErrors } from "../reference/within_tolerance.ts";

const TOLERANCE = 2 ** -3;
const TOKENS = [1, 5, 9, 33, 2, 7, 63, 0, 12, 40, 41, 3, 30, 51, 18, 27, 4, 8, 22, 61];
const DENSE = {
  model_type: "qwen3",
  architectures: ["Qwen3ForCausalLM"],
  vocab_size: 64,
  hidden_size: 256,
  intermediate_size: 512,
  num_hidden_layers: 2,
  num_attention_heads: 8,
  num_key_value_heads: 4,
  head_dim: 64,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: false,
  torch_dtype: "bfloat16",
};
const MOE = {
  ...DENSE,
  model_type: "qwen3_moe",
  architectures: ["Qwen3MoeForCausalLM"],
  num_experts: 8,
  num_experts_per_tok: 2,
  moe_intermediate_size: 128,
  norm_topk_prob: true,
  decoder_sparse_step: 1,
  mlp_only_layers: [0],
};
const LAYOUT = tensorParallelLayout("hf-tp-plan");

/** Every modelled implementation's settings for `n` ranks (ring chunks small enough to matter). */
function allReduces(n: number): Record<ModelledAllReduceKind, ClaimedAllReduce> {
  const ranks = Array.from({ length: n }, (_, r) => r);
  return {
    "vllm-custom-1stage": { kind: "vllm-custom-1stage" },
    "vllm-custom-2stage": { kind: "vllm-custom-2stage" },
    "torch-symm-mem-two-shot": { kind: "torch-symm-mem-two-shot" },
    "nccl-ring": { kind: "nccl-ring", protocol: "simple", chunkBytes: 2097152, rings: [ranks] },
    // A ternary tree rooted at rank 0 (a star up to 4 ranks): rank 0 adds its children last.
    "nccl-tree": {
      kind: "nccl-tree",
      protocol: "simple",
      trees: [{
        down: ranks.map((r) => [3 * r + 1, 3 * r + 2, 3 * r + 3].filter((c) => c < n)),
      }],
    },
  };
}

function tp(size: number, allReduce: ClaimedAllReduce): TensorParallel {
  return { size, layout: LAYOUT, allReduce };
}

const open = (config: Record<string, unknown>) => openSynthCheckpoint(config, "tp-test");

/** 16 query heads / 8 KV heads of 64: splits over 8 ranks under the HF plan. */
const WIDE = { ...DENSE, num_attention_heads: 16, num_key_value_heads: 8 };
/** Llama with every bias (q/k/v, o, MLP): column-parallel biases split, row-parallel ones not. */
const BIASED = {
  ...DENSE,
  model_type: "llama",
  architectures: ["LlamaForCausalLM"],
  attention_bias: true,
  mlp_bias: true,
  rope_theta: 500000,
};
const opened = {
  dense: await open(DENSE),
  moe: await open(MOE),
  wide: await open(WIDE),
  biased: await open(BIASED),
};

async function prefill(
  which: keyof typeof opened,
  parallel?: TensorParallel,
  batching = "pad-to-longest",
): Promise<Uint16Array> {
  const r = await runPrefillForward(opened[which].ckpt, {
    sequences: [TOKENS],
    runtime: forwardRuntime({ stack: forwardStack({ batching }) }),
    multiProcessorCount: 108,
    ...(parallel === undefined ? {} : { parallel }),
  });
  if (!r.supported) throw new Error(r.reason);
  return r.result.hidden;
}

const equal = (a: Uint16Array, b: Uint16Array) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

Deno.test("TP = 2: every all-reduce implementation gives the same forward bits (dense and MoE), and not the one-GPU bits", async () => {
  for (const which of ["dense", "moe"] as const) {
    const one = await prefill(which);
    const outs = new Map<string, Uint16Array>();
    for (const [kind, c] of Object.entries(allReduces(2))) {
      outs.set(kind, await prefill(which, tp(2, c)));
    }
    const first = [...outs.values()][0]!;
    for (const [kind, h] of outs) assert.ok(equal(h, first), `${which} ${kind}`);
    assert.ok(!equal(first, one), `${which}: TP = 2 must not be the one-GPU forward`);
  }
});

Deno.test("TP = 4: implementations that order or round differently give different bits", async () => {
  const outs = new Map<string, Uint16Array>();
  for (const [kind, c] of Object.entries(allReduces(4))) {
    outs.set(kind, await prefill("dense", tp(4, c)));
  }
  // FP32 accumulation with one rounding vs BF16 after every add.
  assert.ok(!equal(outs.get("vllm-custom-1stage")!, outs.get("torch-symm-mem-two-shot")!));
  assert.ok(!equal(outs.get("vllm-custom-1stage")!, outs.get("nccl-ring")!));
  // The star tree adds rank 0 last; the ring starts each chunk elsewhere.
  assert.ok(!equal(outs.get("nccl-tree")!, outs.get("nccl-ring")!));
});

Deno.test("TP biases: column-parallel biases split with their rows; HF adds a row-parallel bias after the all-reduce, which rank 0's epilogue would not match", async () => {
  const { read } = opened.biased;
  const ref = referenceForward(BIASED, read, TOKENS);
  const normWeight = read("model.norm.weight");
  const ring = allReduces(4)["nccl-ring"];
  const hf = await prefill("biased", tp(4, ring));
  const e = rowErrors(hf, { reference: ref, hidden: BIASED.hidden_size, normWeight });
  e.forEach((v, t) => assert.ok(v <= TOLERANCE, `TP 4 biased position ${t}: ${v}`));
  const rank0 = await prefill("biased", {
    size: 4,
    layout: { ...LAYOUT, rowParallelBias: "rank0-epilogue" },
    allReduce: ring,
  });
  assert.ok(!equal(hf, rank0), "where the bias is added changes bits");
  assert.ok(!equal(hf, await prefill("biased")), "TP 4 is not the one-GPU forward");
});

Deno.test("TP = 8: implementations differ pairwise as their orders do; every one agrees with the float64 reference", async () => {
  const outs = new Map<string, Uint16Array>();
  for (const [kind, c] of Object.entries(allReduces(8))) {
    outs.set(kind, await prefill("wide", tp(8, c)));
  }
  assert.ok(!equal(outs.get("vllm-custom-1stage")!, outs.get("torch-symm-mem-two-shot")!));
  assert.ok(!equal(outs.get("nccl-ring")!, outs.get("nccl-tree")!));
  assert.ok(!equal(outs.get("nccl-ring")!, outs.get("torch-symm-mem-two-shot")!));
  const { read } = opened.wide;
  const ref = referenceForward(WIDE, read, TOKENS);
  const normWeight = read("model.norm.weight");
  for (const [kind, hidden] of outs) {
    const e = rowErrors(hidden, { reference: ref, hidden: WIDE.hidden_size, normWeight });
    e.forEach((v, t) => assert.ok(v <= TOLERANCE, `TP 8 ${kind} position ${t}: ${v}`));
  }
});

Deno.test("TP = 1, 2, 4 forwards agree with the float64 reference within its tolerance", async () => {
  const { read } = opened.dense;
  const ref = referenceForward(DENSE, read, TOKENS);
  const normWeight = read("model.norm.weight");
  const runs: [string, Uint16Array][] = [
    ["1", await prefill("dense")],
    ["2", await prefill("dense", tp(2, allReduces(2)["nccl-ring"]))],
    ["4", await prefill("dense", tp(4, allReduces(4)["nccl-tree"]))],
  ];
  for (const [label, hidden] of runs) {
    const e = rowErrors(hidden, { reference: ref, hidden: DENSE.hidden_size, normWeight });
    e.forEach((v, t) => assert.ok(v <= TOLERANCE, `TP ${label} position ${t}: ${v}`));
  }
});

Deno.test("a TP layout that cannot split the heads is refused by name", async () => {
  const r = await runPrefillForward(opened.dense.ckpt, {
    sequences: [TOKENS],
    runtime: forwardRuntime(),
    multiProcessorCount: 108,
    parallel: tp(8, allReduces(8)["nccl-tree"]),
  });
  assert.equal(r.supported, false);
  assert.match(r.supported ? "" : r.reason, /4 KV heads do not split over 8 ranks/);
});

Deno.test("a served TP replay (prefill chunk, then decode steps) equals the TP prefill: dense and MoE at 2 and 4 ranks, 8 ranks on the wide model", async () => {
  const n = TOKENS.length;
  const runs: (readonly ["dense" | "moe" | "wide", number, ClaimedAllReduce])[] = [
    ...(["dense", "moe"] as const).flatMap((which) => [
      [which, 2, allReduces(2)["nccl-ring"]] as const,
      [which, 4, allReduces(4)["vllm-custom-2stage"]] as const,
    ]),
    ["wide", 8, allReduces(8)["nccl-tree"]],
  ];
  for (const [which, size, c] of runs) {
    {
      const parallel = tp(size, c);
      const want = await prefill(which, parallel, "flatten");
      // Pass 0 computes 12 prompt tokens; passes 1.. one token each (decode-shaped).
      const passes = [{ entries: [{ query: 12, cached: 0 }], rows: 12, logitsRows: 1 }];
      const steps = [{ pass: 0, entry: 0 }];
      for (let p = 12; p < n; p++) {
        passes.push({ entries: [{ query: 1, cached: p }], rows: 1, logitsRows: 1 });
        steps.push({ pass: passes.length - 1, entry: 0 });
      }
      const served = await runServingForward(opened[which].ckpt, {
        passes,
        sequences: [{ tokens: TOKENS, prompt: 12, steps }],
      }, {
        runtime: forwardRuntime({ stack: forwardStack({ batching: "flatten" }) }),
        multiProcessorCount: 108,
        logits: true,
        positions: [Array.from({ length: n }, (_, i) => i)],
        parallel,
      });
      if (!served.supported) throw new Error(served.reason);
      assert.ok(equal(served.result.sequences[0]!.hidden, want), `${which} TP ${size} ${c.kind}`);
    }
  }
});

Deno.test("a served TP pass of two prompts equals their flattened TP prefill: the second prompt's rows sit after the first's in the all-reduce message (NCCL ring, 4 ranks)", async () => {
  // parallel_and_vllm.md §A2.3: the ring reduces each chunk of the message starting at another
  // rank, so a row's place in the pass's message (after the rows of earlier entries) decides
  // its order of BF16 additions.
  const first = TOKENS.slice(0, 12), second = TOKENS.slice(12);
  const parallel = tp(4, allReduces(4)["nccl-ring"]);
  const runtime = forwardRuntime({ stack: forwardStack({ batching: "flatten" }) });
  const p = await runPrefillForward(opened.dense.ckpt, {
    sequences: [first, second],
    runtime,
    multiProcessorCount: 108,
    parallel,
  });
  if (!p.supported) throw new Error(p.reason);
  const served = await runServingForward(opened.dense.ckpt, {
    passes: [{
      entries: [{ query: first.length, cached: 0 }, { query: second.length, cached: 0 }],
      rows: TOKENS.length,
      logitsRows: 2,
    }],
    sequences: [first, second].map((tokens, entry) => ({
      tokens,
      prompt: tokens.length,
      steps: [{ pass: 0, entry }],
    })),
  }, { runtime, multiProcessorCount: 108, parallel });
  if (!served.supported) throw new Error(served.reason);
  const h = DENSE.hidden_size;
  assert.ok(equal(served.result.sequences[0]!.hidden, p.result.hidden.subarray(0, 12 * h)));
  assert.ok(equal(served.result.sequences[1]!.hidden, p.result.hidden.subarray(12 * h)));
});

Deno.test("reduceRows: rows of a launch reduced alone equal their part of the whole message", () => {
  const width = 96, rows = 24;
  const c = allReduces(4)["nccl-ring"];
  const partials = Array.from(
    { length: 4 },
    (_, r) =>
      Uint16Array.from({ length: rows * width }, (_, i) => 0x3f80 + ((i * 37 + r * 101) % 383)),
  );
  const parallel = tp(4, c);
  const whole = reduceRows(partials, {
    tp: parallel,
    width,
    launchRows: new Int32Array(rows).fill(rows),
  });
  // Rows 5..9 and 17..20 of the launch, computed alone.
  const picked = [5, 6, 7, 8, 9, 17, 18, 19, 20];
  const sub = partials.map((p) => {
    const out = new Uint16Array(picked.length * width);
    picked.forEach((r, i) => out.set(p.subarray(r * width, (r + 1) * width), i * width));
    return out;
  });
  const got = reduceRows(sub, {
    tp: parallel,
    width,
    launchRows: new Int32Array(picked.length).fill(rows),
    launchRow: Int32Array.from(picked),
  });
  picked.forEach((r, i) =>
    assert.deepEqual(
      got.subarray(i * width, (i + 1) * width),
      whole.subarray(r * width, (r + 1) * width),
    )
  );
  // Placed as if they were the launch's first rows, the ring orders some elements differently.
  const wrong = reduceRows(sub, {
    tp: parallel,
    width,
    launchRows: new Int32Array(picked.length).fill(picked.length),
  });
  assert.ok(!equal(wrong, got));
});
