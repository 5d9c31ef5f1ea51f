/**
 * The one decoder layer under vLLM 0.11's custom ops (`layerKernels: "vllm-custom-ops"`): merged
 * q/k/v and gate/up GEMMs, vLLM's CUDA norms, RoPE cache and `silu_and_mul`, paged FA2 (the split
 * kernel even with one split), piecewise CUDA-graph padding, and the `vllm-megatron` TP layout.
 * - the same sequence under the HF and vLLM stacks gives different bits, and each agrees with the
 *   float64 reference within its tolerance (TP 1 and 2, with and without biases);
 * - a served vLLM replay (prefill chunk, then decode steps) equals the vLLM prefill;
 * - graph padding moves a pass across the fused norm's 256-token block switch;
 * - the unmodelled vLLM paths are refused with their reasons.
 */
import assert from "node:assert/strict";
import {
  type ClaimedAllReduce,
  REDUCE_STACK_CUDA_RECENT,
  type StackProfile,
  tensorParallelLayout,
  vllmFusedAddRmsNormOfSum,
  vllmRmsNorm,
} from "../../../src/kernels/mod.ts";
import {
  encodeSafetensors,
  type GemmDispatch,
  normRows,
  openDecoderCheckpoint,
  runPrefillForward,
  runServingForward,
  type TensorParallel,
} from "../../../src/model/mod.ts";
import {
  memFiles,
  openSynthCheckpoint,
  rewrite,
  synthDir,
} from "../checkpoint/_checkpoint_fixture.ts";
import {
  forwardRuntime,
  forwardStack,
  GQA_DENSE,
  vllmForwardStack,
} from "../forward/_forward_fixture.ts";
import { referenceForward } from "../reference/f64_forward.ts";
import { synthFamilyWeights } from "../reference/synth_weights.ts";
import { rowErrors } from "../reference/within_tolerance.ts";

