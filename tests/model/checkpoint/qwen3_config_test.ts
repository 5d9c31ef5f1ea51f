import assert from "node:assert/strict";
import { isMoeLayer, parseCheckpointJson, parseDecoderConfig } from "../../../src/model/mod.ts";
import { InputError } from "../../../src/errors.ts";
import { TINY_DENSE, TINY_MOE } from "./_checkpoint_fixture.ts";

/**
 * The code an audit reads as "not modelled" (NOT_VERIFIED, `src/verify/_claim_checkpoint.ts`);
 * every other config code (`CONFIG_FIELD`, `CONFIG_MODEL_TYPE`) is evidence against the record.
 */
const UNSUPPORTED = "CONFIG_UNSUPPORTED";

const FIXTURES = new URL("./fixtures/hf_configs/", import.meta.url);
const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(Deno.readTextFileSync(new URL(`${name}.json`, FIXTURES)));

/** Asserts that a patched config is refused with the code and a message naming every name. */
function assertRefused(
  config: Record<string, unknown>,
  code: "CONFIG_UNSUPPORTED" | "CONFIG_FIELD" | "CONFIG_MODEL_TYPE",
  names: readonly string[],
): void {
  assert.throws(() => parseDecoderConfig(config), (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.code, code, `${names.join()}: ${e.message}`);
    for (const name of names) {
      assert.ok(e.message.includes(name), `${e.message} does not name ${name}`);
    }
    return true;
  });
}

const ROOT = new URL("../../../", import.meta.url);
const bundled = (name: string) =>
  parseDecoderConfig(
    JSON.parse(Deno.readTextFileSync(new URL(`profiles/models/${name}.config.json`, ROOT))),
  );

Deno.test("parseDecoderConfig() reads the published Qwen3-0.6B, 4B and 30B-A3B shapes", () => {
  const small = bundled("qwen3-0.6b");
  assert.deepStrictEqual(
    [small.hidden, small.intermediate, small.layers, small.heads, small.kvHeads, small.headDim],
    [1024, 3072, 28, 16, 8, 128],
  );
  assert.deepStrictEqual(small.tieWordEmbeddings, true);
  const mid = bundled("qwen3-4b");
  assert.deepStrictEqual([mid.hidden, mid.intermediate, mid.layers, mid.heads, mid.kvHeads], [
    2560,
    9728,
    36,
    32,
    8,
  ]);
  const moe = bundled("qwen3-30b-a3b");
  assert.deepStrictEqual([moe.hidden, moe.layers, moe.heads, moe.kvHeads, moe.vocab], [
    2048,
    48,
    32,
    4,
    151936,
  ]);
  assert.deepStrictEqual(moe.moe, {
    experts: 128,
    topK: 8,
    intermediate: 768,
    normTopkProb: true,
    decoderSparseStep: 1,
    mlpOnlyLayers: [],
  });
  assert.deepStrictEqual(moe.rmsNormEps, "0.000001");
  assert.deepStrictEqual(moe.ropeTheta, "1000000");
});

Deno.test("parseDecoderConfig() refuses unmodelled features by name", () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ model_type: "gemma" }, "CONFIG_MODEL_TYPE", "gemma"],
    [{ architectures: ["Qwen2ForCausalLM"] }, "CONFIG_UNSUPPORTED", "Qwen2ForCausalLM"],
    [{ rope_scaling: { rope_type: "yarn", factor: 4 } }, "CONFIG_UNSUPPORTED", "rope_scaling"],
    [{ use_sliding_window: true }, "CONFIG_UNSUPPORTED", "use_sliding_window"],
    [{ hidden_act: "gelu" }, "CONFIG_UNSUPPORTED", "hidden_act"],
    [{ torch_dtype: "float16" }, "CONFIG_UNSUPPORTED", "dtype"],
    [{ num_key_value_heads: 3 }, "CONFIG_FIELD", "num_key_value_heads"],
    [{ hidden_size: -1 }, "CONFIG_FIELD", "hidden_size"],
  ];
  for (const [patch, code, name] of cases) {
    assertRefused({ ...TINY_DENSE, ...patch }, code as "CONFIG_FIELD", [name]);
  }
});

