/**
 * What HF Transformers refuses to build though the config parses: a pad token outside the
 * vocabulary, and (Transformers 5, whose typed config checks `mlp_only_layers: list[int]` and
 * `decoder_sparse_step: int`) an `mlp_only_layers` entry or a `decoder_sparse_step` written as a
 * float; and (Transformers 4.5x, and vLLM by its own set) a `rope_scaling` type it builds no RoPE
 * of.
 */
import assert from "node:assert/strict";
import {
  hfRefusal,
  parseCheckpointJson,
  parseDecoderConfig,
  stackLoadRefusal,
} from "../../../src/model/mod.ts";
import { TINY_MOE } from "./_checkpoint_fixture.ts";

Deno.test("hfRefusal(): an mlp_only_layers entry written as a float is refused by Transformers 5 alone", () => {
  const text = JSON.stringify({ ...TINY_MOE, mlp_only_layers: [0] });
  const read = (t: string) =>
    parseDecoderConfig(parseCheckpointJson(new TextEncoder().encode(t), "config.json"), {
      unmodelled: "read",
    });
  const plain = read(text);
  for (const entries of ["[0.0]", "[0,1.5]", "[0,1e20]"]) {
    const c = read(text.replace('"mlp_only_layers":[0]', `"mlp_only_layers":${entries}`));
    assert.match(
      hfRefusal(c, { transformers: "5.x" }) ?? "",
      /mlp_only_layers entry as a float, which Transformers 5's typed config refuses/,
      entries,
    );
    for (const v4 of ["4.5x", "4.57.x", undefined]) {
      assert.equal(hfRefusal(c, { transformers: v4 }), null, `${entries} on ${v4}`);
    }
    // vLLM reads the config through Transformers 4.5x.
    const vllm = { id: "v", components: { vllm: "0.11.0" } };
    assert.equal(stackLoadRefusal(vllm, { config: c, pp: 1 }), null, entries);
  }
  assert.equal(hfRefusal(plain, { transformers: "5.x" }), null);
  // An integer written in full, however large, is a Python int: 5.x reads it.
  const big = read(
    text.replace('"mlp_only_layers":[0]', '"mlp_only_layers":[0,100000000000000000000]'),
  );
  assert.equal(hfRefusal(big, { transformers: "5.x" }), null);
  assert.match(big.unmodelled ?? "", /mlp_only_layers\[1\] '100000000000000000000'/);
});

Deno.test("hfRefusal(): decoder_sparse_step written as a float is refused by Transformers 5 alone, as an mlp_only_layers entry is", () => {
  const text = JSON.stringify({ ...TINY_MOE, mlp_only_layers: [] });
  const read = (t: string) =>
    parseDecoderConfig(parseCheckpointJson(new TextEncoder().encode(t), "config.json"));
  for (const step of ["1.0", "1e0", "2.0"]) {
    const c = read(text.replace('"decoder_sparse_step":1', `"decoder_sparse_step":${step}`));
    assert.equal(c.moe?.decoderSparseStep, Number(step), step);
    for (const v5 of ["5.x", "5", "5.18.0"]) {
      assert.equal(
        hfRefusal(c, { transformers: v5 }),
        "the config writes decoder_sparse_step as a float, which Transformers 5's typed config " +
          "refuses (decoder_sparse_step: int): the model cannot be loaded",
        `${step} on ${v5}`,
      );
    }
    for (const v4 of ["4.5x", "4.57.6", undefined]) {
      assert.equal(hfRefusal(c, { transformers: v4 }), null, `${step} on ${v4}`);
    }
    // vLLM reads the config through Transformers 4.5x.
    const vllm = { id: "v", components: { vllm: "0.11.0" } };
    assert.equal(stackLoadRefusal(vllm, { config: c, pp: 1 }), null, step);
  }
  assert.equal(hfRefusal(read(text), { transformers: "5.x" }), null);
});

