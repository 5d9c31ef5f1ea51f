/**
 * The one decoder layer on the new families (Llama 3.x, Qwen2.5, Mistral), against the
 * independent float64 reference (`tests/model/reference/`): synthesised 2-layer checkpoints with
 * GQA, each family's wiring (no QK-norm; Qwen2's q/k/v biases; Llama's attention and MLP biases
 * and llama3 RoPE scaling; tied embeddings), every position of a 16-token prefill within the
 * reference's stated tolerance (2^-3 in normalised units, see `f64_forward_test.ts`), and the
 * wrong wirings the issue names outside it. llama3 scaling slows only the low frequencies, which
 * a short prefill cannot show, so its `inv_freq` is compared directly.
 */
import assert from "node:assert/strict";
import {
  encodeSafetensors,
  ForwardUnsupported,
  modelInvFreq,
  openDecoderCheckpoint,
  parseDecoderConfig,
  runPrefillForward,
  runServingForward,
} from "../../../src/model/mod.ts";
import { memFiles } from "../checkpoint/_checkpoint_fixture.ts";
import { forwardRuntime, forwardStack } from "../forward/_forward_fixture.ts";
import type { FamilySpec } from "../reference/family_f64.ts";
import { referenceForward, type TensorReader } from "../reference/f64_forward.ts";
import { llama3InvFreq } from "../reference/rope_f64.ts";
import { synthFamilyWeights, tensorReader } from "../reference/synth_weights.ts";
import { rowErrors, withinTolerance } from "../reference/within_tolerance.ts";

const TOLERANCE = 2 ** -3;
const TOKENS = [1, 5, 9, 33, 2, 7, 63, 0, 12, 40, 41, 3, 30, 51, 18, 27];

const BASE = {
  vocab_size: 64,
  hidden_size: 256,
  intermediate_size: 512,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  head_dim: 128,
  rms_norm_eps: 1e-5,
  torch_dtype: "bfloat16",
};
const LLAMA = {
  ...BASE,
  model_type: "llama",
  architectures: ["LlamaForCausalLM"],
  rope_theta: 500000,
  rope_scaling: {
    rope_type: "llama3",
    factor: 8,
    low_freq_factor: 1,
    high_freq_factor: 4,
    original_max_position_embeddings: 8192,
  },
  tie_word_embeddings: true,
};
const QWEN2 = {
  ...BASE,
  model_type: "qwen2",
  rope_theta: 1000000,
  use_sliding_window: false,
  tie_word_embeddings: false,
};
const MISTRAL = {
  ...BASE,
  model_type: "mistral",
  rope_theta: 1000000,
  sliding_window: null,
  tie_word_embeddings: false,
};

interface Run {
  readonly config: Record<string, unknown>;
  readonly read: TensorReader;
  readonly hidden: Uint16Array;
}

async function open(config: Record<string, unknown>) {
  const tensors = synthFamilyWeights(config, { seed: "families-test" });
  const ckpt = await openDecoderCheckpoint(memFiles(
    new Map([
      ["config.json", new TextEncoder().encode(JSON.stringify(config))],
      ["model.safetensors", encodeSafetensors(tensors)],
    ]),
  ));
  return { tensors, ckpt };
}

async function run(config: Record<string, unknown>): Promise<Run> {
  const { tensors, ckpt } = await open(config);
  const r = await runPrefillForward(ckpt, {
    sequences: [TOKENS],
    runtime: forwardRuntime(),
    multiProcessorCount: 108,
  });
  if (!r.supported) throw new Error(r.reason);
  return { config, read: tensorReader(tensors), hidden: r.result.hidden };
}

function error(
  r: Run,
  o: { config?: Record<string, unknown>; adjust?: (s: FamilySpec) => FamilySpec } = {},
): number {
  const ref = referenceForward(o.config ?? r.config, r.read, TOKENS, o);
  const normWeight = r.read("model.norm.weight");
  return withinTolerance(r.hidden, ref, BASE.hidden_size, { normWeight });
}

function assertHonest(r: Run): void {
  const ref = referenceForward(r.config, r.read, TOKENS);
  const e = rowErrors(r.hidden, {
    reference: ref,
    hidden: BASE.hidden_size,
    normWeight: r.read("model.norm.weight"),
  });
  e.forEach((v, t) => assert.ok(v <= TOLERANCE, `position ${t}: ${v} above ${TOLERANCE}`));
}

function assertCaught(r: Run, label: string, wrong: Parameters<typeof error>[1]): void {
  const e = error(r, wrong);
  assert.ok(e > 2 * TOLERANCE, `${label}: ${e} is not above ${2 * TOLERANCE}`);
}

Deno.test("Qwen2.5 wiring (q/k/v biases, no QK-norm) agrees with the float64 reference; without biases it does not", async () => {
  const r = await run(QWEN2);
  assertHonest(r);
  assertCaught(r, "no biases", {
    adjust: (s: FamilySpec) => ({ ...s, qkvBias: false }),
  });
});

