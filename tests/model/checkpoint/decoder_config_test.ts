/**
 * The decoder description of each supported family, from the published configs in the layouts
 * of Transformers 4.4x and 5: the two layouts give the same description, and each family's
 * facts (QK-norm, biases, RoPE scaling, head dim, tied embeddings) are the modeling code's.
 */
import assert from "node:assert/strict";
import { configReadingGap, parseDecoderConfig } from "../../../src/model/mod.ts";
import { type InputCode, InputError } from "../../../src/errors.ts";
import { assertCode } from "../../_assert_code.ts";

const DIR = new URL("./fixtures/hf_configs/", import.meta.url);
const read = async (name: string) =>
  JSON.parse(await Deno.readTextFile(new URL(name, DIR))) as Record<string, unknown>;

const LLAMA3 = {
  kind: "llama3",
  lowFreqFactor: 1,
  highFreqFactor: 4,
  originalMaxPositions: 8192,
} as const;

const CASES = [
  {
    name: "llama-3.1-8b",
    want: {
      modelType: "llama",
      headDim: 128,
      qkNorm: false,
      bias: { qkv: false, o: false, mlp: false },
      ropeTheta: "500000",
      ropeScaling: { ...LLAMA3, factor: 8 },
      tieWordEmbeddings: false,
      rmsNormEps: "0.00001",
    },
  },
  {
    name: "llama-3.2-1b",
    want: {
      modelType: "llama",
      headDim: 64,
      qkNorm: false,
      bias: { qkv: false, o: false, mlp: false },
      ropeTheta: "500000",
      ropeScaling: { ...LLAMA3, factor: 32 },
      tieWordEmbeddings: true,
      rmsNormEps: "0.00001",
    },
  },
  {
    name: "qwen2.5-7b",
    want: {
      modelType: "qwen2",
      headDim: 128,
      qkNorm: false,
      bias: { qkv: true, o: false, mlp: false },
      ropeTheta: "1000000",
      tieWordEmbeddings: false,
      rmsNormEps: "0.000001",
    },
  },
  {
    name: "mistral-7b-v0.3",
    want: {
      modelType: "mistral",
      headDim: 128,
      qkNorm: false,
      bias: { qkv: false, o: false, mlp: false },
      ropeTheta: "1000000",
      tieWordEmbeddings: false,
      rmsNormEps: "0.00001",
    },
  },
] as const;

for (const { name, want } of CASES) {
  Deno.test(`parseDecoderConfig() reads ${name} in both Transformers layouts alike`, async () => {
    const old = parseDecoderConfig(await read(`${name}.transformers-4.4x.json`));
    const { ropeTransformers5Only, ...v5 } = parseDecoderConfig(
      await read(`${name}.transformers-5.json`),
    );
    assert.deepEqual(v5, old);
    // The 5 layout gives the RoPE in rope_parameters alone: 4.5x would not read it.
    assert.equal(ropeTransformers5Only, true);
    assert.equal(old.ropeTransformers5Only, undefined);
    const picked = Object.fromEntries(Object.keys(want).map((k) => [k, (old as never)[k]]));
    assert.deepEqual(picked, want);
    if (!("ropeScaling" in want)) assert.equal(old.ropeScaling, undefined);
  });
}

Deno.test("parseDecoderConfig(): Qwen3 keeps QK-norm and no biases; attention_bias sets q/k/v/o", async () => {
  const c = await read("qwen3-4b.transformers-4.51.json");
  const plain = parseDecoderConfig(c);
  assert.equal(plain.qkNorm, true);
  assert.deepEqual(plain.bias, { qkv: false, o: false, mlp: false });
  assert.deepEqual(parseDecoderConfig({ ...c, attention_bias: true }).bias, {
    qkv: true,
    o: true,
    mlp: false,
  });
  const llama = await read("llama-3.1-8b.transformers-4.4x.json");
  assert.deepEqual(parseDecoderConfig({ ...llama, mlp_bias: true }).bias.mlp, true);
});

