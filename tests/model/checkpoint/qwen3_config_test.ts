import assert from "node:assert/strict";
import { isMoeLayer, parseQwen3Config } from "../../../src/model/mod.ts";
import { InputError } from "../../../src/errors.ts";
import { TINY_DENSE, TINY_MOE } from "./_checkpoint_fixture.ts";

const ROOT = new URL("../../../", import.meta.url);
const bundled = (name: string) =>
  parseQwen3Config(
    JSON.parse(Deno.readTextFileSync(new URL(`profiles/models/${name}.config.json`, ROOT))),
  );

Deno.test("parseQwen3Config() reads the published Qwen3-0.6B, 4B and 30B-A3B shapes", () => {
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

Deno.test("parseQwen3Config() refuses unmodelled features by name", () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ model_type: "llama" }, "CONFIG_MODEL_TYPE", "llama"],
    [{ architectures: ["Qwen2ForCausalLM"] }, "CONFIG_MODEL_TYPE", "Qwen2ForCausalLM"],
    [{ rope_scaling: { rope_type: "yarn", factor: 4 } }, "CONFIG_UNSUPPORTED", "rope_scaling"],
    [{ attention_bias: true }, "CONFIG_UNSUPPORTED", "attention_bias"],
    [{ use_sliding_window: true }, "CONFIG_UNSUPPORTED", "use_sliding_window"],
    [{ hidden_act: "gelu" }, "CONFIG_UNSUPPORTED", "hidden_act"],
    [{ torch_dtype: "float16" }, "CONFIG_UNSUPPORTED", "dtype"],
    [{ num_key_value_heads: 3 }, "CONFIG_FIELD", "num_key_value_heads"],
    [{ hidden_size: -1 }, "CONFIG_FIELD", "hidden_size"],
  ];
  for (const [patch, code, name] of cases) {
    assert.throws(() => parseQwen3Config({ ...TINY_DENSE, ...patch }), (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.equal(e.code, code, name);
      assert.ok(e.message.includes(name), `${e.message} does not name ${name}`);
      return true;
    });
  }
});

Deno.test("isMoeLayer() follows decoder_sparse_step and mlp_only_layers", () => {
  const c = parseQwen3Config({ ...TINY_MOE, num_hidden_layers: 4, decoder_sparse_step: 2 });
  assert.deepStrictEqual([0, 1, 2, 3].map((i) => isMoeLayer(c, i)), [false, true, false, true]);
  const d = parseQwen3Config(TINY_MOE);
  assert.deepStrictEqual([0, 1].map((i) => isMoeLayer(d, i)), [false, true]);
  assert.deepStrictEqual(isMoeLayer(parseQwen3Config(TINY_DENSE), 1), false);
});
