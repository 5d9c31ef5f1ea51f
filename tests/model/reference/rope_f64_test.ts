/**
 * RoPE inverse frequencies of the float64 reference against values worked by hand from HF's
 * `_compute_llama3_parameters` / `_compute_linear_scaling_rope_parameters` on Llama 3.1's
 * published `config.json` (meta-llama/Llama-3.1-8B: `rope_theta` 500000, `rope_scaling`
 * `{factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192,
 * rope_type: "llama3"}`, head_dim 4096 / 32 = 128), and the reading of both config layouts.
 *
 * Worked by hand: `inv_freq[i] = 500000^(-i/64)`, `wavelen = 2 pi / inv_freq`; wavelengths below
 * 8192 / 4 = 2048 keep their frequency (i <= 28: wavelen(28) = 1956.5), above 8192 / 1 = 8192 are
 * divided by 8 (i >= 35: wavelen(35) = 8218.7), and i = 29..34 are interpolated with
 * `s = (8192 / wavelen - 1) / 3`: `inv * ((1 - s) / 8 + s)`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { defaultInvFreq, linearInvFreq, llama3InvFreq, ropeInvFreq, ropeSpec } from "./rope_f64.ts";

const LLAMA31 = Object.freeze({
  model_type: "llama",
  hidden_size: 4096,
  num_attention_heads: 32,
  max_position_embeddings: 131072,
  rope_theta: 500000.0,
  rope_scaling: {
    factor: 8.0,
    low_freq_factor: 1.0,
    high_freq_factor: 4.0,
    original_max_position_embeddings: 8192,
    rope_type: "llama3",
  },
});

const close = (a: number, b: number, rel = 1e-13) =>
  assert.ok(Math.abs(a - b) <= rel * Math.abs(b), `${a} is not ${b}`);

Deno.test("llama3InvFreq() on Llama 3.1's config matches hand-worked values in each band", () => {
  const f = ropeInvFreq(ropeSpec(LLAMA31, 128));
  assert.equal(f.length, 64);
  // High-frequency band: unchanged.
  assert.equal(f[0], 1);
  close(f[10]!, 0.12868737343265052);
  close(f[28]!, 0.0032114459947525913);
  // Smooth band: s(29) = 0.803621..., s(30) = 0.592849..., s(34) = 0.074526...
  close(f[29]!, 0.002166570763503359);
  close(f[30]!, 0.0013718935677611381);
  close(f[34]!, 0.00017850781276799638);
  // Low-frequency band: divided by the factor.
  close(f[35]!, 0.0007644969883171747 / 8);
  close(f[63]!, 2.455140791131609e-6 / 8);
});

Deno.test("llama3InvFreq() keeps the high band, divides the low band and interpolates between", () => {
  const o = {
    theta: 500000,
    dim: 128,
    factor: 8,
    lowFreqFactor: 1,
    highFreqFactor: 4,
    originalMaxPositionEmbeddings: 8192,
  };
  const plain = defaultInvFreq(o);
  const f = llama3InvFreq(o);
  for (let i = 0; i < 64; i++) {
    const wavelen = (2 * Math.PI) / plain[i]!;
    if (i <= 28) assert.equal(f[i], plain[i], `index ${i}`);
    else if (i >= 35) assert.equal(f[i], plain[i]! / 8, `index ${i}`);
    else {
      const s = (8192 / wavelen - 1) / 3;
      assert.ok(s > 0 && s < 1, `index ${i}: smooth factor ${s}`);
      close(f[i]!, plain[i]! * ((1 - s) / 8 + s));
      assert.ok(f[i]! < plain[i]! && f[i]! > plain[i]! / 8);
    }
  }
});

Deno.test("linearInvFreq() divides every default frequency by the factor", () => {
  const plain = defaultInvFreq({ theta: 10000, dim: 64 });
  const lin = linearInvFreq({ theta: 10000, dim: 64, factor: 4 });
  plain.forEach((v, i) => assert.equal(lin[i], v / 4));
  close(plain[1]!, 10000 ** (-2 / 64));
  const cfg = { rope_theta: 10000, rope_scaling: { type: "linear", factor: 4 } };
  assert.deepEqual(ropeInvFreq(ropeSpec(cfg, 64)), lin);
});

Deno.test("ropeSpec() reads the 4.5x and 5.x layouts alike, with 5.x precedence", () => {
  const v5 = {
    max_position_embeddings: 131072,
    rope_parameters: { ...LLAMA31.rope_scaling, rope_theta: 500000 },
  };
  assert.deepEqual(ropeSpec(v5, 128), ropeSpec(LLAMA31, 128));
  // rope_theta: the dict's, then the top level, then 10000.
  assert.equal(ropeSpec({ rope_theta: 3, rope_parameters: { rope_theta: 5 } }, 8).theta, 5);
  assert.equal(ropeSpec({ rope_theta: 3, rope_parameters: { rope_type: "default" } }, 8).theta, 3);
  assert.equal(ropeSpec({}, 8).theta, 10000);
  assert.equal(ropeSpec({ rope_scaling: null }, 8).ropeType, "default");
  // A non-empty legacy rope_scaling wins over rope_parameters.
  const both = {
    rope_scaling: { type: "linear", factor: 2 },
    rope_parameters: { rope_type: "default" },
  };
  assert.equal(ropeSpec(both, 8).ropeType, "linear");
  // Nested under the layer type.
  assert.equal(ropeSpec({ rope_parameters: { full_attention: { rope_theta: 7 } } }, 8).theta, 7);
  // llama3's pre-training context: top level, then the dict, then max_position_embeddings.
  const { original_max_position_embeddings: _, ...noOld } = LLAMA31.rope_scaling;
  assert.equal(
    ropeSpec({ ...LLAMA31, rope_scaling: noOld }, 128).originalMaxPositionEmbeddings,
    131072,
  );
  assert.equal(
    ropeSpec({ ...LLAMA31, original_max_position_embeddings: 4096 }, 128)
      .originalMaxPositionEmbeddings,
    4096,
  );
});

Deno.test("ropeSpec() refuses RoPE variants the reference does not model", () => {
  assert.throws(() => ropeSpec({ rope_scaling: { rope_type: "yarn", factor: 4 } }, 8), RangeError);
  assert.throws(() => ropeSpec({ rope_scaling: { rope_type: "linear" } }, 8), RangeError);
  assert.throws(() => ropeSpec({ partial_rotary_factor: 0.5 }, 8), RangeError);
  assert.throws(() => defaultInvFreq({ theta: 10000, dim: 7 }), RangeError);
});