Deno.test("parseDecoderConfig() refuses what is not modelled by name, and contradictions", async () => {
  const llama = await read("llama-3.1-8b.transformers-4.4x.json");
  const mistral = await read("mistral-7b-v0.3.transformers-4.4x.json");
  const qwen2 = await read("qwen2.5-7b.transformers-4.4x.json");
  const refused: [Record<string, unknown>, InputCode, RegExp][] = [
    [{ ...llama, rope_scaling: { rope_type: "yarn", factor: 4 } }, "CONFIG_UNSUPPORTED", /yarn/],
    // A name an object inherits is no rope type either (it was read from the prototype).
    [
      { ...llama, rope_scaling: { rope_type: "constructor", factor: 2 } },
      "CONFIG_UNSUPPORTED",
      /constructor.* is not modelled/,
    ],
    [
      { ...llama, rope_scaling: { rope_type: "toString", factor: 2 } },
      "CONFIG_UNSUPPORTED",
      /toString/,
    ],
    // A null type names no RoPE (every engine fails on it); beside a string type, 4.5x copies
    // that over while 5.x and vLLM refuse the null.
    [{ ...llama, rope_scaling: { rope_type: null } }, "CONFIG_FIELD", /rope_type is null/],
    [{ ...qwen2, rope_scaling: { type: null } }, "CONFIG_FIELD", /type is null/],
    [
      { ...llama, rope_scaling: { rope_type: "default", type: null } },
      "CONFIG_UNSUPPORTED",
      /type null beside rope_type '"default"'/,
    ],
    [
      { ...llama, rope_scaling: { rope_type: "linear", type: null, factor: 2 } },
      "CONFIG_UNSUPPORTED",
      /not modelled/,
    ],
    [{ ...llama, pretraining_tp: 2 }, "CONFIG_UNSUPPORTED", /pretraining_tp/],
    [{ ...llama, foo_bar: 1 }, "CONFIG_UNSUPPORTED", /field 'foo_bar' is not modelled/],
    [{ ...mistral, sliding_window: 4096 }, "CONFIG_UNSUPPORTED", /sliding_window/],
    [{ ...qwen2, use_sliding_window: true }, "CONFIG_UNSUPPORTED", /use_sliding_window/],
    [{ ...qwen2, mlp_bias: true }, "CONFIG_UNSUPPORTED", /mlp_bias/],
    [{ ...llama, model_type: "gemma" }, "CONFIG_MODEL_TYPE", /gemma/],
    // Another class than the family's: which one ran is not known (HF reads model_type, vLLM
    // the list); not modelled, no evidence against a record.
    [{ ...llama, architectures: ["MistralForCausalLM"] }, "CONFIG_UNSUPPORTED", /architectures/],
    // HF only warns, then divides by the factors' difference: not modelled, not malformed.
    [
      { ...llama, rope_scaling: { ...(llama.rope_scaling as object), high_freq_factor: 0.5 } },
      "CONFIG_UNSUPPORTED",
      /high_freq_factor/,
    ],
    // Numbers HF only warns about and computes with (an honest record over them is no malformed
    // checkpoint, so not a FAIL): not modelled.
    ...[8192.5, 0, 2 ** 31].map((n): [Record<string, unknown>, InputCode, RegExp] => [
      {
        ...llama,
        rope_scaling: { ...(llama.rope_scaling as object), original_max_position_embeddings: n },
      },
      "CONFIG_UNSUPPORTED",
      /original_max_position_embeddings .* HF computes with it/,
    ]),
    [{ ...llama, rope_theta: 0 }, "CONFIG_UNSUPPORTED", /rope_theta '0' is not positive/],
    [
      { ...llama, rope_scaling: { rope_type: "linear", factor: -2 } },
      "CONFIG_UNSUPPORTED",
      /factor '-2' is not positive/,
    ],
    // Python computes with True as 1 (a width of one): not modelled.
    [{ ...llama, intermediate_size: true }, "CONFIG_UNSUPPORTED", /is a boolean/],
    // So it does where a positive number goes (theta, scaling factors, epsilon): not modelled.
    [{ ...llama, rope_theta: true }, "CONFIG_UNSUPPORTED", /rope_theta 'true' is a boolean/],
    [{ ...llama, rms_norm_eps: false }, "CONFIG_UNSUPPORTED", /rms_norm_eps 'false' is a boolean/],
    [
      { ...llama, rope_scaling: { ...(llama.rope_scaling as object), low_freq_factor: true } },
      "CONFIG_UNSUPPORTED",
      /low_freq_factor 'true' is a boolean \(Python computes with it as 1\)/,
    ],
    // What is no number at all stays malformed.
    [
      { ...llama, rope_scaling: { rope_type: "linear", factor: "2" } },
      "CONFIG_FIELD",
      /must be a positive number/,
    ],
    [
      {
        ...llama,
        rope_scaling: {
          ...(llama.rope_scaling as object),
          original_max_position_embeddings: "8192",
        },
      },
      "CONFIG_FIELD",
      /must be an integer/,
    ],
  ];
  for (const [json, code, message] of refused) {
    assertCode(() => parseDecoderConfig(json), InputError, code);
    assert.throws(() => parseDecoderConfig(json), message);
  }
  // num_key_value_heads is only divided by: False is 0 (malformed), True one head.
  assertCode(
    () => parseDecoderConfig({ ...llama, num_key_value_heads: false }),
    InputError,
    "CONFIG_FIELD",
  );
  const kvTrue = parseDecoderConfig({ ...llama, num_key_value_heads: true });
  assert.equal(kvTrue.kvHeads, 1);
  // Transformers 5 reads it as one head or refuses it, by its huggingface_hub release (1.9's
  // @strict rejects a bool for an int): another reading on 5.x, none on 4.5x.
  assert.match(configReadingGap(kvTrue, "5.x") ?? "", /num_key_value_heads as true/);
  assert.equal(configReadingGap(kvTrue, "4.57.x"), null);
  assert.equal(
    configReadingGap(parseDecoderConfig({ ...llama, num_key_value_heads: 1 }), "5.x"),
    null,
  );
  // An empty list names no class, as null does: read (vLLM refuses it, `vllmRefusal`).
  assert.equal(parseDecoderConfig({ ...llama, architectures: [] }).noArchitectures, true);
  const linear = parseDecoderConfig({ ...llama, rope_scaling: { rope_type: "linear", factor: 2 } });
  assert.deepEqual(linear.ropeScaling, { kind: "linear", factor: 2 });
  // rope_scaling beside rope_parameters: both generations read rope_scaling (5.x: `rope_scaling or
  // rope_parameters`), so the other section is not read.
  const both = parseDecoderConfig({
    ...llama,
    rope_parameters: { rope_type: "linear", factor: 8, rope_theta: 500000 },
  });
  assert.deepEqual(both, parseDecoderConfig(llama));
  // llama3 without original_max_position_embeddings: 5.x takes max_position_embeddings (4.5x
  // cannot load the file), so the RoPE is 5.x's only.
  const { original_max_position_embeddings: _o, ...rest } = llama.rope_scaling as Record<
    string,
    unknown
  >;
  const filled = parseDecoderConfig({ ...llama, rope_scaling: rest });
  assert.equal(
    (filled.ropeScaling as { originalMaxPositions: number }).originalMaxPositions,
    llama.max_position_embeddings,
  );
  assert.equal(filled.ropeTransformers5Only, true);
});

