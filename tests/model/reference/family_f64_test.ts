/**
 * The float64 reference's reading of each family (HF `configuration_*.py` defaults and
 * `modeling_*.py` wiring), on published config shapes and tiny synthesised checkpoints:
 * Llama 3.1 / 3.2 (llama3 RoPE, head_dim 64, tied embeddings), Qwen2.5 (q/k/v biases only),
 * Mistral v0.1 / v0.3 (sliding window or none), Qwen3-MoE (sparse layer selection).
 *
 * @module
 */
import assert from "node:assert/strict";
import { familySpec } from "./family_f64.ts";
import { familyTensorShapes } from "./family_tensors.ts";
import { referenceForward, type TensorReader } from "./f64_forward.ts";
import { synthFamilyWeights, tensorReader } from "./synth_weights.ts";

/** meta-llama/Llama-3.2-1B config.json (the fields the decoder reads). */
const LLAMA32_1B = Object.freeze({
  model_type: "llama",
  vocab_size: 128256,
  hidden_size: 2048,
  intermediate_size: 8192,
  num_hidden_layers: 16,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  head_dim: 64,
  rms_norm_eps: 1e-5,
  max_position_embeddings: 131072,
  rope_theta: 500000.0,
  rope_scaling: {
    factor: 32.0,
    high_freq_factor: 4.0,
    low_freq_factor: 1.0,
    original_max_position_embeddings: 8192,
    rope_type: "llama3",
  },
  attention_bias: false,
  mlp_bias: false,
  tie_word_embeddings: true,
});

/** Qwen/Qwen2.5-0.5B config.json. */
const QWEN25_05B = Object.freeze({
  model_type: "qwen2",
  vocab_size: 151936,
  hidden_size: 896,
  intermediate_size: 4864,
  num_hidden_layers: 24,
  num_attention_heads: 14,
  num_key_value_heads: 2,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000.0,
  sliding_window: 32768,
  use_sliding_window: false,
  tie_word_embeddings: true,
});

/** mistralai/Mistral-7B-v0.3 config.json (v0.1 differs by rope_theta 10000, window 4096). */
const MISTRAL_V03 = Object.freeze({
  model_type: "mistral",
  vocab_size: 32768,
  hidden_size: 4096,
  intermediate_size: 14336,
  num_hidden_layers: 32,
  num_attention_heads: 32,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-5,
  rope_theta: 1000000.0,
  sliding_window: null,
  tie_word_embeddings: false,
});

/** A tiny decoder of a family: 2 layers, 4 query heads over 2 KV heads of 16. */
function tiny(family: object): Record<string, unknown> {
  return {
    ...family,
    vocab_size: 32,
    hidden_size: 64,
    intermediate_size: 96,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    head_dim: 16,
    max_position_embeddings: 1024,
  };
}

const TOKENS = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8];

/** Largest element difference against the RMS of `b`. */
function relDiff(a: Float64Array, b: Float64Array): number {
  const rms = Math.sqrt(b.reduce((s, v) => s + v * v, 0) / b.length);
  return a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0) / rms;
}

/** A reader that hides tensors (so reading them throws). */
function without(read: TensorReader, hide: (name: string) => boolean): TensorReader {
  return (name) => {
    if (hide(name)) throw new RangeError(`hidden: ${name}`);
    return read(name);
  };
}

Deno.test("familySpec() reads the published Llama 3.2, Qwen2.5 and Mistral configs with HF's defaults", () => {
  const llama = familySpec(LLAMA32_1B);
  assert.equal(llama.headDim, 64);
  assert.equal(llama.tiedEmbeddings, true);
  assert.deepEqual([llama.qkvBias, llama.oBias, llama.mlpBias, llama.qkNorm], [
    false,
    false,
    false,
    false,
  ]);
  assert.deepEqual([llama.rope.ropeType, llama.rope.factor, llama.rope.theta], [
    "llama3",
    32,
    500000,
  ]);
  const qwen2 = familySpec(QWEN25_05B);
  assert.equal(qwen2.headDim, 64); // 896 / 14: Qwen2's config has no head_dim
  assert.deepEqual([qwen2.qkvBias, qwen2.oBias, qwen2.qkNorm], [true, false, false]);
  assert.equal(qwen2.maxTokens, Infinity); // use_sliding_window false
  const mistral = familySpec(MISTRAL_V03);
  assert.deepEqual([mistral.headDim, mistral.qkvBias, mistral.oBias], [128, false, false]);
  assert.equal(mistral.maxTokens, Infinity);
  const { sliding_window: _, ...v01 } = { ...MISTRAL_V03, rope_theta: 10000 };
  assert.equal(familySpec(v01).maxTokens, 4096); // MistralConfig's default window
  assert.equal(familySpec({ ...MISTRAL_V03, attention_bias: true }).qkvBias, false);
  assert.equal(familySpec({ ...LLAMA32_1B, attention_bias: true }).oBias, true);
  assert.equal(familySpec({ ...QWEN25_05B, attention_bias: false }).qkvBias, true);
  assert.throws(() => familySpec({ ...LLAMA32_1B, hidden_act: "gelu" }), RangeError);
  assert.throws(() => familySpec({ ...LLAMA32_1B, model_type: "gemma" }), RangeError);
});