Deno.test("hfRefusal(): a rope_scaling missing keys Transformers 4.5x requires (empty; llama3 without original_max_position_embeddings) is refused by 4.5x and vLLM, naming the keys; Transformers 5 reads it", async () => {
  const read = async (name: string) =>
    JSON.parse(
      await Deno.readTextFile(new URL(`./fixtures/hf_configs/${name}.json`, import.meta.url)),
    );
  const qwen3 = await read("qwen3-0.6b.transformers-4.51");
  const llama = await read("llama-3.1-8b.transformers-4.4x");
  const { original_max_position_embeddings: _o, ...rest } = llama.rope_scaling;
  const vllm = { id: "v", components: { vllm: "0.11.0" } };
  const cases = [
    [{ ...qwen3, rope_scaling: {} }, "'rope_type'"],
    // Beside rope_parameters too: 4.5x reads the empty rope_scaling (5.x the other).
    [{ ...qwen3, rope_scaling: {}, rope_parameters: { rope_type: "default" } }, "'rope_type'"],
    [{ ...llama, rope_scaling: rest }, "'original_max_position_embeddings'"],
  ] as const;
  for (const [json, key] of cases) {
    const c = parseDecoderConfig(json);
    const why = `the config's rope_scaling lacks ${key}, which Transformers 4.5x requires (its ` +
      "RoPE validation raises KeyError 'Missing required keys in rope_scaling'): the model " +
      "cannot be loaded";
    for (const v4 of ["4.5x", "4.57.6", undefined]) {
      assert.equal(hfRefusal(c, { transformers: v4 }), why);
    }
    assert.equal(hfRefusal(c, { transformers: "5.x" }), null, key);
    assert.equal(
      stackLoadRefusal(vllm, { config: c, pp: 1 }),
      `stack 'v' runs vLLM: vLLM 0.11 reads the config through Transformers 4.5x, and ${why}`,
    );
  }
  // What 4.5x loads: a legacy `type`, a default type named, a complete llama3.
  for (
    const json of [
      { ...qwen3, rope_scaling: { type: "linear", factor: 2 } },
      { ...qwen3, rope_scaling: { rope_type: "default" } },
      llama,
    ]
  ) {
    const c = parseDecoderConfig(json);
    assert.equal(c.ropeTransformers4Missing, undefined);
    assert.equal(hfRefusal(c, { transformers: "4.5x" }), null);
    assert.equal(stackLoadRefusal(vllm, { config: c, pp: 1 }), null);
  }
});

Deno.test("hfRefusal(), vllmRefusal(): a rope_scaling type an engine builds no RoPE of is refused by Transformers 4.5x (ROPE_INIT_FUNCTIONS) and vLLM 0.11 (get_rope) each by its own set, quoting the type; a type they build stays not modelled; Transformers 5 is not read", async () => {
  const qwen3 = JSON.parse(
    await Deno.readTextFile(
      new URL("./fixtures/hf_configs/qwen3-0.6b.transformers-4.51.json", import.meta.url),
    ),
  );
  const vllm = { id: "v", components: { vllm: "0.11.0" } };
  const read = (rope_scaling: unknown) =>
    parseDecoderConfig({ ...qwen3, rope_scaling }, { unmodelled: "read" });
  const hf4 = (t: string) =>
    `the config's rope_scaling type ${t} is none Transformers 4.5x builds (default, linear, ` +
    "dynamic, yarn, longrope, llama3): its rotary embedding looks the type up in " +
    "ROPE_INIT_FUNCTIONS, a KeyError, so the model cannot be loaded";
  const v11 = (t: string) =>
    `stack 'v' runs vLLM: the config's rope_scaling type ${t} is none vLLM 0.11 builds (llama3, ` +
    "mllama4, default, linear, ntk, dynamic, yarn, deepseek_yarn, longrope, su, mrope): " +
    "get_rope raises 'Unknown RoPE scaling type'";
  const cases: [unknown, string | null, string | null][] = [
    [{ rope_type: "bogus" }, `'"bogus"'`, `'"bogus"'`],
    [{ type: "Linear", factor: 2 }, `'"Linear"'`, `'"Linear"'`],
    [{ rope_type: "bogus", type: "bogus" }, `'"bogus"'`, `'"bogus"'`],
    // Two types that differ: Qwen's config class copies `type` over `rope_type`, for 4.5x and
    // for vLLM, which loads the config through it.
    [{ rope_type: "bogus", type: "other" }, `'"other"'`, `'"other"'`],
    [{ rope_type: "ntk", type: "bogus" }, `'"bogus"'`, `'"bogus"'`],
    [{ rope_type: "yarn", type: "bogus" }, `'"bogus"'`, `'"bogus"'`],
    [{ rope_type: null, type: "bogus" }, `'"bogus"'`, `'"bogus"'`],
    [{ rope_type: "bogus", type: null }, "'null'", "'null'"],
    // The copied type is one both build: loaded (not modelled), refused by neither.
    [{ rope_type: "bogus", type: "default" }, null, null],
    [{ rope_type: "linear", type: "bogus" }, `'"bogus"'`, `'"bogus"'`],
    // vLLM's own types (and the legacy names it renames), which 4.5x does not build.
    [{ rope_type: "ntk", factor: 2 }, `'"ntk"'`, null],
    [{ rope_type: "deepseek_yarn", factor: 2 }, `'"deepseek_yarn"'`, null],
    [{ type: "su" }, `'"su"'`, null],
    // Types both build, not modelled here.
    [{ rope_type: "yarn", factor: 2, original_max_position_embeddings: 64 }, null, null],
    [{ rope_type: "dynamic", factor: 2 }, null, null],
    [{ type: "longrope", short_factor: [1], long_factor: [1] }, null, null],
  ];
  for (const [scaling, hfType, vllmType] of cases) {
    const what = JSON.stringify(scaling);
    const c = read(scaling);
    assert.match(c.unmodelled ?? "", /not modelled/, what);
    for (const v4 of ["4.5x", "4.57.6", undefined]) {
      assert.equal(hfRefusal(c, { transformers: v4 }), hfType === null ? null : hf4(hfType), what);
    }
    assert.equal(hfRefusal(c, { transformers: "5.x" }), null, what);
    assert.equal(
      stackLoadRefusal(vllm, { config: c, pp: 1 }),
      vllmType === null ? null : v11(vllmType),
      what,
    );
    // Read strictly, the config is refused as not modelled, as before.
    assert.throws(() => parseDecoderConfig({ ...qwen3, rope_scaling: scaling }), /not modelled/);
  }
  // The type is attacker text: quoted, clipped and kept to printable ASCII in the reason.
  const evil = "\u001b[2J\u202e" + "x".repeat(200);
  const why = hfRefusal(read({ rope_type: evil }), { transformers: "4.5x" }) ?? "";
  assert.match(why, /rope_scaling type '"\\u001b\[2J\?x{46}\.\.\.' is none/);
  assert.ok(why.length < 400 && /^[\x20-\x7e]*$/.test(why), why);
  const vwhy = stackLoadRefusal(vllm, { config: read({ type: evil }), pp: 1 }) ?? "";
  assert.ok(vwhy.includes("Unknown RoPE") && /^[\x20-\x7e]*$/.test(vwhy), vwhy);
  // A type neither names, or one not a string, keeps no type.
  for (const scaling of [{ factor: 2, beta: 1 }, { rope_type: 3 }]) {
    try {
      const c = read(scaling);
      assert.equal(c.ropeTypeKeys, undefined, JSON.stringify(scaling));
    } catch (e) {
      assert.match(String(e), /Cannot use config/);
    }
  }
});

