/**
 * Config fields the stacks' engines read differently, each of which had let a record PASS:
 * - a Qwen2 or Qwen3 `sliding_window` the config turns off (`use_sliding_window: false`), which
 *   Transformers releases before 4.57 keep and mask attention by (HF issue #38002): a record on
 *   such a stack whose keys reach the window is NOT_VERIFIED;
 * - a `pad_token_id` outside the vocabulary, with which HF Transformers cannot build the embedding
 *   (`padding_idx`): a record on an HF stack FAILs, on vLLM (which never reads it) it PASSes;
 * - F16 weights under a config naming no dtype on vLLM, whose `--dtype auto` may then run the
 *   whole model in float16: NOT_VERIFIED.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate } from "../../src/claims/mod.ts";
import { honestOf, setField, VLLM_STACK, withConfig } from "./_config_edit.ts";
import { type Blobs, flipFingerprint, verifyAlone } from "./_recompute_fixture.ts";
import { asF16, asF32, over, reencode, weightDigest } from "./_weight_bytes.ts";

/** The record's status over each config edit, keyed by the case's name. */
async function statuses(
  honest: ClaimPredicate,
  blobs: Blobs,
  edits: Record<string, (t: string) => string>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [what, edit] of Object.entries(edits)) {
    const r = await verifyAlone(withConfig(honest, blobs, edit), blobs);
    out[what] = r.status === "PASS" ? "PASS" : `${r.status}: ${r.reason}`;
  }
  return out;
}

