/**
 * A checkpoint that stores a tensor its config's model does not have: vLLM 0.11's Qwen3 loader
 * raises for a name none of its skips reaches (`AutoWeightsLoader` for a first component that is
 * no child of the model, `Qwen2Model.load_weights`' `params_dict[name]` for a `model.` one), so a
 * record on a vLLM stack FAILs, honest or not; a name it skips (a `.bias` the model lacks) and any
 * on Transformers 4.5x, which drops it with a warning, stay NOT_VERIFIED, never PASS. (The
 * Llama class's reading, after its Mistral-format renaming, is tested on `vllmRefusedTensor`.)
 */
import assert from "node:assert/strict";
import { VLLM_STACK, type WeightEdit as Edit, weightEditStatuses } from "./_weight_edit_stack.ts";

/** The tensors with one more of this name (zeros). */
function extra(name: string): Edit {
  return (t) => [...t, { name, dtype: "BF16", shape: [2], data: new Uint16Array(2) }];
}

const REFUSED = ["model.extra", "model.layers.0.mlp.extra.weight", "foo.weight"];
const SKIPPED = "model.layers.0.mlp.extra.bias";

const statuses = (stack: object, edit: Edit) => weightEditStatuses(stack, edit, "extra");

Deno.test("vLLM: a tensor its Qwen3 loader has no parameter for FAILs (the loader refuses it)", async () => {
  for (const name of REFUSED) {
    for (const [who, status, why] of await statuses(VLLM_STACK, extra(name))) {
      assert.equal(status, "FAIL", `${name} ${who}: ${why}`);
      assert.ok(why.includes(`tensor '${name}' is not part of the config's model, and vLLM`), why);
    }
  }
});

Deno.test("vLLM: an extra bias its Qwen3 loader skips stays NOT_VERIFIED", async () => {
  for (const [who, status, why] of await statuses(VLLM_STACK, extra(SKIPPED))) {
    assert.equal(status, "NOT_VERIFIED", who);
    assert.ok(why.includes(`tensor '${SKIPPED}' is not part of the config's model`), why);
  }
});

Deno.test("Transformers 4.5x: an extra tensor is dropped with a warning: NOT_VERIFIED", async () => {
  for (const name of [...REFUSED, SKIPPED]) {
    for (const [who, status, why] of await statuses({}, extra(name))) {
      assert.equal(status, "NOT_VERIFIED", `${name} ${who}`);
      assert.ok(why.includes(`tensor '${name}' is not part of the config's model`), why);
    }
  }
});

Deno.test("vLLM: an extra tensor is NOT_VERIFIED, not FAIL, where the record states loader settings beyond its stack's (--load-format dummy reads no weights)", async () => {
  const stated = { flags: "--enforce-eager --load-format dummy" };
  const got = await weightEditStatuses(VLLM_STACK, extra("model.extra"), "extra", { stated });
  for (const [who, status, why] of got) {
    assert.equal(status, "NOT_VERIFIED", `${who}: ${why}`);
    assert.ok(why.includes("the record states settings beyond stack"), why);
  }
});

Deno.test("vLLM: Mistral (run by the Llama class) FAILs a tensor the loader has no parameter for after its Mistral-format renaming; one renamed onto a model tensor is loaded over it: NOT_VERIFIED", async () => {
  const on = (name: string) =>
    weightEditStatuses(VLLM_STACK, extra(name), "extra", { dir: "mistral-tiny" });
  for (const name of ["model.extra", "layers.0.feed_forward.extra.weight"]) {
    for (const [who, status, why] of await on(name)) {
      assert.equal(status, "FAIL", `${name} ${who}: ${why}`);
      assert.ok(why.includes(`tensor '${name}' is not part of the config's model, and vLLM`), why);
    }
  }
  for (const name of ["norm.weight", "model.layers.0.attention.wq.weight", "output.weight"]) {
    for (const [who, status, why] of await on(name)) {
      assert.equal(status, "NOT_VERIFIED", `${name} ${who}: ${why}`);
    }
  }
});
