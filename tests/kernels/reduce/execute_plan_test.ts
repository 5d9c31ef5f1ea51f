import assert from "node:assert/strict";
import fc from "fast-check";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import { executePlan, sequentialPlan } from "../../../src/kernels/reduce/mod.ts";

Deno.test("`executePlan()` on a sequential plan equals a left fold", () => {
  const finite = fc.float({ noNaN: true, noDefaultInfinity: true }).map((v) => bitsFromF32(v));
  fc.assert(
    fc.property(fc.array(finite, { maxLength: 300 }), (xs) => {
      const x = Uint32Array.from(xs);
      let acc = 0;
      for (const b of xs) acc = Math.fround(acc + f32FromBits(b));
      assert.equal(executePlan(sequentialPlan(x.length), x), bitsFromF32(acc));
    }),
    { numRuns: 200 },
  );
});

Deno.test("`executePlan()` starts registers at +0 and reads from an offset", () => {
  const negZeros = new Uint32Array(4).fill(0x80000000);
  assert.equal(executePlan(sequentialPlan(4), negZeros), 0); // 0 + -0 = +0
  const x = Uint32Array.of(0x40000000, 0x3f800000, 0x3f800000);
  assert.equal(executePlan(sequentialPlan(2), x, { offset: 1 }), 0x40000000);
  assert.throws(() => executePlan(sequentialPlan(3), x, { offset: 1 }), RangeError);
});