Deno.test("isMoeLayer() follows decoder_sparse_step and mlp_only_layers", () => {
  const c = parseDecoderConfig({ ...TINY_MOE, num_hidden_layers: 4, decoder_sparse_step: 2 });
  assert.deepStrictEqual([0, 1, 2, 3].map((i) => isMoeLayer(c, i)), [false, true, false, true]);
  const d = parseDecoderConfig(TINY_MOE);
  assert.deepStrictEqual([0, 1].map((i) => isMoeLayer(d, i)), [false, true]);
  assert.deepStrictEqual(isMoeLayer(parseDecoderConfig(TINY_DENSE), 1), false);
});

Deno.test("parseDecoderConfig() gives the same config for the Transformers 4.51 and 5 layouts (issue 25)", () => {
  for (const name of ["qwen3-0.6b", "qwen3-4b", "qwen3-30b-a3b"]) {
    const v4 = fixture(`${name}.transformers-4.51`);
    const v5 = fixture(`${name}.transformers-5`);
    assert.equal(v4.rope_theta, 1000000);
    assert.equal(v5.rope_theta, undefined); // only nested: the layout the issue found ignored
    const { ropeTransformers5Only, ...read5 } = parseDecoderConfig(v5);
    assert.deepStrictEqual(read5, parseDecoderConfig(v4), name);
    // Transformers 4.5x ignores rope_parameters: that RoPE is Transformers 5's reading alone.
    assert.equal(ropeTransformers5Only, true, name);
    assert.equal(parseDecoderConfig(v5).ropeTheta, "1000000", name);
    // The bundled profile is the published 4.51 file.
    assert.deepStrictEqual(
      v4,
      JSON.parse(Deno.readTextFileSync(new URL(`profiles/models/${name}.config.json`, ROOT))),
    );
  }
  // Qwen3-4B-Instruct-2507 publishes theta 5000000: the nested value is read, not a default.
  const v5 = fixture("qwen3-4b.transformers-5");
  const rope_parameters = { rope_type: "default", rope_theta: 5000000 };
  assert.equal(parseDecoderConfig({ ...v5, rope_parameters }).ropeTheta, "5000000");
  // Both layouts at once are fine while they agree (1000000 and 1000000.0 are one number).
  const both = { ...fixture("qwen3-30b-a3b.transformers-4.51"), dtype: "bfloat16" };
  const agreeing = { ...both, rope_parameters: { rope_theta: 1000000, type: "default" } };
  const { ropeTransformers5Only: _only, ...nestedOnly } = parseDecoderConfig(
    fixture("qwen3-30b-a3b.transformers-5"),
  );
  assert.deepStrictEqual(parseDecoderConfig(agreeing), nestedOnly);
  assert.equal(parseDecoderConfig(agreeing).ropeTransformers5Only, undefined);
});

