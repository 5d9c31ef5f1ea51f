/**
 * vLLM's `topk_softmax` (router of the fused-MoE path) and `moe_sum` (its combine): the warp
 * kernel's lane layouts (16-byte loads for powers of two, 8-byte loads for multiples of 64) and
 * the 256-thread block kernels otherwise give the softmax within 2 ulp of float64 and pick the
 * top-k in descending order with ties to the lower expert; `moe_sum` adds slots in order in BF16.
 */
import assert from "node:assert/strict";
import { createSfu } from "../../../src/hardware/mod.ts";
import { vllmMoeSum, vllmTopkSoftmax } from "../../../src/kernels/mod.ts";
import { f32FromBits } from "../../../src/numerics/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";

const mufu = createSfu({ mode: "ieee" });

function softmax64(row: Uint16Array): number[] {
  const x = Array.from(row, (b) => f32FromBits(b << 16));
  const m = Math.max(...x);
  const w = x.map((v) => Math.exp(v - m));
  const z = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / z);
}

Deno.test("vllmTopkSoftmax(): warp and block kernels are within 2 ulp of float64 and rank like it", () => {
  for (
    const [experts, kernel] of [[8, "warp"], [128, "warp"], [192, "warp"], [512, "warp"], [
      60,
      "block",
    ], [300, "block"]] as const
  ) {
    const rows = 6, k = 4;
    const logits = synthBf16(`topk-${experts}`, { label: "l", count: rows * experts, span: 6 });
    const r = vllmTopkSoftmax(logits, { rows, experts, topK: k, mufu });
    assert.equal(r.kernel, kernel, `${experts}`);
    for (let t = 0; t < rows; t++) {
      const p = softmax64(logits.subarray(t * experts, (t + 1) * experts));
      const order = p.map((_, i) => i).sort((a, b) => p[b]! - p[a]! || a - b);
      for (let s = 0; s < k; s++) {
        const got = f32FromBits(r.weights[t * k + s]!);
        const want = p[r.ids[t * k + s]!]!;
        assert.ok(Math.abs(got - want) <= 2 * 2 ** -23 * want, `${experts} row ${t} slot ${s}`);
        // Where float64 separates the candidates clearly, the kernel picks as it does.
        const gap = Math.abs(p[order[s]!]! - p[order[s + 1]!]!);
        if (gap > 2 ** -20 * p[order[s]!]!) assert.equal(r.ids[t * k + s], order[s], `${experts}`);
      }
    }
  }
});

Deno.test("vllmTopkSoftmax(): equal probabilities go to the lower expert, in every lane layout", () => {
  for (const experts of [4, 8, 64, 128, 256, 192, 100]) {
    const logits = new Uint16Array(experts).fill(0x3f80);
    logits[experts - 1] = 0x4000; // the last expert is the clear winner
    const r = vllmTopkSoftmax(logits, { rows: 1, experts, topK: 3, mufu });
    assert.deepEqual(Array.from(r.ids), [experts - 1, 0, 1], `${experts}`);
    assert.equal(r.weights[1], r.weights[2]);
  }
});

Deno.test("vllmTopkSoftmax() refuses bad shapes", () => {
  const l = new Uint16Array(8);
  assert.throws(() => vllmTopkSoftmax(l, { rows: 1, experts: 8, topK: 9, mufu }), /top-9 of 8/);
  assert.throws(() => vllmTopkSoftmax(l, { rows: 2, experts: 8, topK: 2, mufu }), /expected 2 x 8/);
  assert.throws(() => vllmTopkSoftmax(l, { rows: 0, experts: 8, topK: 2, mufu }), /rows 0/);
});

Deno.test("vllmMoeSum(): top-8 through PyTorch's strided sum: four FP32 accumulators (slot i to i mod 4), folded in order, one BF16 rounding", () => {
  // Slots 256, 1, 0, 0, -256, 1, 0, 0: accumulator 0 gets 256 and -256 (0), accumulator 1 the
  // two ones (2); the fold gives 2, exactly.
  const v = (x: number) => (new Uint32Array(new Float32Array([x]).buffer)[0]! >>> 16);
  const slots = [256, 1, 0, 0, -256, 1, 0, 0].map(v);
  assert.equal(vllmMoeSum(Uint16Array.from(slots), { k: 8, hidden: 1 })[0], v(2));
  // moe_sum's own kernel adds in slot order in BF16: 256 + 1 rounds back to 256 (8 bits).
  const sequential = Uint16Array.from(slots.slice(0, 4));
  assert.equal(vllmMoeSum(sequential, { k: 4, hidden: 1 })[0], v(256));
});

Deno.test("vllmMoeSum(): slot order, one BF16 rounding per add; top-k outside 2..15 refused", () => {
  // 1 + 2^-8 rounds to 1 (tie to even), then 1 + 2^-8 again: 1. In the other order 2^-8 + 2^-8
  // is 2^-7 first, and 1 + 2^-7 is exact.
  const a = Uint16Array.of(0x3f80, 0x3b80, 0x3b80); // 1, 2^-8, 2^-8 for one token, hidden 1
  assert.equal(vllmMoeSum(a, { k: 3, hidden: 1 })[0], 0x3f80);
  assert.equal(vllmMoeSum(Uint16Array.of(0x3b80, 0x3b80, 0x3f80), { k: 3, hidden: 1 })[0], 0x3f81);
  assert.throws(() => vllmMoeSum(new Uint16Array(16), { k: 16, hidden: 1 }), /top-16 is not/);
  assert.throws(() => vllmMoeSum(new Uint16Array(3), { k: 2, hidden: 2 }), /not \[tokens, 2, 2\]/);
});
