/**
 * How a config's fields are read where HF Transformers and vLLM differ from a plain reading: a
 * vLLM record over a config naming no `architectures` FAILs (vLLM picks its model class from that
 * list and refuses a config without one; it had PASSed); llama3's
 * `original_max_position_embeddings` written as a float computes the integer's bits in every
 * modelled release, so it is recomputed (it was NOT_VERIFIED, which let a prover turn its FAIL into
 * NOT_VERIFIED by writing `8192.0`); so is Qwen3-MoE's `decoder_sparse_step` written as a float
 * on a Transformers 4.5x stack, while on a Transformers 5 stack, whose typed config refuses it
 * (`hfRefusal`), the record FAILs;
 * `output_attentions` set (HF 4.48-4.53 then run eager attention in place of sdpa) and a
 * `rope_theta` written as an integer above 2^53 - 1 (PyTorch rounds the int to float32 once, a
 * double read twice) are NOT_VERIFIED (both had PASSed); a `rope_scaling` type the stack builds
 * no RoPE of FAILs (it was NOT_VERIFIED).
 */
import assert from "node:assert/strict";
import type { ClaimPredicate, ModelForwardWorkload } from "../../src/claims/mod.ts";
import {
  assertHeldToFingerprint,
  hfAndVllm,
  honestOf,
  setField,
  VLLM_STACK,
  withConfig,
} from "./_config_edit.ts";
import {
  flipFingerprint,
  honestAndFalsified,
  MOE_CONFIG,
  synthModel,
  verifyAlone,
} from "./_recompute_fixture.ts";

Deno.test("a vLLM record over a config naming no architectures FAILs: vLLM refuses such a config", async () => {
  const { honest, blobs } = await honestOf("qwen3-tiny-dense", {
    logId: "arch",
    ...VLLM_STACK,
  });
  assert.equal((await verifyAlone(honest, blobs)).status, "PASS");
  const edits: [string, (t: string) => string][] = [
    ["absent", (t) => JSON.stringify({ ...JSON.parse(t), architectures: undefined })],
    ["null", (t) => JSON.stringify({ ...JSON.parse(t), architectures: null })],
  ];
  for (const [what, edit] of edits) {
    const r = await verifyAlone(withConfig(honest, blobs, edit), blobs);
    assert.equal(r.status, "FAIL", `${what}: ${r.reason}`);
    assert.match(r.reason, /record contradicts its stack: .*names no architectures/, what);
  }
});

Deno.test("llama3's original_max_position_embeddings written as a float is recomputed: an honest record PASSes, a falsified one FAILs (it was NOT_VERIFIED)", async () => {
  const { honest, blobs } = await honestOf("llama3-tiny", { logId: "rope" });
  const asFloat = (t: string) =>
    t.replace(
      '"original_max_position_embeddings": 8192',
      '"original_max_position_embeddings": 8192.0',
    );
  await assertHeldToFingerprint(honest, blobs, asFloat);
});

Deno.test("decoder_sparse_step written as a float is recomputed on a Transformers 4.5x stack: an honest record PASSes, a falsified one FAILs (it was NOT_VERIFIED)", async () => {
  const { honest, blobs } = await honestOf("qwen3-tiny-moe", { logId: "step" });
  const step = (t: string) => t.replace('"decoder_sparse_step": 1,', '"decoder_sparse_step": 1.0,');
  await assertHeldToFingerprint(honest, blobs, step);
});