Deno.test("parseDecoderConfig() refuses RoPE it does not model and two thetas by name", () => {
  const v5 = fixture("qwen3-0.6b.transformers-5");
  const v4 = fixture("qwen3-0.6b.transformers-4.51");
  const rope = (p: Record<string, unknown>) => ({ ...v5, rope_parameters: p });
  const theta = 1000000;
  // linear and llama3 are modelled (decoder_config_test.ts); these are not.
  for (const type of ["yarn", "dynamic", "longrope"]) {
    assertRefused(rope({ rope_type: type, rope_theta: theta, factor: 4 }), "CONFIG_UNSUPPORTED", [
      "rope_parameters.rope_type",
      `"${type}"`,
    ]);
  }
  assertRefused(rope({ type: "yarn", rope_theta: theta }), "CONFIG_UNSUPPORTED", ["yarn"]);
  const cases: [Record<string, unknown>, "CONFIG_UNSUPPORTED" | "CONFIG_FIELD", string[]][] = [
    // The same default RoPE with a key it does not read, or one map per layer type.
    [rope({ rope_type: "default", rope_theta: theta, factor: 2 }), "CONFIG_UNSUPPORTED", [
      "factor",
    ]],
    [rope({ rope_theta: theta, partial_rotary_factor: 0.5 }), "CONFIG_UNSUPPORTED", [
      "partial_rotary_factor",
    ]],
    [rope({ full_attention: { rope_type: "default", rope_theta: theta } }), "CONFIG_UNSUPPORTED", [
      "full_attention",
    ]],
    // A type and a rope_type that differ: 4.5x reads `type`, 5.x `rope_type`.
    [rope({ rope_type: "default", type: "yarn", rope_theta: theta }), "CONFIG_UNSUPPORTED", [
      "rope_type",
      "type",
    ]],
    // Malformed values.
    [rope({ rope_type: 1 }), "CONFIG_FIELD", ["rope_parameters.rope_type"]],
    [{ ...v5, rope_parameters: [theta] }, "CONFIG_FIELD", ["rope_parameters"]],
    [rope({ rope_type: "default", rope_theta: "1e6" }), "CONFIG_FIELD", [
      "rope_parameters.rope_theta",
    ]],
    // Below 1 the frequencies grow: not modelled (1 is read: every frequency 1, as HF builds it).
    [rope({ rope_type: "default", rope_theta: 0.5 }), "CONFIG_UNSUPPORTED", [
      "rope_parameters.rope_theta",
    ]],
  ];
  for (const [config, code, names] of cases) assertRefused(config, code, names);
  // Two thetas: 5.x takes the nested one (`setdefault`), 4.5x the top-level one; the RoPE is 5.x's
  // and marked as such (a 4.5x stack does not run it).
  const topAndNested = parseDecoderConfig({ ...v5, rope_theta: 10000 });
  assert.equal(topAndNested.ropeTheta, "1000000");
  assert.equal(topAndNested.ropeTransformers5Only, true);
  const nestedOnly = parseDecoderConfig({ ...v4, rope_parameters: { rope_theta: 5e5 } });
  assert.equal(nestedOnly.ropeTheta, "500000");
  assert.equal(nestedOnly.ropeTransformers5Only, true);
  // A non-empty rope_scaling replaces rope_parameters whole in 5.x as well (`rope_scaling or
  // rope_parameters`): theta is the top-level one, else 10000, for both generations.
  const both = parseDecoderConfig({
    ...v4,
    rope_theta: undefined,
    rope_scaling: { rope_type: "linear", factor: 2 },
    rope_parameters: { rope_type: "linear", factor: 2, rope_theta: 500000 },
  });
  assert.equal(both.ropeTheta, "10000");
  assert.deepEqual(both.ropeScaling, { kind: "linear", factor: 2 });
  assert.equal(both.ropeTransformers5Only, undefined);
  // A default rope_scaling (4.5x) is the default RoPE.
  assert.equal(
    parseDecoderConfig({ ...v4, rope_scaling: { rope_type: "default" } }).ropeScaling,
    undefined,
  );
  // A default rope_parameters without theta keeps the top-level one (5.x `setdefault`).
  const plain = { ...v4, rope_parameters: { rope_type: "default" } };
  assert.equal(parseDecoderConfig(plain).ropeTheta, "1000000");
});

