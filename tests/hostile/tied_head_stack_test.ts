/**
 * A tied checkpoint that also stores an `lm_head.weight` the embedding's shape or a modelled
 * dtype does not fit: vLLM 0.11 never reads it (`Qwen3ForCausalLM.load_weights` and Llama's build
 * `AutoWeightsLoader(self, skip_prefixes=["lm_head."])` when `tie_word_embeddings`, which filters
 * those names before any loader or shape check), so a record on a vLLM stack is held to its
 * fingerprint; Transformers 4.5x reads it (a misshapen one FAILs, one of a dtype whose cast is not
 * modelled is NOT_VERIFIED). vLLM 0.11's Qwen3-MoE ties by sharing one parameter and loads with no
 * skip (`qwen3_moe.py`), so a stored head is copied into the embedding too, and the load order
 * decides which runs: NOT_VERIFIED there.
 */
import assert from "node:assert/strict";
import type { SafetensorsTensorInput } from "../../src/model/mod.ts";
import { honestOf, setField, withConfig } from "./_config_edit.ts";
import { honestAndFalsified, verifyAlone } from "./_recompute_fixture.ts";
import {
  VLLM_STACK as VLLM_STACK,
  type WeightEdit as Edit,
  weightEditStatuses,
} from "./_weight_edit_stack.ts";

/** The tensors with a stored `lm_head.weight` of this dtype and shape (zeros) added. */
function storedHead(
  dtype: "BF16" | "I32",
  shape: (embedding: readonly number[]) => number[],
): Edit {
  return (t) => {
    const dims = shape(t.find((x) => x.name === "model.embed_tokens.weight")!.shape);
    const n = dims.reduce((a, b) => a * b, 1);
    const data = dtype === "BF16" ? new Uint16Array(n) : new Int32Array(n);
    return [...t, { name: "lm_head.weight", dtype, shape: dims, data } as SafetensorsTensorInput];
  };
}

const MISSHAPEN = storedHead("BF16", () => [2, 2]);
const I32 = storedHead("I32", (e) => [...e]);

const statuses = (stack: object, edit: Edit, o?: Parameters<typeof weightEditStatuses>[3]) =>
  weightEditStatuses(stack, edit, "tied-head", o);

Deno.test("vLLM: a tied checkpoint's stored lm_head.weight of another shape is never read", async () => {
  const [honest, falsified] = await statuses(VLLM_STACK, MISSHAPEN);
  assert.equal(honest?.[1], "PASS", honest?.[2]);
  assert.equal(falsified?.[1], "FAIL", falsified?.[2]);
});

Deno.test("vLLM: a tied checkpoint's stored lm_head.weight of a dtype not modelled is never read", async () => {
  const [honest, falsified] = await statuses(VLLM_STACK, I32);
  assert.equal(honest?.[1], "PASS", honest?.[2]);
  assert.equal(falsified?.[1], "FAIL", falsified?.[2]);
});

Deno.test("Transformers 4.5x: a tied checkpoint's misshapen stored lm_head.weight FAILs", async () => {
  for (const [who, status, why] of await statuses({}, MISSHAPEN)) {
    assert.equal(status, "FAIL", who);
    assert.ok(why.includes("tensor 'lm_head.weight' (tied) is BF16 [2,2]"), why);
  }
});

Deno.test("Transformers 4.5x: a tied checkpoint's stored lm_head.weight as I32 is NOT_VERIFIED", async () => {
  for (const [who, status, why] of await statuses({}, I32)) {
    assert.equal(status, "NOT_VERIFIED", who);
    assert.ok(why.includes("'lm_head.weight' (tied) is I32"), why);
  }
});

Deno.test("vLLM: a tied Qwen3-MoE checkpoint that also stores lm_head.weight is NOT_VERIFIED (the loader copies it into the shared embedding; it had PASSed)", async () => {
  const { honest, blobs } = await honestOf("qwen3-tiny-moe", { logId: "tied-moe", ...VLLM_STACK });
  assert.equal((await verifyAlone(honest, blobs)).status, "PASS");
  const tied = withConfig(honest, blobs, setField("tie_word_embeddings", true));
  for (const [who, p] of honestAndFalsified(tied)) {
    const r = await verifyAlone(p, blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${who}: ${r.reason}`);
    assert.match(
      r.reason ?? "",
      /vLLM's Qwen3-MoE loader copies into the parameter the head shares/,
    );
  }
});

Deno.test("Transformers 4.5x: a misshapen stored tied head is NOT_VERIFIED, not FAIL, where the record states settings beyond its stack's (they may load otherwise)", async () => {
  const stated = { transformers_kwargs: "ignore_mismatched_sizes=True" };
  for (const [who, status, why] of await statuses({}, MISSHAPEN, { stated })) {
    assert.equal(status, "NOT_VERIFIED", `${who}: ${why}`);
    assert.ok(why.includes("tensor 'lm_head.weight' (tied) is BF16 [2,2]"), why);
    assert.ok(why.includes("the record states settings beyond stack"), why);
  }
});

Deno.test("vLLM: Mistral, run by the Llama class, skips a tied checkpoint's stored lm_head.weight too: one of a dtype not modelled is never read", async () => {
  // mistral-tiny stores an untied head: tied, with that head as I32.
  const asI32 = (t: SafetensorsTensorInput[]) => I32(t.filter((x) => x.name !== "lm_head.weight"));
  const o = { dir: "mistral-tiny", config: setField("tie_word_embeddings", true) };
  const [honest, falsified] = await statuses(VLLM_STACK, asI32, o);
  assert.equal(honest?.[1], "PASS", honest?.[2]);
  assert.equal(falsified?.[1], "FAIL", falsified?.[2]);
  // Transformers 4.5x reads it: not modelled.
  for (const [who, status, why] of await statuses({}, asI32, o)) {
    assert.equal(status, "NOT_VERIFIED", `${who}: ${why}`);
    assert.ok(why.includes("'lm_head.weight' (tied) is I32"), why);
  }
});

Deno.test("vLLM: a tied Qwen3-MoE checkpoint's misshapen stored lm_head.weight FAILs (its loader reads it into the shared embedding, and the weight loader asserts the shape)", async () => {
  // qwen3_moe.py (vLLM 0.11): `AutoWeightsLoader(self)` with no skip_prefixes, and the tied head
  // is the embedding's parameter, whose loader asserts the stored shape: no such run loaded.
  const misshapen = (t: SafetensorsTensorInput[]) =>
    MISSHAPEN(t.filter((x) => x.name !== "lm_head.weight"));
  const o = { dir: "qwen3-tiny-moe", config: setField("tie_word_embeddings", true) };
  for (const [who, status, why] of await statuses(VLLM_STACK, misshapen, o)) {
    assert.equal(status, "FAIL", `${who}: ${why}`);
    assert.ok(why.includes("tensor 'lm_head.weight' (tied) is BF16 [2,2]"), why);
  }
});