Deno.test("output_attentions set is NOT_VERIFIED: HF Transformers 4.48-4.53 then run eager attention in place of sdpa (it had PASSed)", async () => {
  // Refused whatever the stack's attention (the config's value reaches every forward call).
  const { honest, blobs } = await honestOf("qwen3-tiny-dense", { logId: "attentions" });
  for (const off of [false, null]) {
    const r = await verifyAlone(
      withConfig(honest, blobs, setField("output_attentions", off)),
      blobs,
    );
    assert.equal(r.status, "PASS", `${off}: ${r.reason}`);
  }
  for (const on of [true, 1, "yes"]) {
    const r = await verifyAlone(
      withConfig(honest, blobs, setField("output_attentions", on)),
      blobs,
    );
    assert.equal(r.status, "NOT_VERIFIED", `${on}: ${r.reason}`);
    assert.match(r.reason, /output_attentions '[^']+' is not modelled .*eager/, `${on}`);
  }
  // A falsified record: recomputed and FAILed where the switch is off, never PASSed where it is on.
  const lie = flipFingerprint(honest);
  for (const off of [false, null]) {
    const r = await verifyAlone(withConfig(lie, blobs, setField("output_attentions", off)), blobs);
    assert.equal(r.status, "FAIL", `${off}: ${r.reason}`);
    assert.equal(r.finding, "fingerprint", `${off}: ${r.reason}`);
  }
  const on = await verifyAlone(withConfig(lie, blobs, setField("output_attentions", true)), blobs);
  assert.equal(on.status, "NOT_VERIFIED", on.reason);
});

Deno.test("a rope_theta written as an integer above 2^53 - 1 is NOT_VERIFIED: its double, rounded again to float32, is not PyTorch's theta (it had PASSed)", async () => {
  // 2^60 + 2^36 + 2^30 + 1: PyTorch's one rounding to float32 gives 2^60 + 2^37, the double
  // (2^60 + 2^36 + 2^30) rounds to 2^60.
  const int = "1152921573326323713";
  const float = Number(int).toExponential(); // the same double, which Python reads as a float
  const { honest: h, blobs } = await honestOf("qwen3-tiny-dense", { logId: "theta" });
  const { layerChain: _, ...w } = h.workload as ModelForwardWorkload;
  const honest = { ...h, workload: w };
  const theta = (v: string) => (t: string) =>
    t.replace('"rope_theta": 1000000', `"rope_theta": ${v}`);
  // The emulator's fingerprint of the double theta, as a forger computes it.
  const probe = await verifyAlone(withConfig(honest, blobs, theta(float)), blobs);
  assert.equal(probe.status, "FAIL", probe.reason);
  const forged = { ...honest, fingerprint: { ...honest.fingerprint, sha256: probe.recomputed! } };
  const asFloat = await verifyAlone(withConfig(forged, blobs, theta(float)), blobs);
  assert.equal(asFloat.status, "PASS", `written as a float, a Python float: ${asFloat.reason}`);
  const asInt = await verifyAlone(withConfig(forged, blobs, theta(int)), blobs);
  assert.equal(asInt.status, "NOT_VERIFIED", asInt.reason);
  assert.match(asInt.reason, /rope_theta '\d+' is written as an integer above 2\^53 - 1/);
});

/** The record over `pp` pipeline stages, one GPU each. */
function staged(p: ClaimPredicate, pp: number): ClaimPredicate {
  return { ...p, parallelism: { ...p.parallelism, pp }, hardware: { ...p.hardware, count: pp } };
}

const NO_MOE_LAYER =
  /record contradicts its stack: .*'No Qwen3MoE layer found in the model\.layers\.'/;

