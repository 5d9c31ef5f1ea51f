/**
 * Which stored tensors beyond the config's model vLLM 0.11's loaders refuse (`vllmRefusedTensor`):
 * Qwen's by name, Llama's and Mistral's (one class, `LlamaForCausalLM`) after the Mistral-format
 * renaming of `maybe_remap_mistral` (`llama.py` at c3124680), where a name renamed onto one of
 * the model's tensors is loaded over it, not refused.
 */
import assert from "node:assert/strict";
import { parseDecoderConfig, vllmRefusedTensor } from "../../../src/model/mod.ts";

const config = (dir: string) =>
  parseDecoderConfig(JSON.parse(Deno.readTextFileSync(`tables/models/${dir}/config.json`)));

Deno.test("vllmRefusedTensor(): Llama and Mistral refuse a name their loader has no parameter for after its Mistral-format renaming", () => {
  for (const dir of ["llama3-tiny", "mistral-tiny"]) {
    const c = config(dir);
    const refused = [
      "model.extra",
      "foo.weight",
      // layers -> model.layers, feed_forward -> mlp: no such parameter
      "layers.0.feed_forward.extra.weight",
      // `scale` inside the name (not a kv-scale suffix) is looked up as is
      "model.layers.0.scale_extra.weight",
    ];
    for (const name of refused) assert.equal(vllmRefusedTensor(c, [name]), name, `${dir} ${name}`);
    const loadedOrSkipped = [
      // renamed onto the model's tensors: loaded over them
      "norm.weight",
      "tok_embeddings.weight",
      "model.layers.0.attention.wq.weight",
      "layers.1.attention_norm.weight",
      "layers.0.feed_forward.w2.weight",
      // lm_head (tied: skipped; untied: loaded over it)
      "output.weight",
      // skipped or not provably refused
      "model.layers.0.mlp.extra.bias",
      "model.layers.0.self_attn.rotary_emb.inv_freq",
      "model.layers.0.self_attn.k_scale",
      "model.layers.0.self_attn.extra_q_proj.weight",
    ];
    for (const name of loadedOrSkipped) {
      assert.equal(vllmRefusedTensor(c, [name]), null, `${dir} ${name}`);
    }
    assert.equal(vllmRefusedTensor(c, ["norm.weight", "model.extra"]), "model.extra", dir);
  }
});

Deno.test("vllmRefusedTensor(): Qwen's loaders take names as they are (no Mistral-format renaming)", () => {
  const c = config("qwen3-tiny-dense");
  // No child `norm` or `layers` of the model: AutoWeightsLoader raises.
  for (const name of ["norm.weight", "layers.0.attention.wq.weight"]) {
    assert.equal(vllmRefusedTensor(c, [name]), name);
  }
  // An expert past num_experts reaches the MoE loader's expert mapping: not provably refused.
  const moe = config("qwen3-tiny-moe");
  const past = `model.layers.1.mlp.experts.${moe.moe!.experts}.down_proj.weight`;
  assert.equal(vllmRefusedTensor(moe, [past]), null);
  assert.equal(vllmRefusedTensor(moe, [past, "model.extra"]), "model.extra");
});

Deno.test("vllmRefusedTensor(): a Llama-class name too long for the renaming to be read is never read as refused (the renaming's cost grows with its square)", () => {
  const name = "kv_fake_quantizer.qscale_act.".repeat(40) + "x"; // 1,161 characters
  assert.equal(vllmRefusedTensor(config("mistral-tiny"), [name]), null);
  assert.equal(vllmRefusedTensor(config("mistral-tiny"), [name.slice(-1000)]), name.slice(-1000));
});