const TOLERANCE = 2 ** -3;
/** 200 tokens: several KV blocks of both FA2 kernels' tiles (64 and 128 keys). */
const TOKENS = Array.from({ length: 200 }, (_, i) => (i * 37 + 11) % 64);
const DENSE = {
  model_type: "qwen3",
  architectures: ["Qwen3ForCausalLM"],
  vocab_size: 64,
  hidden_size: 512,
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
/** Qwen2.5-style biases on q/k/v plus an o_proj bias (rank 0 adds it under vLLM). */
const BIASED = {
  ...DENSE,
  model_type: "llama",
  architectures: ["LlamaForCausalLM"],
  attention_bias: true,
  mlp_bias: true,
  rope_theta: 500000,
};

/** Qwen2.5: biases on q/k/v only (vLLM's merged qkv_proj carries them; o_proj has none). */
const QWEN2 = {
  ...DENSE,
  model_type: "qwen2",
  architectures: ["Qwen2ForCausalLM"],
  use_sliding_window: false,
};

const vllmStack = vllmForwardStack;

const open = (config: Record<string, unknown>) => openSynthCheckpoint(config, "vllm-test");

const opened = {
  dense: await open(DENSE),
  biased: await open(BIASED),
  qwen2: await open(QWEN2),
};

const TWO: ClaimedAllReduce = { kind: "vllm-custom-1stage" };
const tp2 = (layout: "vllm-megatron" | "hf-tp-plan"): TensorParallel => ({
  size: 2,
  layout: tensorParallelLayout(layout),
  allReduce: TWO,
});

async function prefill(
  which: keyof typeof opened,
  stack: StackProfile,
  o: { parallel?: TensorParallel; tokens?: readonly number[] } = {},
): Promise<Uint16Array> {
  const r = await runPrefillForward(opened[which].ckpt, {
    sequences: [o.tokens ?? TOKENS],
    runtime: forwardRuntime({ stack }),
    multiProcessorCount: 108,
    ...(o.parallel === undefined ? {} : { parallel: o.parallel }),
  });
  if (!r.supported) throw new Error(r.reason);
  return r.result.hidden;
}

const equal = (a: Uint16Array, b: Uint16Array) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

function assertNearReference(
  which: keyof typeof opened,
  config: Record<string, unknown>,
  hidden: Uint16Array,
  label: string,
  tokens: readonly number[] = TOKENS,
): void {
  const { read } = opened[which];
  const ref = referenceForward(config, read, tokens);
  const e = rowErrors(hidden, {
    reference: ref,
    hidden: config.hidden_size as number,
    normWeight: read("model.norm.weight"),
  });
  e.forEach((v, t) => assert.ok(v <= TOLERANCE, `${label} position ${t}: ${v}`));
}

Deno.test("vLLM custom ops and HF give different bits for one sequence; both agree with the float64 reference", async () => {
  const hf = await prefill("dense", forwardStack({ batching: "flatten" }));
  const vllm = await prefill("dense", vllmStack());
  assert.ok(!equal(hf, vllm), "the vLLM stack must not reproduce HF's bits");
  assertNearReference("dense", DENSE, hf, "HF");
  assertNearReference("dense", DENSE, vllm, "vLLM");
});

Deno.test("vLLM's merged qkv_proj carries Qwen2.5's q/k/v biases (and o_proj none): the forward agrees with the float64 reference", async () => {
  const tokens = TOKENS.slice(0, 32);
  const vllm = await prefill("qwen2", vllmStack(), { tokens });
  assertNearReference("qwen2", QWEN2, vllm, "vLLM Qwen2.5", tokens);
});

Deno.test("vLLM TP = 2 (rank-0 bias, vocabulary-parallel embedding) differs from HF's TP plan and from one GPU; all agree with the float64 reference", async () => {
  const one = await prefill("biased", vllmStack());
  const megatron = await prefill("biased", vllmStack(), { parallel: tp2("vllm-megatron") });
  const hfPlan = await prefill("biased", vllmStack(), { parallel: tp2("hf-tp-plan") });
  assert.ok(!equal(one, megatron), "TP 2 is not the one-GPU forward");
  assert.ok(
    !equal(megatron, hfPlan),
    "rank 0's bias epilogue is not HF's add after the all-reduce",
  );
  for (const [label, h] of [["TP 1", one], ["TP 2", megatron]] as const) {
    assertNearReference("biased", BIASED, h, `vLLM biased ${label}`);
  }
});

Deno.test("a served vLLM replay (prefill chunk, then decode steps, paged FA2) equals the vLLM prefill at TP 1 and 2", async () => {
  const tokens = TOKENS.slice(0, 40);
  const n = tokens.length;
  for (const parallel of [undefined, tp2("vllm-megatron")]) {
    const stack = vllmStack();
    const want = await prefill("dense", stack, {
      tokens,
      ...(parallel === undefined ? {} : { parallel }),
    });
    const passes = [{ entries: [{ query: 10, cached: 0 }], rows: 10, logitsRows: 1 }];
    const steps = [{ pass: 0, entry: 0 }];
    for (let p = 10; p < n; p++) {
      passes.push({ entries: [{ query: 1, cached: p }], rows: 1, logitsRows: 1 });
      steps.push({ pass: passes.length - 1, entry: 0 });
    }
    const served = await runServingForward(opened.dense.ckpt, {
      passes,
      sequences: [{ tokens, prompt: 10, steps }],
    }, {
      runtime: forwardRuntime({ stack }),
      multiProcessorCount: 108,
      logits: true,
      positions: [Array.from({ length: n }, (_, i) => i)],
      ...(parallel === undefined ? {} : { parallel }),
    });
    if (!served.supported) throw new Error(served.reason);
    assert.ok(equal(served.result.sequences[0]!.hidden, want), `TP ${parallel?.size ?? 1}`);
  }
});

Deno.test("piecewise CUDA graphs: every GEMM of a 250-token pass padded to 256 is dispatched at M = 256", async () => {
  const tokens = Array.from({ length: 250 }, (_, i) => (i * 13 + 5) % 64);
  // A dispatch of the kind cuBLAS shows: one recipe up to 250 rows, split-K above.
  const seen = new Set<number>();
  const gemm: GemmDispatch = (call) => {
    seen.add(call.m);
    return {
      covered: true,
      recipe: call.m > 250
        ? { family: "serial_split_k", splitK: 2, tileK: 64 }
        : { family: "single_walk" },
    };
  };
  const run = async (stack: StackProfile) => {
    const r = await runPrefillForward(opened.dense.ckpt, {
      sequences: [tokens],
      runtime: forwardRuntime({ stack, gemm }),
      multiProcessorCount: 108,
    });
    if (!r.supported) throw new Error(r.reason);
    return r.result.hidden;
  };
  const eager = await run(vllmStack());
  assert.deepEqual([...seen], [250]);
  seen.clear();
  const padded = await run(vllmStack({ graphs: [1, 2, 4, 8, 16, 256] }));
  assert.deepEqual([...seen], [256]);
  const exact = await run(vllmStack({ graphs: [1, 2, 4, 8, 16, 248, 250] }));
  assert.ok(!equal(eager, padded), "the padded launch runs another kernel");
  assert.ok(equal(eager, exact), "a capture size equal to the pass changes nothing");
  assertNearReference("dense", DENSE, padded, "padded", tokens);
});

Deno.test("the unmodelled vLLM paths are NOT_VERIFIED with their reasons", async () => {
  const cases: [object, RegExp][] = [
    [{ layerKernels: "vllm-inductor" }, /Inductor-generated Triton kernels/],
    [{ attention: "fa3-vllm" }, /FlashAttention-3/],
  ];
  for (const [extra, why] of cases) {
    const r = await runPrefillForward(opened.dense.ckpt, {
      sequences: [TOKENS.slice(0, 8)],
      runtime: forwardRuntime({ stack: vllmStack({ extra }) }),
      multiProcessorCount: 108,
    });
    assert.equal(r.supported, false);
    assert.match(r.supported ? "" : r.reason, why);
  }
  const moe = await openDecoderCheckpoint(memFiles(
    new Map([
      ["config.json", new TextEncoder().encode(JSON.stringify(MOE))],
      ["model.safetensors", encodeSafetensors(synthFamilyWeights(MOE, { seed: "moe" }))],
    ]),
  ));
  const refusedMoe: [object, string, RegExp][] = [
    [{ experts: "fused-moe" }, "a100", /other than vLLM 0\.11's Triton fused_moe/],
    [{}, "h100-sxm", /Triton's lowering of tl\.dot there \(wgmma on sm_90\)/],
  ];
  for (const [extra, gpu, why] of refusedMoe) {
    const r = await runPrefillForward(moe, {
      sequences: [TOKENS.slice(0, 8)],
      runtime: forwardRuntime({ stack: vllmStack({ extra }), gpu }),
      multiProcessorCount: 108,
    });
    assert.equal(r.supported, false);
    assert.match(r.supported ? "" : r.reason, why);
  }
  const top16 = await openDecoderCheckpoint(memFiles(
    new Map([
      [
        "config.json",
        new TextEncoder().encode(JSON.stringify({ ...MOE16, num_experts_per_tok: 16 })),
      ],
      ["model.safetensors", encodeSafetensors(synthFamilyWeights(MOE16, { seed: "moe" }))],
    ]),
  ));
  const r = await runPrefillForward(top16, {
    sequences: [TOKENS.slice(0, 8)],
    runtime: forwardRuntime({ stack: vllmStack() }),
    multiProcessorCount: 108,
  });
  assert.equal(r.supported, false);
  assert.match(r.supported ? "" : r.reason, /moe_sum with top-16 is not modelled/);
});

Deno.test("vLLM fused MoE (topk_softmax, Triton experts with the FP32 routing weight, moe_sum): differs from HF's experts, agrees with the float64 reference at TP 1 and 2; a served replay equals the prefill", async () => {
  const moe = await open(MOE);
  const run = async (stack: StackProfile, parallel?: TensorParallel) => {
    const r = await runPrefillForward(moe.ckpt, {
      sequences: [MOE_TOKENS],
      runtime: forwardRuntime({ stack }),
      multiProcessorCount: 108,
      ...(parallel === undefined ? {} : { parallel }),
    });
    if (!r.supported) throw new Error(r.reason);
    return r.result;
  };
  const hf = await run(forwardStack({ batching: "flatten" }));
  const vllm = await run(vllmStack());
  const vllm2 = await run(vllmStack(), tp2("vllm-megatron"));
  assert.ok(!equal(hf.hidden, vllm.hidden), "the fused path must not reproduce HF's bits");
  assert.ok(!equal(vllm.hidden, vllm2.hidden), "TP 2 is not the one-GPU forward");
  const tokens = MOE_TOKENS;
  const ref = referenceForward(MOE, moe.read, tokens);
  for (const [label, h] of [["HF", hf], ["vLLM", vllm], ["vLLM TP 2", vllm2]] as const) {
    const e = rowErrors(h.hidden, {
      reference: ref,
      hidden: MOE.hidden_size,
      normWeight: moe.read("model.norm.weight"),
    });
    e.forEach((v, t) => assert.ok(v <= TOLERANCE, `${label} position ${t}: ${v}`));
  }
  // Served: a prompt chunk then decode steps, no recorded expert rows needed (rows never mix).
  const n = tokens.length;
  const passes = [{ entries: [{ query: 10, cached: 0 }], rows: 10, logitsRows: 1 }];
  const steps = [{ pass: 0, entry: 0 }];
  for (let p = 10; p < n; p++) {
    passes.push({
      entries: [{ query: 1, cached: p }, { query: 3, cached: 0 }],
      rows: 4,
      logitsRows: 1,
    });
    steps.push({ pass: passes.length - 1, entry: 0 });
  }
  const served = await runServingForward(moe.ckpt, {
    passes,
    sequences: [{ tokens, prompt: 10, steps }],
  }, {
    runtime: forwardRuntime({ stack: vllmStack() }),
    multiProcessorCount: 108,
    logits: true,
    positions: [Array.from({ length: n }, (_, i) => i)],
  });
  if (!served.supported) throw new Error(served.reason);
  // Rows 10.. ran in 4-row launches beside a neighbour the replay never sees (no recorded expert
  // rows): the fused path's rows never mix, and the test's one-recipe dispatch makes every launch
  // size run the same kernels, so the rows equal the prefill's.
  assert.ok(equal(served.result.sequences[0]!.hidden, vllm.hidden));
});

/** 16 experts (a top-16 is refused; top-8 runs PyTorch's strided sum). */
const MOE16 = {
  ...DENSE,
  hidden_size: 256,
  model_type: "qwen3_moe",
  architectures: ["Qwen3MoeForCausalLM"],
  num_experts: 16,
  num_experts_per_tok: 8,
  moe_intermediate_size: 64,
  norm_topk_prob: true,
  decoder_sparse_step: 1,
  mlp_only_layers: [],
};

/**
 * 16 tokens: where no router near-tie sends an emulation and the reference to different experts
 * (at 32, HF's emulation picks another expert than float64 at position 17: a 0.25 error).
 */
const MOE_TOKENS = TOKENS.slice(0, 16);
const MOE = {
  ...DENSE,
  hidden_size: 256,
  model_type: "qwen3_moe",
  architectures: ["Qwen3MoeForCausalLM"],
  num_experts: 8,
  num_experts_per_tok: 2,
  moe_intermediate_size: 128,
  norm_topk_prob: true,
  decoder_sparse_step: 1,
  mlp_only_layers: [],
};

Deno.test("vLLM's LM head runs over the vocabulary padded to a multiple of 64; the padded rows are never the token", async () => {
  const odd = { ...DENSE, vocab_size: 60 };
  const m = await open(odd);
  const tokens = TOKENS.slice(0, 12).map((t) => t % 60);
  const heads: number[] = [];
  const gemm: GemmDispatch = (call) => {
    if (call.name === "lm_head") heads.push(call.n);
    return { covered: true, recipe: { family: "single_walk" } };
  };
  const passes = [{ entries: [{ query: 12, cached: 0 }], rows: 12, logitsRows: 1 }];
  for (
    const [stack, n] of [[vllmStack(), 64], [forwardStack({ batching: "flatten" }), 60]] as const
  ) {
    heads.length = 0;
    const r = await runServingForward(m.ckpt, {
      passes,
      sequences: [{ tokens, prompt: 11, steps: [{ pass: 0, entry: 0 }] }],
    }, { runtime: forwardRuntime({ stack, gemm }), multiProcessorCount: 108, logits: true });
    if (!r.supported) throw new Error(r.reason);
    assert.deepEqual(heads, [n]);
    const greedy = [...r.result.sequences[0]!.greedy.values()];
    assert.ok(greedy.every((t) => t >= 0 && t < 60), `${greedy}`);
  }
});

Deno.test("vLLM fused MoE with top-8 (Qwen3-30B-A3B's routing): moe_sum through PyTorch's strided sum, near the float64 reference", async () => {
  const moe = await open(MOE16);
  const r = await runPrefillForward(moe.ckpt, {
    sequences: [MOE_TOKENS],
    runtime: forwardRuntime({ stack: vllmStack() }),
    multiProcessorCount: 108,
  });
  if (!r.supported) throw new Error(r.reason);
  const e = rowErrors(r.result.hidden, {
    reference: referenceForward(MOE16, moe.read, MOE_TOKENS),
    hidden: MOE16.hidden_size,
    normWeight: moe.read("model.norm.weight"),
  });
  e.forEach((v, t) => assert.ok(v <= TOLERANCE, `top-8 position ${t}: ${v}`));
});

Deno.test("vLLM expert parallelism (ep = tp = 2): whole experts per rank, zeros for the other rank's slots, one all-reduce; differs from TP-split experts, near float64", async () => {
  const moe = await open(MOE);
  const run = async (parallel: TensorParallel) => {
    const r = await runPrefillForward(moe.ckpt, {
      sequences: [MOE_TOKENS],
      runtime: forwardRuntime({ stack: vllmStack() }),
      multiProcessorCount: 108,
      parallel,
    });
    if (!r.supported) throw new Error(r.reason);
    return r.result.hidden;
  };
  const split = await run(tp2("vllm-megatron"));
  const ep = await run({ ...tp2("vllm-megatron"), expertParallel: true });
  assert.ok(!equal(split, ep), "whole experts per rank are not width blocks of every expert");
  const e = rowErrors(ep, {
    reference: referenceForward(MOE, moe.read, MOE_TOKENS),
    hidden: MOE.hidden_size,
    normWeight: moe.read("model.norm.weight"),
  });
  e.forEach((v, t) => assert.ok(v <= TOLERANCE, `EP position ${t}: ${v}`));
  // HF's ModuleList experts have no expert-parallel form.
  const hf = await runPrefillForward(moe.ckpt, {
    sequences: [MOE_TOKENS],
    runtime: forwardRuntime({ stack: forwardStack({ batching: "flatten" }) }),
    multiProcessorCount: 108,
    parallel: { ...tp2("hf-tp-plan"), expertParallel: true },
  });
  assert.ok(!hf.supported && /expert parallelism with HF/.test(hf.reason));
});

Deno.test("FULL_AND_PIECEWISE graphs: prefill and mixed passes run piecewise (padded); a uniform decode batch replayed a full graph and is NOT_VERIFIED", async () => {
  const graphs = { cudaGraphs: { mode: "full-and-piecewise", captureSizes: [1, 2, 4, 8, 16] } };
  const full = vllmStack({ extra: graphs });
  const tokens = TOKENS.slice(0, 12);
  const piecewise = await prefill("dense", vllmStack({ graphs: [1, 2, 4, 8, 16] }), { tokens });
  assert.ok(equal(await prefill("dense", full, { tokens }), piecewise));
  // Four one-token prompts: a uniform decode-shaped batch of 4 rows.
  const r = await runPrefillForward(opened.dense.ckpt, {
    sequences: [[1], [2], [3], [4]],
    runtime: forwardRuntime({ stack: full }),
    multiProcessorCount: 108,
  });
  assert.ok(!r.supported && /replays a full CUDA graph/.test(r.reason));
  // A served history whose decode steps ran alone: the first decode pass is refused by number.
  const passes = [
    { entries: [{ query: 10, cached: 0 }], rows: 10, logitsRows: 1 },
    { entries: [{ query: 1, cached: 10 }], rows: 1, logitsRows: 1 },
  ];
  const served = await runServingForward(opened.dense.ckpt, {
    passes,
    sequences: [{
      tokens: tokens.slice(0, 11),
      prompt: 10,
      steps: [{ pass: 0, entry: 0 }, { pass: 1, entry: 0 }],
    }],
  }, { runtime: forwardRuntime({ stack: full }), multiProcessorCount: 108 });
  assert.ok(
    !served.supported && /^pass 1: under cudagraph_mode FULL_AND_PIECEWISE/.test(served.reason),
  );
});

Deno.test("vLLM's LM head launches at every scheduled request of a pass (a partial prefill's row too), HF continuous batching's at every row of the pass (Transformers 4.57 computes all rows' logits)", async () => {
  const m = await open(DENSE);
  const tokens = TOKENS.slice(0, 12);
  const rows: number[] = [];
  const gemm: GemmDispatch = (call) => {
    if (call.name === "lm_head") rows.push(call.m);
    return { covered: true, recipe: { family: "single_walk" } };
  };
  // The sequence's prefill beside another request's partial prefill chunk (it samples nothing).
  const passes = [{
    entries: [{ query: 12, cached: 0 }, { query: 5, cached: 0 }],
    rows: 17,
    logitsRows: 1,
  }];
  for (
    const [stack, m0] of [[vllmStack(), 2], [forwardStack({ batching: "flatten" }), 17]] as const
  ) {
    rows.length = 0;
    const r = await runServingForward(m.ckpt, {
      passes,
      sequences: [{ tokens, prompt: 11, steps: [{ pass: 0, entry: 0 }] }],
    }, { runtime: forwardRuntime({ stack, gemm }), multiProcessorCount: 108, logits: true });
    if (!r.supported) throw new Error(r.reason);
    assert.deepEqual(rows, [m0], stack.id);
  }
});

/**
 * A BF16 row of `hidden` values on which two norm kernels give different outputs (sums of squares
 * in other orders), found by a seeded search: one value near 2^12 among values in [1, 2).
 */
function disagreeingRow(
  hidden: number,
  expected: (row: Uint16Array) => Uint16Array,
  other: (row: Uint16Array) => Uint16Array,
): { readonly row: Uint16Array; readonly output: Uint16Array } {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let t = 0; t < 40_000; t++) {
    const row = new Uint16Array(hidden);
    for (let j = 0; j < hidden; j++) row[j] = (127 << 7) | Math.floor(next() * 128);
    row[0] = (139 << 7) | Math.floor(next() * 128);
    const output = expected(row);
    if (other(row).some((y, j) => y !== output[j])) return { row, output };
  }
  throw new Error("no row tells the two norms apart");
}

/**
 * A one-layer checkpoint whose o_proj and down_proj are zero, so that the final norm's input is
 * the embedding rows exactly; token 0's embedding is a row `pick` chooses from the final norm's
 * weight.
 */
async function finalNormCheckpoint(
  config: Record<string, unknown>,
  pick: (weight: Uint16Array) => Uint16Array,
) {
  const base = await openDecoderCheckpoint(memFiles(synthDir(config, { seed: "final-norm" })));
  const row = pick(await base.tensor("model.norm.weight"));
  const zero = new Set([
    "model.layers.0.self_attn.o_proj.weight",
    "model.layers.0.mlp.down_proj.weight",
  ]);
  const dir = await rewrite(
    synthDir(config, { seed: "final-norm" }),
    "model.safetensors",
    (ts) =>
      ts.map((t) => {
        if (zero.has(t.name)) return { ...t, data: new Uint8Array(t.data.byteLength) };
        if (t.name !== "model.embed_tokens.weight") return t;
        const e = new Uint16Array(t.data.byteLength / 2);
        e.set(new Uint16Array(t.data.buffer, t.data.byteOffset, e.length));
        e.set(row, 0);
        return { ...t, data: e };
      }),
  );
  return await openDecoderCheckpoint(memFiles(dir));
}

Deno.test("vLLM's final norm is fused_add_rms_norm over the last residual sum (Qwen3Model.forward: `self.norm(hidden_states, residual)`), not rms_norm", async () => {
  const config = { ...GQA_DENSE, num_hidden_layers: 1 };
  const runtime = forwardRuntime({ stack: vllmForwardStack() });
  const h = config.hidden_size;
  let fused: Uint16Array = new Uint16Array(0);
  const ckpt = await finalNormCheckpoint(config, (weight) => {
    const v = { rows: 1, hidden: h, weight, mufu: runtime.sfu, eps: config.rms_norm_eps };
    const d = disagreeingRow(
      h,
      (row) => vllmFusedAddRmsNormOfSum(row, v).output,
      (row) => vllmRmsNorm(row, v).output,
    );
    fused = d.output;
    return d.row;
  });
  const r = await runPrefillForward(ckpt, {
    sequences: [[3, 0, 5]],
    runtime,
    multiProcessorCount: 108,
  });
  if (!r.supported) throw new Error(r.reason);
  assert.deepEqual(r.result.hidden.subarray(h, 2 * h), fused);
});

Deno.test("normRows(): fused_add_rms_norm's block size follows the launch's tokens (padded to 256 under CUDA graphs: 256 threads), not the rows passed (1024 threads at hidden 4096)", () => {
  // vLLM's launch: block = min(hidden, num_tokens < 256 ? 1024 : 256), num_tokens the padded
  // input's rows (csrc/layernorm_kernels.cu); two real rows of a launch padded to 256 tokens.
  const h = 4096;
  const runtime = forwardRuntime({ stack: vllmForwardStack() });
  const weight = new Uint16Array(h).map((_, j) => 0x3f00 + (j % 128));
  const v = { rows: 1, hidden: h, weight, mufu: runtime.sfu, eps: 1e-6 };
  const { row, output } = disagreeingRow(
    h,
    (x) => vllmFusedAddRmsNormOfSum(x, { ...v, numTokens: 256 }).output,
    (x) => vllmFusedAddRmsNormOfSum(x, { ...v, numTokens: 2 }).output,
  );
  const x = new Uint16Array(2 * h);
  x.set(row, h);
  const out = normRows(x, {
    width: h,
    perRow: 1,
    weight,
    runtime,
    stack: REDUCE_STACK_CUDA_RECENT, // read by PyTorch's norm only
    eps: 1e-6,
    launchRows: new Int32Array([256, 256]),
    kernel: "vllm-fused-add-rms-norm",
  });
  assert.deepEqual(out.subarray(h), output);
});