Deno.test("parseDecoderConfig() refuses every other unmodelled or contradicting field by name", () => {
  const dense = fixture("qwen3-4b.transformers-5");
  const moe = fixture("qwen3-30b-a3b.transformers-5");
  const sliding = dense.layer_types as string[];
  const cases: [
    Record<string, unknown>,
    "CONFIG_UNSUPPORTED" | "CONFIG_FIELD",
    string[],
  ][] = [
    [{ ...dense, dtype: "float16" }, "CONFIG_UNSUPPORTED", ["dtype", "float16"]],
    [{ ...dense, torch_dtype: "float32" }, "CONFIG_FIELD", ["torch_dtype", "dtype"]],
    [{ ...dense, hidden_act: "gelu_pytorch_tanh" }, "CONFIG_UNSUPPORTED", ["hidden_act"]],
    // A switch given as another value: HF reads its truthiness ("false" is true), not modelled.
    [{ ...dense, attention_bias: "false" }, "CONFIG_UNSUPPORTED", ["attention_bias"]],
    [{ ...dense, use_sliding_window: true, sliding_window: 4096 }, "CONFIG_UNSUPPORTED", [
      "use_sliding_window",
    ]],
    [{ ...dense, layer_types: sliding.with(30, "sliding_attention") }, "CONFIG_UNSUPPORTED", [
      "layer_types[30]",
      "sliding_attention",
    ]],
    [{ ...dense, layer_types: sliding.slice(1) }, "CONFIG_UNSUPPORTED", ["layer_types"]],
    [{ ...dense, tie_word_embeddings: "yes" }, "CONFIG_UNSUPPORTED", ["tie_word_embeddings"]],
    // HF 4.5x builds an epsilon of zero or below (no validation): a model that runs, not modelled,
    // so NOT_VERIFIED rather than a FAIL; null (None to HF) fails at run time.
    [{ ...dense, rms_norm_eps: 0 }, "CONFIG_UNSUPPORTED", ["rms_norm_eps", "not modelled"]],
    [{ ...dense, rms_norm_eps: -1e-6 }, "CONFIG_UNSUPPORTED", ["rms_norm_eps"]],
    [{ ...dense, rms_norm_eps: null }, "CONFIG_FIELD", ["rms_norm_eps"]],
    [{ ...dense, head_dim: null }, "CONFIG_FIELD", ["head_dim"]],
    [{ ...dense, head_dim: 127 }, "CONFIG_FIELD", ["head_dim"]],
    // Fields nothing here reads: refused, never ignored.
    [{ ...dense, quantization_config: { quant_method: "fp8" } }, "CONFIG_UNSUPPORTED", [
      "quantization_config",
    ]],
    [{ ...dense, auto_map: { AutoModel: "x.Model" } }, "CONFIG_UNSUPPORTED", ["auto_map"]],
    [{ ...dense, partial_rotary_factor: 0.5 }, "CONFIG_UNSUPPORTED", ["partial_rotary_factor"]],
    [{ ...dense, num_experts: 8 }, "CONFIG_UNSUPPORTED", ["num_experts", "qwen3"]],
    // MoE fields.
    [{ ...moe, num_experts_per_tok: 129 }, "CONFIG_FIELD", ["num_experts_per_tok"]],
    [{ ...moe, norm_topk_prob: 1 }, "CONFIG_UNSUPPORTED", ["norm_topk_prob"]],
    [{ ...moe, decoder_sparse_step: 0 }, "CONFIG_FIELD", ["decoder_sparse_step"]],
    [{ ...moe, mlp_only_layers: ["0"] }, "CONFIG_FIELD", ["mlp_only_layers"]],
    [{ ...moe, num_experts: 0 }, "CONFIG_UNSUPPORTED", ["num_experts 0"]],
    [{ ...moe, num_key_value_heads: null }, "CONFIG_FIELD", ["num_key_value_heads"]],
    // A size HF would take from its config class's defaults: not modelled.
    [{ ...dense, hidden_size: undefined }, "CONFIG_UNSUPPORTED", ["hidden_size", "absent"]],
    [{ ...moe, moe_intermediate_size: undefined }, "CONFIG_UNSUPPORTED", [
      "moe_intermediate_size",
    ]],
    [{ ...moe, num_local_experts: 64 }, "CONFIG_FIELD", ["num_experts", "num_local_experts"]],
    [{ ...moe, shared_expert_intermediate_size: 512 }, "CONFIG_UNSUPPORTED", [
      "shared_expert_intermediate_size",
    ]],
  ];
  for (const [config, code, names] of cases) assertRefused(config, code, names);
});

