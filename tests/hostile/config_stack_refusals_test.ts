/**
 * Config values the stated stack refuses to load, or loads and runs without modelling, read as
 * that stack does: a record over a config its stack cannot load FAILs (it had been NOT_VERIFIED,
 * so that a falsified record was never caught), and one over a config the stack runs is never
 * FAILed for it (`rms_norm_eps` NaN or infinite had FAILed an honest record).
 */
import assert from "node:assert/strict";
import {
  assertHeldToFingerprint,
  honestOf,
  setField,
  VLLM_STACK,
  withConfig,
} from "./_config_edit.ts";
import { flipFingerprint, honestAndFalsified, verifyAlone } from "./_recompute_fixture.ts";

const STACKS = [["hf45x", {}], ["vllm", VLLM_STACK]] as const;

Deno.test("rms_norm_eps NaN or infinite is NOT_VERIFIED on HF and vLLM stacks, which run the model (it FAILed an honest record)", async () => {
  for (const [name, stack] of STACKS) {
    const { honest, blobs } = await honestOf("qwen3-tiny-dense", {
      logId: `eps-${name}`,
      ...stack,
    });
    for (const v of ["NaN", "Infinity", "-Infinity", "1e400"]) {
      const eps = (t: string) => {
        assert.ok(t.includes('"rms_norm_eps": 1e-06'));
        return t.replace('"rms_norm_eps": 1e-06', `"rms_norm_eps": ${v}`);
      };
      for (
        const [who, p] of honestAndFalsified(honest)
      ) {
        const r = await verifyAlone(withConfig(p, blobs, eps), blobs);
        assert.equal(r.status, "NOT_VERIFIED", `${name} ${v} ${who}: ${r.reason}`);
        assert.match(
          r.reason,
          /rms_norm_eps '(-?Infinity|NaN)' \(not a finite number\) is not finite/,
        );
      }
    }
  }
});

Deno.test("rms_norm_eps not modelled (NaN, 0) masks no refusal of the stack: architectures [] still FAILs on vLLM, a rope_scaling type 4.5x builds no RoPE of on HF (a prover could add the eps to turn the FAIL into NOT_VERIFIED)", async () => {
  const vllm = await honestOf("qwen3-tiny-dense", { logId: "eps-arch-vllm", ...VLLM_STACK });
  const hf = await honestOf("qwen3-tiny-dense", { logId: "eps-rope-hf" });
  for (const v of ["NaN", "0"]) {
    // After setField's JSON.stringify, which writes 1e-06 as 0.000001 without spaces.
    const eps = (t: string) => {
      assert.ok(t.includes('"rms_norm_eps":0.000001'));
      return t.replace('"rms_norm_eps":0.000001', `"rms_norm_eps":${v}`);
    };
    const none = (t: string) => eps(setField("architectures", [])(t));
    const bogus = (t: string) => eps(setField("rope_scaling", { type: "bogus" })(t));
    for (const [who, p] of honestAndFalsified(vllm.honest)) {
      const r = await verifyAlone(withConfig(p, vllm.blobs, none), vllm.blobs);
      assert.equal(r.status, "FAIL", `vllm ${v} ${who}: ${r.reason}`);
      assert.match(r.reason, /names no architectures/, who);
    }
    for (const [who, p] of honestAndFalsified(hf.honest)) {
      const r = await verifyAlone(withConfig(p, hf.blobs, bogus), hf.blobs);
      assert.equal(r.status, "FAIL", `hf ${v} ${who}: ${r.reason}`);
      assert.match(r.reason, /rope_scaling type '"bogus"' is none Transformers 4\.5x builds/, who);
    }
  }
});

