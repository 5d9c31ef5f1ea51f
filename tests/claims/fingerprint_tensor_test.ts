import assert from "node:assert/strict";
import { fingerprintTensorMismatch } from "../../src/claims/mod.ts";

Deno.test("fingerprintTensorMismatch() takes a GEMM's `<module>.out` and refuses a block's, the final norm's and other names", () => {
  for (
    const t of ["layers.0.k_proj.out", "model.layers.12.self_attn.qkv_proj.out", "lm_head.out"]
  ) {
    assert.equal(fingerprintTensorMismatch("gemm", t), null, t);
  }
  for (
    const t of [
      "lm_head.logits",
      "y",
      ".out",
      "layers..q_proj.out",
      "layers.0.q proj.out",
      "layers.7.attention_block.out",
      "layers.0.ffn_block.out",
      "model.norm.out",
    ]
  ) {
    assert.match(fingerprintTensorMismatch("gemm", t) ?? "", /'<module>\.out'/, t);
  }
});

Deno.test("fingerprintTensorMismatch() takes a block's own name at any layer and nothing else", () => {
  assert.equal(fingerprintTensorMismatch("attention_block", "layers.31.attention_block.out"), null);
  assert.equal(fingerprintTensorMismatch("ffn_block", "layers.0.ffn_block.out"), null);
  for (
    const t of [
      "layers.0.attention_block.out",
      "layers.5.self_attn.o_proj.out",
      "layers.01.ffn_block.out",
      "model.layers.0.ffn_block.out",
      "layers.-1.ffn_block.out",
    ]
  ) {
    assert.equal(fingerprintTensorMismatch("ffn_block", t), "'layers.<layer>.ffn_block.out'", t);
  }
});

Deno.test("fingerprintTensorMismatch() fixes model records to the final norm and leaves unknown kinds alone", () => {
  assert.equal(fingerprintTensorMismatch("model_forward", "model.norm.out"), null);
  assert.equal(fingerprintTensorMismatch("sequence", "layers.0.ffn_block.out"), "'model.norm.out'");
  assert.equal(fingerprintTensorMismatch("decode_step", "hidden_state"), null);
});