Deno.test("parseDecoderConfig() reads every field that changes the numbers and ignores only harmless ones", () => {
  const dense = fixture("qwen3-4b.transformers-5");
  const moe = fixture("qwen3-30b-a3b.transformers-5");
  const base = parseDecoderConfig(dense);
  const baseMoe = parseDecoderConfig(moe);
  // Harmless: ids, training-only and run-time switches. (A window that is off is read: releases
  // before 4.57 keep it; so is pad_token_id, HF's padding_idx.)
  const harmless = {
    max_window_layers: 28,
    attention_dropout: 0.1,
    initializer_range: 1,
    use_cache: false,
    output_attentions: false,
    eos_token_id: [151645, 151643],
    _name_or_path: "Qwen/Qwen3-4B",
    torch_dtype: "bfloat16", // both names, agreeing
  };
  assert.deepStrictEqual(parseDecoderConfig({ ...dense, ...harmless }), base);
  const moeHarmless = { router_aux_loss_coef: 0.5, output_router_logits: true };
  assert.deepStrictEqual(parseDecoderConfig({ ...moe, ...moeHarmless }), baseMoe);
  // Read: each of these changes the parsed config.
  const changes: [Record<string, unknown>, Partial<Record<keyof typeof base, unknown>>][] = [
    [{ tie_word_embeddings: false }, { tieWordEmbeddings: false }],
    [{ rms_norm_eps: 1e-5 }, { rmsNormEps: "0.00001" }],
    [{ head_dim: 64 }, { headDim: 64 }],
    // Not read by HF's default RoPE, but vLLM's longest sequence (max_model_len) comes from it.
    [{ max_position_embeddings: 262144 }, { maxPositionEmbeddings: 262144 }],
    [{ rope_parameters: { rope_type: "default", rope_theta: 5e6 } }, { ropeTheta: "5000000" }],
    // Not read by the forward: a window the config turns off, which Transformers before 4.57
    // keeps (`keptWindowGap`), and the embedding's padding_idx (`hfRefusal`).
    [{ sliding_window: 4096 }, { keptSlidingWindow: 4096 }],
    [{ pad_token_id: 0 }, { padTokenId: 0 }],
  ];
  for (const [patch, want] of changes) {
    assert.deepStrictEqual(parseDecoderConfig({ ...dense, ...patch }), { ...base, ...want });
  }
  const moeChanges: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ norm_topk_prob: false }, { normTopkProb: false }],
    [{ num_experts_per_tok: 4 }, { topK: 4 }],
    [{ decoder_sparse_step: 2 }, { decoderSparseStep: 2 }],
    [{ mlp_only_layers: [47, 0] }, { mlpOnlyLayers: [0, 47] }],
    // An index past the last layer names no layer (HF's rule never meets it).
    [{ mlp_only_layers: [48, 0] }, { mlpOnlyLayers: [0, 48] }],
  ];
  for (const [patch, want] of moeChanges) {
    assert.deepStrictEqual(parseDecoderConfig({ ...moe, ...patch }).moe, {
      ...baseMoe.moe,
      ...want,
    });
  }
  // Transformers 5's `num_local_experts` names the same count; alone, it is read so by 5.x only
  // (4.5x reads num_experts, default 128).
  const { num_experts: _, ...renamed } = moe;
  const { expertsTransformers5Only, ...local } = parseDecoderConfig({
    ...renamed,
    num_local_experts: 128,
  });
  assert.equal(expertsTransformers5Only, true);
  assert.deepStrictEqual(local, baseMoe);
  assert.deepStrictEqual(parseDecoderConfig({ ...moe, num_local_experts: 128 }), baseMoe);
  // Indices no layer has (negative ones too: Python's `in` reads none from the end), a step past
  // the last layer (every layer dense) are what HF builds; a window that is off is what fixed
  // releases build (0 too), kept as one every key length reaches for the releases before.
  assert.deepStrictEqual(parseDecoderConfig({ ...moe, mlp_only_layers: [-1] }).moe, {
    ...baseMoe.moe,
    mlpOnlyLayers: [-1],
  });
  const sparse = parseDecoderConfig({ ...moe, decoder_sparse_step: 49 });
  assert.ok([...Array(48).keys()].every((i) => !isMoeLayer(sparse, i)));
  assert.deepStrictEqual(parseDecoderConfig({ ...dense, sliding_window: 0 }), {
    ...base,
    keptSlidingWindow: 0,
  });
  // head_dim when absent: 128 for qwen3 (DecoderConfig's default), hidden / heads for qwen3_moe.
  const { head_dim: _d, ...noHeadDim } = dense;
  assert.equal(parseDecoderConfig({ ...noHeadDim, hidden_size: 1024 }).headDim, 128);
  const { head_dim: _m, ...noMoeHeadDim } = moe;
  assert.equal(parseDecoderConfig(noMoeHeadDim).headDim, 2048 / 32);
});