Deno.test("architectures [] names no class, as null does: a vLLM record FAILs (vLLM raises 'No model architectures are specified'), an HF one is recomputed (it was NOT_VERIFIED)", async () => {
  const none = setField("architectures", []);
  const vllm = await honestOf("qwen3-tiny-dense", { logId: "arch-empty-vllm", ...VLLM_STACK });
  for (const [who, p] of honestAndFalsified(vllm.honest)) {
    const r = await verifyAlone(withConfig(p, vllm.blobs, none), vllm.blobs);
    assert.equal(r.status, "FAIL", `${who}: ${r.reason}`);
    assert.match(r.reason, /record contradicts its stack: .*names no architectures/, who);
  }
  const hf = await honestOf("qwen3-tiny-dense", { logId: "arch-empty-hf" });
  const pass = await verifyAlone(withConfig(hf.honest, hf.blobs, none), hf.blobs);
  assert.equal(pass.status, "PASS", pass.reason);
  const lie = await verifyAlone(withConfig(flipFingerprint(hf.honest), hf.blobs, none), hf.blobs);
  assert.equal(lie.status, "FAIL", lie.reason);
  assert.equal(lie.finding, "fingerprint", lie.reason);
});

Deno.test("head_dim 0 FAILs where the attention computes head_dim**-0.5 (HF's Llama, Qwen2, Qwen3 and Qwen3-MoE classes; vLLM's Llama class, which runs Mistral too) and stays NOT_VERIFIED where it builds the default width (HF's Mistral, vLLM's Qwen classes); it was NOT_VERIFIED on both", async () => {
  const zero = setField("head_dim", 0);
  for (const dir of ["qwen3-tiny-dense", "qwen3-tiny-moe", "llama3-tiny", "qwen2-tiny"]) {
    // The prover makes no vLLM record of llama3's scaled RoPE.
    for (const [name, stack] of dir === "llama3-tiny" ? STACKS.slice(0, 1) : STACKS) {
      const { honest, blobs } = await honestOf(dir, { logId: `hd0-${dir}-${name}`, ...stack });
      for (const [who, p] of honestAndFalsified(honest)) {
        const r = await verifyAlone(withConfig(p, blobs, zero), blobs);
        const what = `${dir} ${name} ${who}: ${r.reason}`;
        if (name === "vllm") {
          assert.equal(r.status, "NOT_VERIFIED", what);
          assert.match(r.reason, /head_dim 0 is not modelled/, what);
        } else {
          assert.equal(r.status, "FAIL", what);
          assert.match(r.reason, /record contradicts its stack: .*head_dim is 0.*\*\*-0\.5/, what);
        }
      }
    }
  }
  // HF's Mistral attention reads head_dim or hidden // heads: not modelled; vLLM runs Mistral
  // through its Llama class, whose head_dim**-0.5 raises.
  for (const [name, stack] of STACKS) {
    const m = await honestOf("mistral-tiny", { logId: `hd0-mistral-${name}`, ...stack });
    for (const [who, p] of honestAndFalsified(m.honest)) {
      const r = await verifyAlone(withConfig(p, m.blobs, zero), m.blobs);
      const what = `mistral-tiny ${name} ${who}: ${r.reason}`;
      if (name === "vllm") {
        assert.equal(r.status, "FAIL", what);
        assert.match(r.reason, /vLLM 0\.11's Llama attention .*head_dim\*\*-0\.5/, what);
      } else assert.equal(r.status, "NOT_VERIFIED", what);
    }
  }
});

Deno.test("num_key_value_heads false divides by zero as 0 does: FAILs on HF and vLLM; true is one KV head, recomputed (both were NOT_VERIFIED)", async () => {
  for (const [name, stack] of STACKS) {
    const { honest, blobs } = await honestOf("qwen3-tiny-dense", { logId: `kv-${name}`, ...stack });
    for (const [who, p] of honestAndFalsified(honest)) {
      const r = await verifyAlone(
        withConfig(p, blobs, setField("num_key_value_heads", false)),
        blobs,
      );
      assert.equal(r.status, "FAIL", `${name} ${who}: ${r.reason}`);
      assert.match(r.reason, /num_key_value_heads must be an integer in 1\.\.1024, got 'false'/);
    }
    // The tiny model has one KV head.
    await assertHeldToFingerprint(honest, blobs, setField("num_key_value_heads", true), name);
  }
});

Deno.test("hidden_act other than silu FAILs on vLLM, whose dense MLP raises 'Only silu is supported', and on HF 4.5x for a name outside ACT2FN (KeyError); a name HF builds stays NOT_VERIFIED there (all were NOT_VERIFIED)", async () => {
  const vllmRefuses = /record contradicts its stack: .*hidden_act .*\('Unsupported activation/;
  const hfRefuses =
    /record contradicts its stack: .*hidden_act .* not in Transformers 4\.5x's ACT2FN/;
  for (const dir of ["qwen3-tiny-dense", "qwen3-tiny-moe", "llama3-tiny", "qwen2-tiny"]) {
    for (const [name, stack] of dir === "llama3-tiny" ? STACKS.slice(0, 1) : STACKS) {
      const { honest, blobs } = await honestOf(dir, { logId: `act-${dir}-${name}`, ...stack });
      for (const act of ["gelu", "SiLU", "foo\u001b[31m", 7, ["silu"]]) {
        for (const [who, p] of honestAndFalsified(honest)) {
          const r = await verifyAlone(withConfig(p, blobs, setField("hidden_act", act)), blobs);
          const what = `${dir} ${name} ${JSON.stringify(act)} ${who}: ${r.reason}`;
          assert.ok(!r.reason.includes("\u001b"), what);
          if (name === "hf45x" && act === "gelu") {
            assert.equal(r.status, "NOT_VERIFIED", what);
            assert.match(r.reason, /hidden_act '"gelu"' is not modelled \(silu\)/, what);
          } else {
            assert.equal(r.status, "FAIL", what);
            assert.match(r.reason, name === "vllm" ? vllmRefuses : hfRefuses, what);
          }
        }
      }
    }
  }
  // vLLM's Qwen3-MoE sparse blocks take no activation from the config (FusedMoE's silu): with no
  // dense layer, the model runs, not modelled.
  const moe = await honestOf("qwen3-tiny-moe", { logId: "act-moe-sparse", ...VLLM_STACK });
  const sparse = (t: string) =>
    JSON.stringify({ ...JSON.parse(t), mlp_only_layers: [], hidden_act: "gelu" });
  for (const [who, p] of honestAndFalsified(moe.honest)) {
    const r = await verifyAlone(withConfig(p, moe.blobs, sparse), moe.blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${who}: ${r.reason}`);
    assert.match(r.reason, /hidden_act '"gelu"' is not modelled/, who);
  }
});

Deno.test("hidden_act 'swish', ACT2FN's other name for silu, is no silu read: NOT_VERIFIED on HF 4.5x and FAILed on vLLM, whose MLP compares the name with 'silu', honest or falsified; every other ACT2FN name is NOT_VERIFIED on HF 4.5x", async () => {
  for (const [name, stack] of STACKS) {
    const { honest, blobs } = await honestOf("qwen3-tiny-dense", {
      logId: `swish-${name}`,
      ...stack,
    });
    for (const [who, p] of honestAndFalsified(honest)) {
      const r = await verifyAlone(withConfig(p, blobs, setField("hidden_act", "swish")), blobs);
      const what = `${name} ${who}: ${r.reason}`;
      assert.equal(r.status, name === "vllm" ? "FAIL" : "NOT_VERIFIED", what);
      assert.match(
        r.reason,
        name === "vllm"
          ? /record contradicts its stack: .*hidden_act '"swish"' is not silu/
          : /hidden_act '"swish"' is not modelled \(silu\)/,
        what,
      );
    }
  }
  // Transformers 4.57.6 activations.py, ACT2CLS: each name builds an MLP, none of them modelled.
  const act2fn = [
    "gelu",
    "gelu_10",
    "gelu_fast",
    "gelu_new",
    "gelu_python",
    "gelu_pytorch_tanh",
    "gelu_python_tanh",
    "gelu_accurate",
    "laplace",
    "leaky_relu",
    "linear",
    "mish",
    "quick_gelu",
    "relu",
    "relu2",
    "relu6",
    "sigmoid",
    "swish",
    "tanh",
    "prelu",
    "xielu",
  ];
  const { honest, blobs } = await honestOf("qwen3-tiny-dense", { logId: "act2fn-hf45x" });
  for (const act of act2fn) {
    const r = await verifyAlone(withConfig(honest, blobs, setField("hidden_act", act)), blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${act}: ${r.reason}`);
    assert.match(r.reason, new RegExp(`hidden_act '"${act}"' is not modelled \\(silu\\)`), act);
  }
});

Deno.test("decoder_sparse_step and num_experts false are read as 0, as Python computes with them: the step FAILs (ZeroDivisionError), no experts FAILs on vLLM; a true step is 1, recomputed (all were NOT_VERIFIED)", async () => {
  for (const [name, stack] of STACKS) {
    const { honest, blobs } = await honestOf("qwen3-tiny-moe", {
      logId: `moe-b-${name}`,
      ...stack,
    });
    for (const key of ["decoder_sparse_step", "num_experts"]) {
      for (const [who, p] of honestAndFalsified(honest)) {
        const zero = await verifyAlone(withConfig(p, blobs, setField(key, 0)), blobs);
        const r = await verifyAlone(withConfig(p, blobs, setField(key, false)), blobs);
        const what = `${name} ${key} ${who}: ${r.reason}`;
        assert.equal(r.status, zero.status, `${what} / 0: ${zero.reason}`);
        // vLLM refuses no experts; HF builds every layer dense, not modelled.
        const fails = key === "decoder_sparse_step" || name === "vllm";
        assert.equal(r.status, fails ? "FAIL" : "NOT_VERIFIED", what);
        assert.match(
          r.reason,
          key === "num_experts" ? /num_experts 0/ : /decoder_sparse_step false/,
          what,
        );
      }
    }
    // The tiny MoE's step is 1.
    await assertHeldToFingerprint(honest, blobs, setField("decoder_sparse_step", true), name);
    // One expert from `True` is left unread (HF builds its router as nn.Linear(hidden, True)).
    const t = await verifyAlone(withConfig(honest, blobs, setField("num_experts", true)), blobs);
    assert.equal(t.status, "NOT_VERIFIED", `${name}: ${t.reason}`);
  }
});

Deno.test("pad_token_id a string FAILs on HF stacks, whose embedding compares it with 0 (PyTorch: TypeError), and stays NOT_VERIFIED on vLLM, which never reads it (both were NOT_VERIFIED)", async () => {
  for (const [name, stack] of STACKS) {
    const { honest, blobs } = await honestOf("qwen3-tiny-dense", {
      logId: `pad-${name}`,
      ...stack,
    });
    for (const v of ["0", "x\u001b[2J", [1]]) {
      for (const [who, p] of honestAndFalsified(honest)) {
        const r = await verifyAlone(withConfig(p, blobs, setField("pad_token_id", v)), blobs);
        const what = `${name} ${JSON.stringify(v)} ${who}: ${r.reason}`;
        assert.ok(!r.reason.includes("\u001b"), what);
        assert.equal(r.status, name === "vllm" ? "NOT_VERIFIED" : "FAIL", what);
        assert.match(
          r.reason,
          name === "vllm"
            ? /pad_token_id .* is not an integer/
            : /record contradicts its stack: .*pad_token_id .*\(padding_idx > 0: TypeError\)/,
          what,
        );
      }
    }
    // A float stays not modelled on both, 0.0 too (it is no integer 0 to the reader).
    for (const v of ["1.5", "0.0"]) {
      const f = await verifyAlone(
        withConfig(honest, blobs, (t) => t.replace(/}\s*$/, `, "pad_token_id": ${v}}`)),
        blobs,
      );
      assert.equal(f.status, "NOT_VERIFIED", `${name} ${v}: ${f.reason}`);
      assert.match(f.reason, /pad_token_id '[\d.]+' is not an integer/, `${name} ${v}`);
    }
  }
});