Deno.test("a vLLM record of the tiny MoE over two pipeline stages FAILs: stage 0 holds dense layer 0 alone, and vLLM's Qwen3-MoE class refuses a stage without a sparse layer (it had PASSed)", async () => {
  const { honest, blobs } = await honestOf("qwen3-tiny-moe", { logId: "stages", ...VLLM_STACK });
  assert.equal((await verifyAlone(honest, blobs)).status, "PASS");
  const r = await verifyAlone(staged(honest, 2), blobs);
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, NO_MOE_LAYER);
  assert.match(r.reason, /pipeline stage 0 of pp=2 holds layer 0 \(vLLM's get_pp_indices\)/);
  // A split the record sets itself (VLLM_PP_LAYER_PARTITION) is not the one read: not modelled.
  const components = { ...honest.software.components, VLLM_PP_LAYER_PARTITION: "1,1" };
  const own = await verifyAlone(
    { ...staged(honest, 2), software: { ...honest.software, components } },
    blobs,
  );
  assert.equal(own.status, "NOT_VERIFIED", own.reason);
  assert.match(own.reason, /the record states settings beyond stack .*VLLM_PP_LAYER_PARTITION/);
  // HF Transformers builds every stage's layers: the same split on its stack is recomputed.
  const hf = await honestOf("qwen3-tiny-moe", { logId: "stages-hf" });
  const hf2 = await verifyAlone(staged(hf.honest, 2), hf.blobs);
  assert.equal(hf2.status, "PASS", hf2.reason);
});

Deno.test("a Qwen3-MoE config whose layers are all dense FAILs on vLLM, which refuses to build it (it had PASSed), and is recomputed on HF Transformers", async () => {
  const vllm = await honestOf("qwen3-tiny-moe", { logId: "all-dense", ...VLLM_STACK });
  const hf = await honestOf("qwen3-tiny-moe", { logId: "all-dense-hf" });
  for (const patch of [{ mlp_only_layers: [0, 1] }, { decoder_sparse_step: 3 }]) {
    const on = (run: typeof hf) => {
      const { layerChain: _, ...w } = run.honest.workload as ModelForwardWorkload;
      const model = synthModel({ ...MOE_CONFIG, ...patch }, {
        seed: "all-dense",
        shards: 1,
        blobs: run.blobs,
      });
      return { ...run.honest, workload: { ...w, model } };
    };
    const what = JSON.stringify(patch);
    const refused = await verifyAlone(on(vllm), vllm.blobs);
    assert.equal(refused.status, "FAIL", `${what}: ${refused.reason}`);
    assert.match(refused.reason, NO_MOE_LAYER, what);
    assert.match(refused.reason, /no decoder layer of the config has a sparse MoE block/, what);
    // On HF's stack the forward is recomputed: the tiny MoE's fingerprint is not this model's,
    // and the recomputed one PASSes.
    const probe = await verifyAlone(on(hf), hf.blobs);
    assert.equal(probe.status, "FAIL", `${what}: ${probe.reason}`);
    assert.equal(probe.finding, "fingerprint", `${what}: ${probe.reason}`);
    const p = on(hf);
    const right = { ...p, fingerprint: { ...p.fingerprint, sha256: probe.recomputed! } };
    assert.equal((await verifyAlone(right, hf.blobs)).status, "PASS", what);
  }
});

Deno.test("MoE values HF builds though nobody deploys them are NOT_VERIFIED, naming the value (they FAILed as malformed), unless the stack refuses the config: vLLM builds no model without a sparse layer", async () => {
  const { hf, vllm } = await hfAndVllm("qwen3-tiny-moe", "moe-values");
  const cases: [string, unknown, string][] = [
    ["decoder_sparse_step", -1, "decoder_sparse_step -1"],
    ["decoder_sparse_step", -2, "decoder_sparse_step -2"],
    ["num_experts", -1, "num_experts -1"],
    ["num_experts_per_tok", 0, "num_experts_per_tok 0"],
    ["mlp_only_layers", [0, 1.5], "mlp_only_layers[1] '1.5'"],
    ["mlp_only_layers", [0, 1e20], "mlp_only_layers[1] '100000000000000000000'"],
  ];
  for (const [key, value, named] of cases) {
    for (const p of [hf.honest, flipFingerprint(hf.honest)]) {
      const r = await verifyAlone(withConfig(p, hf.blobs, setField(key, value)), hf.blobs);
      assert.equal(r.status, "NOT_VERIFIED", `${named}: ${r.reason}`);
      assert.ok(r.reason.includes(`${named} (`), r.reason);
      assert.match(r.reason, /is not modelled for qwen3_moe/, named);
    }
  }
  // vLLM: num_experts -1 leaves every layer dense (its rule reads `num_experts > 0`), which its
  // Qwen3-MoE class refuses; step -1 (Python: every layer) and step -2 (layer 1) keep layer 1
  // sparse, which it builds: not modelled.
  const onVllm = (key: string, value: unknown) =>
    verifyAlone(withConfig(vllm.honest, vllm.blobs, setField(key, value)), vllm.blobs);
  const dense = await onVllm("num_experts", -1);
  assert.equal(dense.status, "FAIL", dense.reason);
  assert.match(dense.reason, NO_MOE_LAYER);
  for (const step of [-1, -2]) {
    const r = await onVllm("decoder_sparse_step", step);
    assert.equal(r.status, "NOT_VERIFIED", r.reason);
    assert.match(r.reason, new RegExp(`decoder_sparse_step ${step} `));
  }
  const three = await onVllm("decoder_sparse_step", -3); // 3 divides neither 1 nor 2
  assert.equal(three.status, "FAIL", three.reason);
  assert.match(three.reason, NO_MOE_LAYER);
});

/**
 * The honest record moved onto the Transformers 5 stack, checked NOT_VERIFIED there (its cuDNN
 * attention is not emulated), so that a FAIL of an edit to it is the config's alone.
 */
async function onTransformers5(
  hf: Awaited<ReturnType<typeof honestOf>>,
): Promise<typeof hf.honest> {
  const v5 = {
    ...hf.honest,
    software: {
      stack: "hf-qwen3-sdpa-torch2.11-hopper",
      components: { pytorch: "2.11.0", cudnn: "> 9.15.0", transformers: "5.x" },
    },
  };
  assert.equal((await verifyAlone(v5, hf.blobs)).status, "NOT_VERIFIED");
  return v5;
}

Deno.test("a float among mlp_only_layers FAILs on a Transformers 5 stack, whose typed config (list[int]) refuses it, whether or not the value is modelled; Transformers 4.5x reads 0.0 as layer 0", async () => {
  const hf = await honestOf("qwen3-tiny-moe", { logId: "float-layers" });
  const v5 = await onTransformers5(hf);
  const layers = (list: string) => (t: string) =>
    t.replace(/"mlp_only_layers": \[\s*0\s*\]/, `"mlp_only_layers": ${list}`);
  // 0.0 is read (layer 0, as the honest config); 1.5 is not modelled (`unmodelled: "read"`).
  for (const list of ["[0.0]", "[0, 1.5]"]) {
    const r = await verifyAlone(withConfig(v5, hf.blobs, layers(list)), hf.blobs);
    assert.equal(r.status, "FAIL", `${list}: ${r.reason}`);
    assert.match(
      r.reason,
      /^record contradicts its stack: stack 'hf-qwen3-sdpa-torch2\.11-hopper' runs HF Transformers: the config writes an mlp_only_layers entry as a float, which Transformers 5's typed config refuses/,
      list,
    );
  }
  const v4 = await verifyAlone(withConfig(hf.honest, hf.blobs, layers("[0.0]")), hf.blobs);
  assert.equal(v4.status, "PASS", v4.reason);
});

Deno.test("decoder_sparse_step written as a float FAILs on a Transformers 5 stack, honest or falsified: its typed config (an int field) refuses it, as a float among mlp_only_layers (it was NOT_VERIFIED)", async () => {
  const hf = await honestOf("qwen3-tiny-moe", { logId: "float-step" });
  const v5 = await onTransformers5(hf);
  const step = (t: string) => t.replace('"decoder_sparse_step": 1,', '"decoder_sparse_step": 1.0,');
  for (const [what, record] of honestAndFalsified(v5)) {
    const r = await verifyAlone(withConfig(record, hf.blobs, step), hf.blobs);
    assert.equal(r.status, "FAIL", `${what}: ${r.reason}`);
    assert.match(
      r.reason,
      /^record contradicts its stack: stack 'hf-qwen3-sdpa-torch2\.11-hopper' runs HF Transformers: the config writes decoder_sparse_step as a float, which Transformers 5's typed config refuses \(decoder_sparse_step: int\): the model cannot be loaded$/,
      what,
    );
  }
});

Deno.test("a vLLM record whose config gives its RoPE in rope_parameters alone is held to vLLM's max_model_len as Transformers 4.5x reads it (max_position_embeddings, no rope_scaling): a prompt past it FAILs (it was NOT_VERIFIED)", async () => {
  const vllm = await honestOf("qwen3-tiny-dense", {
    logId: "rope-len",
    ...VLLM_STACK,
  });
  const prompt = (vllm.honest.workload as ModelForwardWorkload).tokens.sequences[0]!.length;
  assert.ok(prompt >= 2);
  const edit = (rope: Record<string, unknown>) => (t: string) => {
    const { rope_theta: _t, rope_scaling: _s, ...rest } = JSON.parse(t);
    return JSON.stringify({ ...rest, max_position_embeddings: prompt - 1, rope_parameters: rope });
  };
  // 4.5x (and vLLM on it) ignores rope_parameters: a linear factor there moves no limit.
  const ropes = [
    { rope_type: "default", rope_theta: 1000000 },
    { rope_type: "linear", factor: 4, rope_theta: 1000000 },
  ];
  for (const rope of ropes) {
    for (const [what, record] of honestAndFalsified(vllm.honest)) {
      const r = await verifyAlone(withConfig(record, vllm.blobs, edit(rope)), vllm.blobs);
      assert.equal(r.status, "FAIL", `${rope.rope_type} ${what}: ${r.reason}`);
      assert.match(
        r.reason,
        new RegExp(
          `^record contradicts its checkpoint: the ${prompt}-token prompt is longer than ` +
            `vLLM's max_model_len ${prompt - 1} \\(max_position_embeddings ${prompt - 1}\\)`,
        ),
        `${rope.rope_type} ${what}`,
      );
    }
  }
  // Within the limit, the RoPE 4.5x reads otherwise stays NOT_VERIFIED.
  const within = (t: string) => {
    const { rope_theta: _t, rope_scaling: _s, ...rest } = JSON.parse(t);
    return JSON.stringify({ ...rest, rope_parameters: ropes[0] });
  };
  const r = await verifyAlone(withConfig(vllm.honest, vllm.blobs, within), vllm.blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(
    r.reason,
    /only Transformers 5 reads \(rope_parameters alone, which 4\.5x ignores\)/,
  );
});

Deno.test("a rope_scaling Transformers 4.5x refuses to load (empty; llama3 without original_max_position_embeddings) FAILs on its HF and vLLM stacks, naming the missing key, honest or falsified (it was NOT_VERIFIED); Transformers 5 reads it", async () => {
  const { hf, vllm } = await hfAndVllm("qwen3-tiny-dense", "rope-empty");
  const llama = await honestOf("llama3-tiny", { logId: "rope-llama3" });
  const empty = setField("rope_scaling", {});
  const noOriginal = (t: string) => {
    const c = JSON.parse(t);
    const { original_max_position_embeddings: _o, ...rest } = c.rope_scaling;
    return JSON.stringify({ ...c, rope_scaling: rest });
  };
  const cases = [
    [hf, empty, "'rope_type'", /stack '[^']+' runs HF Transformers: /],
    [
      vllm,
      empty,
      "'rope_type'",
      /stack 'vllm-0\.11-eager-fa2' runs vLLM: vLLM 0\.11 reads the config through Transformers 4\.5x, and /,
    ],
    [llama, noOriginal, "'original_max_position_embeddings'", /runs HF Transformers: /],
  ] as const;
  for (const [run, edit, key, engine] of cases) {
    for (const [what, record] of honestAndFalsified(run.honest)) {
      const r = await verifyAlone(withConfig(record, run.blobs, edit), run.blobs);
      assert.equal(r.status, "FAIL", `${key} ${what}: ${r.reason}`);
      assert.match(r.reason, /^record contradicts its stack: /, `${key} ${what}`);
      assert.match(r.reason, engine, `${key} ${what}`);
      assert.ok(
        r.reason.includes(
          `the config's rope_scaling lacks ${key}, which Transformers 4.5x requires`,
        ),
        `${key} ${what}: ${r.reason}`,
      );
    }
  }
  // Transformers 5 reads an empty rope_scaling as the default RoPE: no refusal of the config.
  const v5 = await onTransformers5(hf);
  const r = await verifyAlone(withConfig(v5, hf.blobs, empty), hf.blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.doesNotMatch(r.reason, /rope_scaling|RoPE/, r.reason);
});

Deno.test("a rope_scaling Transformers 4.5x refuses that is also not modelled (a key in another case, a factor without a type, in place of a required key) FAILs on its HF and vLLM stacks as the modelled spelling does, also beside a rope_parameters not modelled, where it was NOT_VERIFIED; Transformers 5 and a spelling 4.5x loads stay NOT_VERIFIED", async () => {
  const { hf, vllm } = await hfAndVllm("qwen3-tiny-dense", "rope-case");
  const llama = await honestOf("llama3-tiny", { logId: "rope-case-llama3" });
  const emptyBeside = (rope_parameters: unknown) => (t: string) =>
    JSON.stringify({ ...JSON.parse(t), rope_scaling: {}, rope_parameters });
  const otherCase = (t: string) => {
    const c = JSON.parse(t);
    const { original_max_position_embeddings: o, ...rest } = c.rope_scaling;
    return JSON.stringify({
      ...c,
      rope_scaling: { ...rest, Original_Max_Position_Embeddings: o },
    });
  };
  const cases = [
    [hf, setField("rope_scaling", { Rope_Type: "default" }), "'rope_type'"],
    [vllm, setField("rope_scaling", { Rope_Type: "default" }), "'rope_type'"],
    [hf, setField("rope_scaling", { factor: 2 }), "'rope_type'"],
    [vllm, setField("rope_scaling", { factor: 2 }), "'rope_type'"],
    [llama, otherCase, "'original_max_position_embeddings'"],
    // An empty rope_scaling beside a rope_parameters not modelled: 4.5x refuses the first and
    // never reads the second.
    [hf, emptyBeside({ rope_type: "yarn", factor: 2, rope_theta: 1000000 }), "'rope_type'"],
    [vllm, emptyBeside({ rope_type: "default", rope_theta: 1000000, Foo: 1 }), "'rope_type'"],
    // Types not modelled that 4.5x validates all the same (4.57.6 modeling_rope_utils.py).
    [hf, setField("rope_scaling", { rope_type: "yarn" }), "'factor'"],
    [vllm, setField("rope_scaling", { rope_type: "dynamic" }), "'factor'"],
    [hf, setField("rope_scaling", { rope_type: "longrope" }), "'short_factor', 'long_factor'"],
  ] as const;
  for (const [run, edit, key] of cases) {
    for (const [what, record] of honestAndFalsified(run.honest)) {
      const r = await verifyAlone(withConfig(record, run.blobs, edit), run.blobs);
      assert.equal(r.status, "FAIL", `${key} ${what}: ${r.reason}`);
      assert.match(r.reason, /^record contradicts its stack: /, `${key} ${what}`);
      assert.ok(
        r.reason.includes(
          `the config's rope_scaling lacks ${key}, which Transformers 4.5x requires`,
        ),
        `${key} ${what}: ${r.reason}`,
      );
    }
  }
  // Transformers 5 reads a non-empty rope_scaling as the RoPE: not modelled, no refusal.
  const v5 = await onTransformers5(hf);
  const r5 = await verifyAlone(
    withConfig(v5, hf.blobs, setField("rope_scaling", { Rope_Type: "default" })),
    hf.blobs,
  );
  assert.equal(r5.status, "NOT_VERIFIED", r5.reason);
  assert.match(r5.reason, /rope_scaling key '"Rope_Type"' is not modelled/);
  // 4.5x copies `type` over `rope_type` before validating: a default `type` beside a linear
  // `rope_type` without factor loads there (not modelled), so it is not refused.
  const loads = setField("rope_scaling", { rope_type: "linear", type: "default" });
  const r = await verifyAlone(withConfig(hf.honest, hf.blobs, loads), hf.blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /differ/);
});

Deno.test("a rope_scaling type the stack builds no RoPE of FAILs, honest or falsified: Transformers 4.5x looks it up in ROPE_INIT_FUNCTIONS (KeyError), vLLM 0.11's get_rope raises 'Unknown RoPE scaling type' (it was NOT_VERIFIED); a type the stack builds (yarn, dynamic; ntk on vLLM) and Transformers 5 stay NOT_VERIFIED", async () => {
  const { hf, vllm } = await hfAndVllm("qwen3-tiny-dense", "rope-type");
  const hfWhy =
    /runs HF Transformers: the config's rope_scaling type '"(bogus|Linear|ntk)"' is none Transformers 4\.5x builds \(.*\): its rotary embedding looks the type up in ROPE_INIT_FUNCTIONS, a KeyError/;
  const vllmWhy =
    /runs vLLM: the config's rope_scaling type '"(bogus|Linear)"' is none vLLM 0\.11 builds \(.*\): get_rope raises 'Unknown RoPE scaling type'/;
  const fails = [
    [hf, { rope_type: "bogus" }, hfWhy],
    [hf, { type: "Linear", factor: 2 }, hfWhy],
    [hf, { rope_type: "ntk", factor: 2 }, hfWhy],
    [vllm, { rope_type: "bogus" }, vllmWhy],
    [vllm, { type: "Linear", factor: 2 }, vllmWhy],
  ] as const;
  for (const [run, scaling, why] of fails) {
    const edit = setField("rope_scaling", scaling);
    for (const [what, record] of honestAndFalsified(run.honest)) {
      const r = await verifyAlone(withConfig(record, run.blobs, edit), run.blobs);
      const at = `${JSON.stringify(scaling)} ${what}`;
      assert.equal(r.status, "FAIL", `${at}: ${r.reason}`);
      assert.match(r.reason, /^record contradicts its stack: /, at);
      assert.match(r.reason, why, at);
    }
  }
  const v5 = await onTransformers5(hf);
  const stays = [
    [hf, hf.honest, { rope_type: "yarn", factor: 2, original_max_position_embeddings: 64 }],
    [hf, hf.honest, { rope_type: "dynamic", factor: 2 }],
    [vllm, vllm.honest, { rope_type: "ntk", factor: 2 }],
    [vllm, vllm.honest, { rope_type: "yarn", factor: 2, original_max_position_embeddings: 64 }],
    [hf, v5, { rope_type: "bogus" }],
  ] as const;
  for (const [{ blobs }, record, scaling] of stays) {
    const edit = setField("rope_scaling", scaling);
    const r = await verifyAlone(withConfig(record, blobs, edit), blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${JSON.stringify(scaling)}: ${r.reason}`);
    assert.match(r.reason, /rope_scaling\.rope_type '"[a-z]+"' is not modelled/, r.reason);
  }
});

Deno.test("vLLM: a legacy rope_scaling type 'mrope' without an mrope_section FAILs, honest or falsified: patch_rope_scaling_dict asserts one (it was NOT_VERIFIED); with one it loads (as default with M-RoPE sections) and stays NOT_VERIFIED", async () => {
  const vllm = await honestOf("qwen3-tiny-dense", { logId: "rope-mrope-vllm", ...VLLM_STACK });
  for (const scaling of [{ rope_type: "mrope" }, { type: "mrope" }]) {
    const edit = setField("rope_scaling", scaling);
    for (const [what, record] of honestAndFalsified(vllm.honest)) {
      const r = await verifyAlone(withConfig(record, vllm.blobs, edit), vllm.blobs);
      const at = `${JSON.stringify(scaling)} ${what}`;
      assert.equal(r.status, "FAIL", `${at}: ${r.reason}`);
      assert.match(
        r.reason,
        /runs vLLM: the config's rope_scaling type 'mrope' gives no mrope_section/,
        at,
      );
    }
  }
  const loads = setField("rope_scaling", { rope_type: "mrope", mrope_section: [16, 24, 24] });
  const r = await verifyAlone(withConfig(vllm.honest, vllm.blobs, loads), vllm.blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /rope_scaling\.rope_type '"mrope"' is not modelled/);
});

Deno.test("a rope_scaling rope_type and type each engine resolves its own way: Qwen's config class copies type over rope_type (4.5x and vLLM, which loads through it), so a null or built rope_type beside a bogus type FAILs, honest or falsified (it was NOT_VERIFIED); a bogus rope_type beside a default type loads and stays NOT_VERIFIED", async () => {
  const { hf, vllm } = await hfAndVllm("qwen3-tiny-dense", "rope-pair");
  const hfWhy =
    /runs HF Transformers: the config's rope_scaling type '"bogus"' is none Transformers 4\.5x builds/;
  const vllmWhy =
    /runs vLLM: the config's rope_scaling type '"bogus"' is none vLLM 0\.11 builds .*'Unknown RoPE scaling type'/;
  for (
    const scaling of [{ rope_type: null, type: "bogus" }, { rope_type: "yarn", type: "bogus" }]
  ) {
    for (const [run, why] of [[hf, hfWhy], [vllm, vllmWhy]] as const) {
      const edit = setField("rope_scaling", scaling);
      for (const record of [run.honest, flipFingerprint(run.honest)]) {
        const r = await verifyAlone(withConfig(record, run.blobs, edit), run.blobs);
        const at = JSON.stringify(scaling);
        assert.equal(r.status, "FAIL", `${at}: ${r.reason}`);
        assert.match(r.reason, /^record contradicts its stack: /, at);
        assert.match(r.reason, why, at);
      }
    }
  }
  // 4.5x's Qwen copies the default type over the bogus rope_type and builds the default RoPE.
  const loads = setField("rope_scaling", { rope_type: "bogus", type: "default" });
  for (const run of [hf, vllm]) {
    const r = await verifyAlone(withConfig(run.honest, run.blobs, loads), run.blobs);
    assert.equal(r.status, "NOT_VERIFIED", r.reason);
    assert.match(r.reason, /differ/, r.reason);
  }
  // Two types both modelled still differ: Mistral's class copies no type, so vLLM meets the pair
  // and refuses it; on HF 4.5x the pair stays not modelled.
  const pair = setField("rope_scaling", { rope_type: "linear", type: "default", factor: 2 });
  for (const [name, stack] of [["hf45x", {}], ["vllm", VLLM_STACK]] as const) {
    const m = await honestOf("mistral-tiny", { logId: `rope-pair-mistral-${name}`, ...stack });
    for (const record of [m.honest, flipFingerprint(m.honest)]) {
      const r = await verifyAlone(withConfig(record, m.blobs, pair), m.blobs);
      const what = `${name}: ${r.reason}`;
      assert.equal(r.status, name === "vllm" ? "FAIL" : "NOT_VERIFIED", what);
      assert.match(
        r.reason,
        name === "vllm"
          ? /record contradicts its stack: .*rope_type '"linear"' and type '"default"' differ, and vLLM 0\.11 refuses the pair/
          : /rope_scaling\.rope_type '"linear"' and its type '"default"' differ/,
        what,
      );
    }
  }
});