Deno.test("Llama 3 wiring (tied embeddings, attention and MLP biases) agrees with the float64 reference; without its biases or with QK-norm it does not", async () => {
  const plain = await run(LLAMA);
  assertHonest(plain);
  const biased = await run({ ...LLAMA, attention_bias: true, mlp_bias: true });
  assertHonest(biased);
  assertCaught(biased, "no MLP bias", { adjust: (s: FamilySpec) => ({ ...s, mlpBias: false }) });
  assertCaught(biased, "no o bias", { adjust: (s: FamilySpec) => ({ ...s, oBias: false }) });
  // QK-norm wired into Llama (unit norm weights: the normalisation alone changes q and k).
  const withNorms: Run = {
    ...plain,
    read: (n) =>
      /_norm\.weight$/.test(n) && /self_attn/.test(n)
        ? new Float64Array(BASE.head_dim).fill(1)
        : plain.read(n),
  };
  assertCaught(withNorms, "QK-norm", { adjust: (s: FamilySpec) => ({ ...s, qkNorm: true }) });
});

Deno.test("Llama 3 with only MLP biases, or only attention biases, agrees with the float64 reference: mlp_bias sets gate/up/down and attention_bias q/k/v/o, independently", async () => {
  // HF's LlamaMLP takes `bias=config.mlp_bias` on gate, up and down; LlamaAttention
  // `bias=config.attention_bias` on q, k, v and o (modeling_llama.py, Transformers 4.57).
  const mlpOnly = { attention_bias: false, mlp_bias: true };
  const attentionOnly = { attention_bias: true, mlp_bias: false };
  for (const biases of [mlpOnly, attentionOnly]) assertHonest(await run({ ...LLAMA, ...biases }));
});

Deno.test("Llama 3.2 shape (head dim 64, tied embeddings, scaling factor 32) agrees with the float64 reference", async () => {
  const rope_scaling = { ...LLAMA.rope_scaling, factor: 32 };
  assertHonest(await run({ ...LLAMA, head_dim: 64, num_attention_heads: 8, rope_scaling }));
});

Deno.test("Mistral wiring agrees with the float64 reference", async () => {
  assertHonest(await run(MISTRAL));
});

Deno.test("`modelInvFreq()` reads a head dimension PyTorch leaves partly to glibc powf as an unmodelled forward", () => {
  // d = 96: entries 32..47 follow the last 32-element vector block (AVX-512) and take std::pow.
  assert.throws(
    () => modelInvFreq(undefined, { headDim: 96, ropeTheta: "1000000" }),
    (e) => e instanceof ForwardUnsupported && /scalar glibc powf/.test(e.reason),
  );
  assert.equal(modelInvFreq(undefined, { headDim: 64, ropeTheta: "1000000" }).length, 32);
});

Deno.test("llama3 RoPE scaling: the emulator's inv_freq is the float64 formula rounded to float32, and differs from the unscaled one", () => {
  const c = parseDecoderConfig(LLAMA);
  const got = new Float32Array(modelInvFreq(undefined, c).buffer);
  const want = llama3InvFreq({
    theta: 500000,
    dim: 128,
    factor: 8,
    lowFreqFactor: 1,
    highFreqFactor: 4,
    originalMaxPositionEmbeddings: 8192,
  });
  let scaled = 0;
  const plain = new Float32Array(
    modelInvFreq(undefined, { headDim: c.headDim, ropeTheta: c.ropeTheta }).buffer,
  );
  for (let i = 0; i < want.length; i++) {
    // Each float32 step of HF's expression rounds once: a few ulp from the float64 formula.
    assert.ok(Math.abs(got[i]! - want[i]!) <= 16 * 2 ** -24 * want[i]!, `index ${i}`);
    if (got[i] !== plain[i]) scaled++;
  }
  // Llama 3.1's constants at head dim 128: indices 29..63 are changed by the scaling.
  assert.equal(scaled, 35);
});

Deno.test("the serving replay runs the same layer: a one-pass prefill of a biased Qwen2.5 and a Llama has the prefill forward's bits", async () => {
  for (const config of [QWEN2, { ...LLAMA, attention_bias: true, mlp_bias: true }]) {
    const { ckpt } = await open(config);
    const prefill = await run(config);
    const n = TOKENS.length;
    const served = await runServingForward(ckpt, {
      passes: [{ entries: [{ query: n, cached: 0 }], rows: n, logitsRows: 1 }],
      sequences: [{ tokens: TOKENS, prompt: n, steps: [{ pass: 0, entry: 0 }] }],
    }, {
      runtime: forwardRuntime({ stack: forwardStack({ batching: "flatten" }) }),
      multiProcessorCount: 108,
      logits: false,
    });
    if (!served.supported) throw new Error(served.reason);
    assert.deepEqual(served.result.sequences[0]!.hidden, prefill.hidden, String(config.model_type));
  }
});
