/**
 * A checkpoint whose files lack a tensor its config implies: vLLM 0.11's `DefaultModelLoader`
 * refuses a parameter no tensor was loaded into ("Following weights were not initialized from
 * checkpoint"), so a record on a vLLM stack FAILs, unless the tensor is one shard of a fused
 * parameter (`qkv_proj`, `gate_up_proj`) a sibling fills, or one expert's tensor of the parameters
 * a layer's experts share, which leaves its part uninitialised;
 * Transformers 4.5x initialises a missing tensor anew with a warning. Either of those ran a model
 * this version does not model: NOT_VERIFIED. So is a record stating vLLM settings beyond its stack's
 * (`--load-format dummy` reads no weights), and a Mistral checkpoint storing a tensor under the
 * Mistral-format name vLLM's Llama class renames onto it.
 */
import assert from "node:assert/strict";
import {
  VLLM_STACK as VLLM_STACK,
  type WeightEdit as Edit,
  weightEditStatuses,
} from "./_weight_edit_stack.ts";

/** The tensors without these. */
function drop(...names: string[]): Edit {
  return (t) => t.filter((x) => !names.includes(x.name));
}

const NORM = "model.norm.weight";
const UP = "model.layers.0.mlp.up_proj.weight";
const GATE = "model.layers.0.mlp.gate_proj.weight";

const statuses = (stack: object, edit: Edit, o?: Parameters<typeof weightEditStatuses>[3]) =>
  weightEditStatuses(stack, edit, "missing", o);

/** The tensors with one renamed. */
function rename(from: string, to: string): Edit {
  return (t) => t.map((x) => x.name === from ? { ...x, name: to } : x);
}

Deno.test("vLLM: a missing tensor no other fills FAILs (the loader refuses the model)", async () => {
  for (const edit of [drop(NORM), drop(UP, GATE)]) {
    for (const [who, status, why] of await statuses(VLLM_STACK, edit)) {
      assert.equal(status, "FAIL", who);
      assert.ok(/tensor '.*' is missing/.test(why), why);
    }
  }
});

Deno.test("vLLM: a missing shard of a fused parameter its sibling fills is NOT_VERIFIED", async () => {
  for (const [who, status, why] of await statuses(VLLM_STACK, drop(UP))) {
    assert.equal(status, "NOT_VERIFIED", who);
    assert.ok(why.includes(`tensor '${UP}' is missing`), why);
  }
});

Deno.test("Transformers 4.5x: a missing tensor is initialised anew: NOT_VERIFIED", async () => {
  for (const edit of [drop(NORM), drop(UP)]) {
    for (const [who, status, why] of await statuses({}, edit)) {
      assert.equal(status, "NOT_VERIFIED", who);
      assert.ok(why.includes("is missing (Transformers initialises it anew"), why);
    }
  }
});

Deno.test("vLLM: a missing tensor is NOT_VERIFIED, not FAIL, where the record states loader settings beyond its stack's (--load-format dummy reads no weights)", async () => {
  const stated = { flags: "--enforce-eager --load-format dummy" };
  for (const [who, status, why] of await statuses(VLLM_STACK, drop(NORM), { stated })) {
    assert.equal(status, "NOT_VERIFIED", `${who}: ${why}`);
    assert.ok(why.includes(`tensor '${NORM}' is missing`), why);
    assert.ok(why.includes("the record states settings beyond stack"), why);
  }
});

Deno.test("vLLM: a Mistral tensor stored under the Mistral-format name the Llama class renames onto it is not missing to vLLM: NOT_VERIFIED (it had FAILed)", async () => {
  const renames = [
    rename(NORM, "norm.weight"),
    rename("model.layers.0.self_attn.o_proj.weight", "layers.0.attention.wo.weight"),
  ];
  for (const edit of renames) {
    const got = await statuses(VLLM_STACK, edit, { dir: "mistral-tiny" });
    for (const [who, status, why] of got) {
      assert.equal(status, "NOT_VERIFIED", `${who}: ${why}`);
      assert.ok(why.includes("renames another stored tensor onto it"), why);
    }
  }
  // Under a name the renaming does not reach, it is missing: FAIL.
  for (
    const [who, status] of await statuses(VLLM_STACK, rename(NORM, "model.nrm.weight"), {
      dir: "mistral-tiny",
    })
  ) {
    assert.equal(status, "FAIL", who);
  }
});

Deno.test("vLLM: a missing expert tensor is NOT_VERIFIED, not FAIL: the layer's experts share the parameter it loads into, which its siblings fill", async () => {
  const expert = "model.layers.1.mlp.experts.0.down_proj.weight";
  const got = await statuses(VLLM_STACK, drop(expert), { dir: "qwen3-tiny-moe" });
  for (const [who, status, why] of got) {
    assert.equal(status, "NOT_VERIFIED", `${who}: ${why}`);
    assert.ok(why.includes(`tensor '${expert}' is missing`), why);
  }
});