Deno.test("parseDecoderConfig() codes split into not modelled (CONFIG_UNSUPPORTED) and malformed", () => {
  const v5 = fixture("qwen3-0.6b.transformers-5");
  const yarn = { ...v5, rope_parameters: { rope_type: "yarn", factor: 4, rope_theta: 1e6 } };
  const code = (c: unknown) => {
    try {
      parseDecoderConfig(c);
    } catch (e) {
      if (e instanceof InputError) return e.code;
    }
    return "none";
  };
  assert.equal(code(yarn), UNSUPPORTED); // a feature of Qwen3 this version does not model
  assert.equal(code({ ...v5, rms_norm_eps: "x" }), "CONFIG_FIELD");
  assert.equal(code({ ...v5, vocab_size: undefined }), UNSUPPORTED); // HF's class default
  assert.equal(code({ ...v5, quantization_config: {} }), UNSUPPORTED);
  assert.equal(code({ ...v5, num_hidden_layers: 0 }), "CONFIG_FIELD");
  assert.equal(code({ ...v5, model_type: "gpt2" }), "CONFIG_MODEL_TYPE");
  // Another family's type beside Qwen3's class: which class ran is not known (not modelled).
  assert.equal(code({ ...v5, model_type: "qwen2" }), UNSUPPORTED);
  // What HF runs unchanged is never malformed: a switch HF reads by truthiness is not modelled;
  // a window the class drops (use_sliding_window off) is read and ignored, whatever it holds.
  assert.equal(code({ ...v5, use_sliding_window: 0 }), UNSUPPORTED);
  assert.equal(code({ ...v5, tie_word_embeddings: 0 }), UNSUPPORTED);
  assert.equal(code({ ...v5, sliding_window: -1, max_window_layers: "all" }), "none");
  assert.equal(code({ ...v5, head_dim: 0 }), UNSUPPORTED);
});