Deno.test("familySpec() marks Qwen3-MoE layers sparse by mlp_only_layers and decoder_sparse_step", () => {
  const moe = {
    ...tiny({ model_type: "qwen3_moe" }),
    num_hidden_layers: 4,
    num_experts: 4,
    num_experts_per_tok: 2,
    moe_intermediate_size: 32,
  };
  assert.deepEqual(familySpec(moe).moe?.sparse, [true, true, true, true]);
  assert.equal(familySpec(moe).moe?.normTopkProb, false); // MoeConfig's default
  assert.deepEqual(familySpec({ ...moe, decoder_sparse_step: 2 }).moe?.sparse, [
    false,
    true,
    false,
    true,
  ]);
  assert.deepEqual(familySpec({ ...moe, mlp_only_layers: [0, 3] }).moe?.sparse, [
    false,
    true,
    true,
    false,
  ]);
  const names = familyTensorShapes(familySpec({ ...moe, decoder_sparse_step: 2 })).map((t) =>
    t.name
  );
  assert.ok(names.includes("model.layers.1.mlp.gate.weight"));
  assert.ok(names.includes("model.layers.0.mlp.gate_proj.weight"));
  assert.ok(!names.includes("model.layers.0.mlp.gate.weight"));
});

Deno.test("referenceForward() gives the same result from the 4.5x rope_scaling and 5.x rope_parameters layouts", () => {
  const v4 = tiny(LLAMA32_1B);
  const { rope_theta: _, rope_scaling, ...rest } = v4;
  const v5 = { ...rest, rope_parameters: { ...(rope_scaling as object), rope_theta: 500000 } };
  const read = tensorReader(synthFamilyWeights(v4, { seed: "layouts" }));
  assert.deepEqual(referenceForward(v5, read, TOKENS), referenceForward(v4, read, TOKENS));
  // The llama3 band scaling only slows the low frequencies (a 12-token prefill barely turns
  // them), so compare the frequencies: the lowest is divided by the factor 32.
  const scaled = familySpec(v4).invFreq;
  const plain = familySpec({ ...v4, rope_scaling: null }).invFreq;
  assert.equal(scaled[0], plain[0]);
  assert.equal(scaled[7], plain[7]! / 32);
});

Deno.test("referenceForward() of a tied Llama 3.2 never reads lm_head, and Mistral wires as Llama", () => {
  const llama = tiny({ ...LLAMA32_1B, rope_scaling: null });
  const read = tensorReader(synthFamilyWeights(llama, { seed: "tied" }));
  const out = referenceForward(llama, without(read, (n) => n.startsWith("lm_head")), TOKENS);
  assert.equal(out.length, TOKENS.length * 64);
  assert.ok(!familyTensorShapes(familySpec(llama)).some((t) => t.name === "lm_head.weight"));
  assert.deepEqual(
    referenceForward({ ...llama, model_type: "mistral", sliding_window: null }, read, TOKENS),
    out,
  );
});

Deno.test("referenceForward() of Qwen2.5 adds the q/k/v biases and nothing else", () => {
  const qwen2 = tiny(QWEN25_05B);
  const weights = synthFamilyWeights(qwen2, { seed: "qwen2" });
  assert.ok(
    !weights.some((t) =>
      t.name.includes("o_proj.bias") || t.name.includes("mlp.") && t.name.endsWith(".bias")
    ),
  );
  const read = tensorReader(weights);
  const withBias = referenceForward(qwen2, read, TOKENS);
  // Zeroed biases give exactly the Llama wiring of the same weights.
  const zero: TensorReader = (n) =>
    n.endsWith(".bias") ? new Float64Array(read(n).length) : read(n);
  const llama = { ...qwen2, model_type: "llama" };
  assert.deepEqual(referenceForward(qwen2, zero, TOKENS), referenceForward(llama, read, TOKENS));
  // Each bias is read: dropping any one of them moves the output.
  for (const p of ["q", "k", "v"]) {
    const drop: TensorReader = (n) =>
      n.endsWith(`${p}_proj.bias`) ? new Float64Array(read(n).length) : read(n);
    assert.ok(relDiff(referenceForward(qwen2, drop, TOKENS), withBias) > 1e-3, `${p} bias unused`);
  }
});

Deno.test("referenceForward() is causal, and refuses a prefill longer than the sliding window", () => {
  const mistral = tiny({ ...MISTRAL_V03, sliding_window: 8 });
  const read = tensorReader(synthFamilyWeights(mistral, { seed: "causal" }));
  const full = referenceForward(mistral, read, TOKENS.slice(0, 8));
  assert.deepEqual(referenceForward(mistral, read, TOKENS.slice(0, 5)), full.subarray(0, 5 * 64));
  assert.throws(() => referenceForward(mistral, read, TOKENS), RangeError);
  assert.throws(() => referenceForward(mistral, read, []), RangeError);
  assert.throws(() => referenceForward(mistral, read, [32]), RangeError);
});

Deno.test("synthFamilyWeights() is deterministic per seed, with norm weights in 0.75..1.25", () => {
  const cfg = tiny({ model_type: "qwen3" });
  const a = synthFamilyWeights(cfg, { seed: "a" });
  assert.deepEqual(synthFamilyWeights(cfg, { seed: "a" }), a);
  const b = synthFamilyWeights(cfg, { seed: "b" });
  assert.notDeepEqual(b[0]!.data, a[0]!.data);
  const read = tensorReader(a);
  for (const t of a.filter((t) => t.name.endsWith("norm.weight"))) {
    assert.ok(read(t.name).every((v) => v >= 0.75 && v <= 1.25), t.name);
  }
  assert.deepEqual(a.map((t) => t.name), familyTensorShapes(familySpec(cfg)).map((t) => t.name));
});
