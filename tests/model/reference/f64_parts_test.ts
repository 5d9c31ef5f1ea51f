/**
 * The reference's parts against hand-worked HF semantics: `rotate_half` RoPE, `repeat_kv` head
 * mapping, Qwen3-MoE routing (`softmax` -> `topk` -> optional renormalisation), and the
 * comparison metric.
 *
 * @module
 */
import assert from "node:assert/strict";
import { applyRope, causalAttention } from "./f64_attention.ts";
import { routeToken } from "./f64_moe.ts";
import { f64ToBf16 } from "./bf16_f64.ts";
import { rowErrors, withinTolerance } from "./within_tolerance.ts";

Deno.test("applyRope() turns the pairs (x[i], x[i + d/2]) by position * inv_freq[i]", () => {
  // One head of 4 at position 1 (row 1): pairs (x0, x2) by f0, (x1, x3) by f1.
  const f = Float64Array.of(0.5, 0.25);
  const x = Float64Array.of(0, 0, 0, 0, 1, 2, 3, 4);
  applyRope(x, { heads: 1, headDim: 4, invFreq: f });
  const [c0, s0, c1, s1] = [Math.cos(0.5), Math.sin(0.5), Math.cos(0.25), Math.sin(0.25)];
  assert.deepEqual(Array.from(x.subarray(4)), [
    1 * c0 - 3 * s0,
    2 * c1 - 4 * s1,
    3 * c0 + 1 * s0,
    4 * c1 + 2 * s1,
  ]);
});

Deno.test("causalAttention() maps query heads to KV heads in consecutive groups and masks the future", () => {
  // 4 query heads over 2 KV heads, head_dim 1, one token: heads 0, 1 read KV head 0; 2, 3 head 1.
  const y = causalAttention(new Float64Array(4), {
    k: new Float64Array(2),
    v: Float64Array.of(10, 20),
    heads: 4,
    kvHeads: 2,
    headDim: 1,
  });
  assert.deepEqual(Array.from(y), [10, 10, 20, 20]);
  // Two tokens, equal scores: token 0 sees only itself, token 1 averages both.
  const z = causalAttention(new Float64Array(2), {
    k: new Float64Array(2),
    v: Float64Array.of(2, 6),
    heads: 1,
    kvHeads: 1,
    headDim: 1,
  });
  assert.deepEqual(Array.from(z), [2, 4]);
});

Deno.test("routeToken() takes the top-k of the softmax over all experts, renormalising when asked", () => {
  const logits = [Math.log(1), Math.log(4), Math.log(2), Math.log(3)]; // p = 0.1, 0.4, 0.2, 0.3
  const raw = routeToken(logits, { topK: 2, normTopkProb: false });
  assert.deepEqual(raw.experts, [1, 3]);
  raw.weights.forEach((w, i) => assert.ok(Math.abs(w - [0.4, 0.3][i]!) < 1e-15));
  assert.ok(Math.abs(raw.margin - 0.1) < 1e-15);
  const norm = routeToken(logits, { topK: 2, normTopkProb: true });
  norm.weights.forEach((w, i) => assert.ok(Math.abs(w - [4 / 7, 3 / 7][i]!) < 1e-15));
  assert.deepEqual(routeToken([1, 1, 1], { topK: 2, normTopkProb: true }).experts, [0, 1]);
  assert.equal(routeToken([0, 1], { topK: 2, normTopkProb: false }).margin, Infinity);
  assert.throws(() => routeToken([0, 1], { topK: 3, normTopkProb: false }), RangeError);
});

Deno.test("withinTolerance() measures against the row RMS, or in normalised units given the norm weight", () => {
  const ref = Float64Array.of(1, -1, 40, 1);
  const w = Float64Array.of(1, 1, 40, 1);
  const emu = Uint16Array.from([1, -1, 40.5, 1], f64ToBf16);
  const rms = Math.sqrt((1 + 1 + 1600 + 1) / 4);
  assert.equal(withinTolerance(emu, ref, 4), 0.5 / rms);
  // x_hat = (1, -1, 1, 1): the 40x channel's error is 0.5 / 40 of an RMS of 1.
  assert.equal(withinTolerance(emu, ref, 4, { normWeight: w }), 0.5 / 40);
  assert.ok(Number.isNaN(withinTolerance(Uint16Array.of(0x7fc0), Float64Array.of(1), 1)));
  assert.deepEqual(
    Array.from(
      rowErrors(Uint16Array.of(0x3f80, 0x4000), { reference: Float64Array.of(1, 1), hidden: 1 }),
    ),
    [0, 1],
  );
  assert.throws(() => withinTolerance(emu, ref, 3), TypeError);
});