Deno.test("a sliding window a Qwen2 or Qwen3 config turns off is NOT_VERIFIED on Transformers 4.5x once the record's keys reach it (it had PASSed)", async () => {
  for (const dir of ["qwen3-tiny-dense", "qwen2-tiny"]) {
    const { honest, blobs } = await honestOf(dir, { logId: `window-${dir}` });
    assert.equal((await verifyAlone(honest, blobs)).status, "PASS", dir);
    const got = await statuses(honest, blobs, {
      reached: setField("sliding_window", 2),
      // The record's 10 keys: a window of as many keys is reached, one more is not.
      at: setField("sliding_window", 10),
      "one past": setField("sliding_window", 11),
      below: setField("sliding_window", 64),
      "class default": setField("sliding_window", undefined),
    });
    assert.match(got.reached!, /^NOT_VERIFIED: stack 'hf-qwen3-flash-attn-torch2\.8'/, dir);
    assert.match(got.reached!, /before 4\.57 \(HF issue #38002\) keeps the sliding window/, dir);
    assert.match(got.reached!, /\(2 keys\)/, dir);
    assert.match(got.at!, /^NOT_VERIFIED: .*\(10 keys\).* the record's 10 keys reach it/, dir);
    assert.equal(got["one past"], "PASS", dir);
    assert.equal(got.below, "PASS", dir);
    assert.equal(got["class default"], "PASS", `${dir}: 4096 keys, not reached`);
  }
});

Deno.test("a sliding window turned off is no gap where no engine keeps it: Qwen3-MoE's class, Transformers 4.57, vLLM", async () => {
  const runs: [string, Parameters<typeof honestOf>[1]][] = [
    ["qwen3-tiny-moe", { logId: "window-moe" }],
    ["qwen3-tiny-dense", {
      logId: "window-457",
      stack: "hf-qwen3-continuous-batching-torch2.8",
      components: { pytorch: "2.8.0", flash_attn: "2.8.3" },
    }],
    ["qwen3-tiny-dense", { logId: "window-vllm", ...VLLM_STACK }],
  ];
  for (const [dir, o] of runs) {
    const { honest, blobs } = await honestOf(dir, o);
    const got = await statuses(honest, blobs, { reached: setField("sliding_window", 2) });
    assert.equal(got.reached, "PASS", `${dir} ${o.logId}`);
  }
});

Deno.test("a pad_token_id outside the vocabulary FAILs on an HF stack, which cannot build the embedding with it (it had PASSed); vLLM ignores it", async () => {
  const hf = await honestOf("qwen3-tiny-dense", { logId: "pad-hf" });
  const got = await statuses(hf.honest, hf.blobs, {
    vocab: setField("pad_token_id", 512),
    below: setField("pad_token_id", -513),
    last: setField("pad_token_id", 511),
    "from the end": setField("pad_token_id", -512),
    float: (t) => t.replace('"vocab_size": 512', '"pad_token_id": 3.5, "vocab_size": 512'),
  });
  for (const what of ["vocab", "below"]) {
    assert.match(got[what]!, /^FAIL: record contradicts its stack: stack '[^']+' runs HF/, what);
    assert.match(got[what]!, /pad_token_id -?51[23] lies outside its vocabulary of 512/, what);
  }
  assert.equal(got.last, "PASS");
  assert.equal(got["from the end"], "PASS");
  assert.match(got.float!, /^NOT_VERIFIED: .*pad_token_id '3\.5' is not an integer/);
  const vllm = await honestOf("qwen3-tiny-dense", { logId: "pad-vllm", ...VLLM_STACK });
  const ignored = await statuses(vllm.honest, vllm.blobs, { vocab: setField("pad_token_id", 512) });
  assert.equal(ignored.vocab, "PASS");
});

Deno.test("F16 weights under a config naming no dtype are NOT_VERIFIED on vLLM, whose --dtype auto may run them in float16 (they had PASSed)", async () => {
  const { honest, blobs } = await honestOf("qwen3-tiny-dense", { logId: "f16", ...VLLM_STACK });
  const weights = blobs.get(weightDigest(honest))!;
  const noDtype = setField("torch_dtype", undefined);
  const cases: [string, Uint8Array, ((t: string) => string) | null, RegExp | "PASS"][] = [
    [
      "F16 norm, no dtype",
      await reencode(weights, { edit: asF16("model.norm.weight") }),
      noDtype,
      /names no dtype .* store F16 tensors/,
    ],
    [
      "F16 norm, torch_dtype null",
      await reencode(weights, { edit: asF16("model.norm.weight") }),
      setField("torch_dtype", null),
      /names no dtype/,
    ],
    [
      "F16 norm, bfloat16 named",
      await reencode(weights, { edit: asF16("model.norm.weight") }),
      null,
      "PASS",
    ],
    [
      "F32 norm, no dtype",
      await reencode(weights, { edit: asF32("model.norm.weight", () => 0) }),
      noDtype,
      "PASS",
    ],
  ];
  for (const [what, bytes, edit, want] of cases) {
    const b: Blobs = new Map(blobs);
    const p = over(honest, b, bytes);
    const r = await verifyAlone(edit === null ? p : withConfig(p, b, edit), b);
    if (want === "PASS") assert.equal(r.status, "PASS", `${what}: ${r.reason}`);
    else {
      assert.equal(r.status, "NOT_VERIFIED", `${what}: ${r.reason}`);
      assert.match(r.reason, /^stack 'vllm-0\.11-eager-fa2' runs vLLM: /, what);
      assert.match(r.reason, want, what);
    }
  }
});

Deno.test("a falsified record under each of these readings still FAILs wherever the reading is modelled, and is never PASSed where it is not", async () => {
  // The readings above were tested on honest records only: a gap that fired where it should not
  // would turn a falsified record's FAIL into NOT_VERIFIED (an INCONCLUSIVE audit) unseen.
  const fail = /^FAIL: recomputed fingerprint [0-9a-f]{64} differs from the claimed/;
  for (const dir of ["qwen3-tiny-dense", "qwen2-tiny"]) {
    const { honest, blobs } = await honestOf(dir, { logId: `window-${dir}` });
    const got = await statuses(flipFingerprint(honest), blobs, {
      reached: setField("sliding_window", 2),
      below: setField("sliding_window", 64),
      "class default": setField("sliding_window", undefined),
    });
    assert.match(
      got.reached!,
      /^NOT_VERIFIED: .*\(HF issue #38002\) keeps the sliding window/,
      dir,
    );
    assert.match(got.below!, fail, dir);
    assert.match(got["class default"]!, fail, dir);
  }
  const vllm = await honestOf("qwen3-tiny-dense", { logId: "lying-vllm", ...VLLM_STACK });
  const onVllm = await statuses(flipFingerprint(vllm.honest), vllm.blobs, {
    "window reached": setField("sliding_window", 2),
    "pad outside the vocabulary": setField("pad_token_id", 512),
  });
  for (const [what, got] of Object.entries(onVllm)) assert.match(got, fail, what);
  const hf = await honestOf("qwen3-tiny-dense", { logId: "lying-pad" });
  const pads = await statuses(flipFingerprint(hf.honest), hf.blobs, {
    last: setField("pad_token_id", 511),
    "from the end": setField("pad_token_id", -512),
    vocab: setField("pad_token_id", 512),
  });
  assert.match(pads.last!, fail);
  assert.match(pads["from the end"]!, fail);
  assert.match(pads.vocab!, /^FAIL: record contradicts its stack: .*pad_token_id 512 lies outside/);
  // F16 or F32 weights on vLLM: recomputed where the config names bfloat16, or the weights hold
  // no F16; only F16 weights under no dtype are not, and they are NOT_VERIFIED, never PASS.
  const weights = vllm.blobs.get(weightDigest(vllm.honest))!;
  const f16 = await reencode(weights, { edit: asF16("model.norm.weight") });
  const f32 = await reencode(weights, { edit: asF32("model.norm.weight", () => 0) });
  const noDtype = setField("torch_dtype", undefined);
  const cases: [string, Uint8Array, ((t: string) => string) | null, RegExp][] = [
    ["F16 norm, bfloat16 named", f16, null, fail],
    ["F32 norm, no dtype", f32, noDtype, fail],
    ["F16 norm, no dtype", f16, noDtype, /^NOT_VERIFIED: stack 'vllm-0\.11-eager-fa2' runs vLLM: /],
  ];
  for (const [what, bytes, edit, want] of cases) {
    const b: Blobs = new Map(vllm.blobs);
    const p = over(flipFingerprint(vllm.honest), b, bytes);
    const r = await verifyAlone(edit === null ? p : withConfig(p, b, edit), b);
    assert.match(`${r.status}: ${r.reason}`, want, what);
  }
});