Deno.test("parseDecoderConfig(): MoE values HF builds though nobody deploys them are not modelled (CONFIG_UNSUPPORTED, named), not malformed; what no release builds stays malformed", () => {
  const moe = fixture("qwen3-30b-a3b.transformers-4.51");
  // Each was CONFIG_FIELD, a FAIL of a record whose model HF runs.
  const unmodelled: [Record<string, unknown>, string][] = [
    [{ decoder_sparse_step: -1 }, "decoder_sparse_step -1"],
    [{ decoder_sparse_step: -2 }, "decoder_sparse_step -2"],
    [{ num_experts: -1 }, "num_experts -1"],
    [{ num_experts: 0 }, "num_experts 0"],
    [{ num_local_experts: -1, num_experts: undefined }, "num_local_experts -1"],
    [{ num_experts_per_tok: 0 }, "num_experts_per_tok 0"],
    [{ mlp_only_layers: [0, 1.5] }, "mlp_only_layers[1] '1.5'"],
    [{ mlp_only_layers: [0, 1e20] }, "mlp_only_layers[1] '100000000000000000000'"],
  ];
  for (const [patch, name] of unmodelled) assertRefused({ ...moe, ...patch }, UNSUPPORTED, [name]);
  const malformed: [Record<string, unknown>, string][] = [
    [{ decoder_sparse_step: 0 }, "decoder_sparse_step"], // ZeroDivisionError
    [{ decoder_sparse_step: "1" }, "decoder_sparse_step"],
    [{ num_experts: "8" }, "num_experts"],
    [{ num_experts: 2.5 }, "num_experts"],
    [{ num_experts_per_tok: -1 }, "num_experts_per_tok"], // torch.topk refuses
    [{ mlp_only_layers: [0, null] }, "mlp_only_layers"],
    [{ mlp_only_layers: [true] }, "mlp_only_layers"],
    [{ mlp_only_layers: 0 }, "mlp_only_layers"],
  ];
  for (const [patch, name] of malformed) {
    assertRefused({ ...moe, ...patch }, "CONFIG_FIELD", [name]);
  }
});

Deno.test("parseDecoderConfig(..., { unmodelled: 'read' }) gives such a config with the reason, its layers sparse where HF makes them so", () => {
  const read = (patch: Record<string, unknown>) =>
    parseDecoderConfig({ ...TINY_MOE, num_hidden_layers: 4, mlp_only_layers: [], ...patch }, {
      unmodelled: "read",
    });
  const sparse = (c: ReturnType<typeof read>) => [0, 1, 2, 3].filter((i) => isMoeLayer(c, i));
  // Python: (i + 1) % -2 == 0 where 2 divides i + 1.
  const step = read({ decoder_sparse_step: -2 });
  assert.match(step.unmodelled ?? "", /^decoder_sparse_step -2 .* is not modelled for qwen3_moe$/);
  assert.deepStrictEqual(sparse(step), [1, 3]);
  assert.deepStrictEqual(sparse(read({ num_experts: -1 })), []);
  assert.deepStrictEqual(sparse(read({ mlp_only_layers: [0, 1.5, 1e20] })), [1, 2, 3]);
  assert.deepStrictEqual(sparse(read({ num_experts_per_tok: 0 })), [0, 1, 2, 3]);
  const two = read({ num_experts: -1, decoder_sparse_step: -1 }).unmodelled ?? "";
  assert.match(two, /num_experts -1 .*, decoder_sparse_step -1 .* are not modelled/);
  // A config with none of them reads as always; a malformed value is refused all the same.
  assert.equal(read({}).unmodelled, undefined);
  assert.throws(
    () => read({ decoder_sparse_step: 0 }),
    (e: unknown) => e instanceof InputError && e.code === "CONFIG_FIELD",
  );
});

Deno.test("parseDecoderConfig(): an mlp_only_layers entry written as a float is marked (Transformers 5's typed config refuses it); 1.0 is layer 1, as Python's `in` reads it", () => {
  const text = JSON.stringify({ ...TINY_MOE, num_hidden_layers: 3, mlp_only_layers: [0, 99] });
  const parse = (t: string) =>
    parseDecoderConfig(parseCheckpointJson(new TextEncoder().encode(t), "config.json"));
  const plain = parse(text);
  assert.equal(plain.mlpOnlyLayersTransformers4Only, undefined);
  const float = parse(text.replace('"mlp_only_layers":[0,99]', '"mlp_only_layers":[0,1.0]'));
  assert.equal(float.mlpOnlyLayersTransformers4Only, true);
  assert.deepStrictEqual(float.moe?.mlpOnlyLayers, [0, 1]);
  assert.deepStrictEqual([0, 1, 2].map((i) => isMoeLayer(float, i)), [false, false, true]);
  const exp = parse(text.replace('"mlp_only_layers":[0,99]', '"mlp_only_layers":[0,9.9e1]'));
  assert.equal(exp.mlpOnlyLayersTransformers4Only, true);
});