Deno.test("hfRefusal(), stackLoadRefusal(): a Mistral rope_scaling's rope_type wins on Transformers 4.5x (its config class copies no type), and vLLM refuses a rope_type and a type that differ", () => {
  const mistral = {
    model_type: "mistral",
    architectures: ["MistralForCausalLM"],
    vocab_size: 64,
    hidden_size: 32,
    intermediate_size: 64,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    rms_norm_eps: 1e-5,
    rope_theta: 10000,
    sliding_window: null,
  };
  const vllm = { id: "v", components: { vllm: "0.11.0" } };
  const read = (rope_scaling: unknown) =>
    parseDecoderConfig({ ...mistral, rope_scaling }, { unmodelled: "read" });
  const conflict =
    /runs vLLM: the config's rope_scaling rope_type .* and type .* differ, and vLLM 0\.11 refuses the pair \('Found conflicts/;
  const cases: [unknown, RegExp | null, RegExp | null][] = [
    [{ rope_type: null, type: "bogus" }, /type 'null' is none Transformers 4\.5x builds/, conflict],
    [{ rope_type: "bogus", type: "default" }, /type '"bogus"' is none/, conflict],
    [{ rope_type: "yarn", type: "bogus" }, null, conflict],
    [{ rope_type: "default", type: "bogus" }, null, conflict],
    [{ rope_type: "bogus", type: "bogus" }, /type '"bogus"' is none/, /Unknown RoPE/],
    [{ type: "bogus" }, /type '"bogus"' is none/, /Unknown RoPE/],
  ];
  for (const [scaling, hf, v] of cases) {
    const what = JSON.stringify(scaling);
    const c = read(scaling);
    assert.match(c.unmodelled ?? "", /not modelled/, what);
    const why = hfRefusal(c, { transformers: "4.57.6" });
    if (hf === null) assert.equal(why, null, what);
    else assert.match(why ?? "", hf, what);
    assert.equal(hfRefusal(c, { transformers: "5.x" }), null, what);
    const vwhy = stackLoadRefusal(vllm, { config: c, pp: 1 });
    if (v === null) assert.equal(vwhy, null, what);
    else assert.match(vwhy ?? "", v, what);
  }
});