Deno.test("parseDecoderConfig(): num_key_value_heads and head_dim as each config class reads them", async () => {
  const llama = await read("llama-3.1-8b.transformers-4.4x.json");
  const mistral = await read("mistral-7b-v0.3.transformers-4.4x.json");
  const qwen2 = await read("qwen2.5-7b.transformers-4.4x.json");
  const without = (c: Record<string, unknown>) => {
    const { num_key_value_heads: _, ...rest } = c;
    return rest;
  };
  // Absent: the class's own default (Mistral 8, Qwen2 32), or the heads (Llama); null: the heads.
  assert.equal(parseDecoderConfig(without(mistral)).kvHeads, 8);
  assert.equal(parseDecoderConfig({ ...without(qwen2), num_attention_heads: 32 }).kvHeads, 32);
  assert.equal(parseDecoderConfig(without(llama)).kvHeads, llama.num_attention_heads);
  assert.equal(parseDecoderConfig({ ...mistral, num_key_value_heads: null }).kvHeads, 32);
  // A null head_dim: the default for Llama and Mistral; Qwen2's class reads None and fails.
  assert.equal(parseDecoderConfig({ ...mistral, head_dim: null }).headDim, 128);
  assert.throws(
    () => parseDecoderConfig({ ...qwen2, head_dim: null }),
    (e) => e instanceof InputError && e.code === "CONFIG_FIELD",
  );
  // head_dim absent: hidden // heads, floored as Python's // floors (5120 / 48 -> 106).
  const { head_dim: _h, ...noHead } = mistral;
  const odd = parseDecoderConfig({
    ...noHead,
    hidden_size: 5120,
    num_attention_heads: 48,
    num_key_value_heads: 8,
  });
  assert.equal(odd.headDim, 106);
});

Deno.test("parseDecoderConfig() refuses an explicit null rms_norm_eps, hidden_act or rope_theta (HF keeps None and fails), where absent is the default", async () => {
  const qwen3 = await read("qwen3-0.6b.transformers-4.51.json");
  const v5 = await read("qwen3-0.6b.transformers-5.json");
  const nulls: [Record<string, unknown>, RegExp][] = [
    [{ ...qwen3, rms_norm_eps: null }, /rms_norm_eps must be a positive number, got 'null'/],
    [{ ...qwen3, hidden_act: null }, /hidden_act is null/],
    [{ ...qwen3, rope_theta: null }, /rope_theta must be a positive number, got 'null'/],
    [
      { ...v5, rope_parameters: { ...(v5.rope_parameters as object), rope_theta: null } },
      /rope_parameters\.rope_theta must be a positive number, got 'null'/,
    ],
  ];
  for (const [json, message] of nulls) {
    assertCode(() => parseDecoderConfig(json), InputError, "CONFIG_FIELD");
    assert.throws(() => parseDecoderConfig(json), message);
  }
  const { rms_norm_eps: _e, hidden_act: _a, rope_theta: _t, ...absent } = qwen3;
  const c = parseDecoderConfig(absent);
  assert.equal(c.rmsNormEps, "0.000001");
  assert.equal(c.ropeTheta, "10000");
});
