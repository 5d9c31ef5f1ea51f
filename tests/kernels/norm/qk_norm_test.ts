import assert from "node:assert/strict";
import { createSfu } from "../../../src/hardware/mod.ts";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import {
  executePlan,
  pytorchReducePlan,
  REDUCE_STACK_CUDA_LEGACY,
  REDUCE_STACK_CUDA_RECENT as stack,
} from "../../../src/kernels/reduce/mod.ts";
import { qkNorm, rmsNorm } from "../../../src/kernels/norm/mod.ts";

const sfu = createSfu({ mode: "ieee" });
const x = Uint16Array.from({ length: 8 * 128 }, (_, i) => 0x3f80 + ((i * 37) % 200) - 100);
const weight = Uint16Array.from({ length: 128 }, (_, i) => 0x3f80 + (i % 9));

Deno.test("`qkNorm()` equals rmsNorm over tokens x heads rows with one shared weight", () => {
  const q = qkNorm(x, { tokens: 2, heads: 4, weight, sfu, stack });
  const r = rmsNorm(x, { rows: 8, hidden: 128, weight, sfu, stack });
  assert.deepEqual(q.output, r.output);
  assert.equal(q.factor, 0x3c000000);
});

Deno.test("`qkNorm()` reduces with width-32 plans for num_outputs = tokens x heads (1 token, 8 heads)", () => {
  const q = qkNorm(x, { tokens: 1, heads: 8, weight, sfu, stack });
  const plan = pytorchReducePlan({ outputs: 8, length: 128 }, { stack });
  assert.equal(plan.config.blockWidth, 32);
  for (let h = 0; h < 8; h++) {
    const sq = Uint32Array.from(x.subarray(h * 128, (h + 1) * 128), (b) => {
      const v = f32FromBits(b << 16);
      return bitsFromF32(v * v);
    });
    assert.equal(q.sumsq[h], executePlan(plan, sq));
  }
  // The legacy stack takes the strided path for H = 128 (`dim0 > 128` is false): 64 lanes here.
  assert.equal(
    pytorchReducePlan({ outputs: 8, length: 128 }, { stack: REDUCE_STACK_CUDA_LEGACY }).config
      .blockWidth,
    64,
  );
});

Deno.test("`qkNorm()` throws on non-positive sizes and wrong lengths", () => {
  assert.throws(() => qkNorm(x, { tokens: 0, heads: 8, weight, sfu, stack }), RangeError);
  assert.throws(() => qkNorm(x, { tokens: 2, heads: 8, weight, sfu, stack }), TypeError);
});
