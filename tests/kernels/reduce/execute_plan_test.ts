import assert from "node:assert/strict";
import fc from "fast-check";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import { F32_RN } from "../../../src/hardware/mod.ts";
import { SPECIAL_F32 } from "../../_f32_specials.ts";
import {
  executePlan,
  type ReductionPlan,
  sequentialPlan,
} from "../../../src/kernels/reduce/mod.ts";
import { _executeFlatF32, _flattenPlan } from "../../../src/kernels/reduce/execute_plan.ts";

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

/** The plan evaluated with the FP32 unit's bit-level add (canonical NaN after every add). */
function referenceExecute(plan: ReductionPlan, values: Uint32Array, offset = 0): number {
  const regs = plan.registers.map((order) => {
    let acc = 0;
    for (const i of order) acc = F32_RN.add(acc, values[offset + i]!);
    return acc;
  });
  for (const [dst, src] of plan.steps) regs[dst] = F32_RN.add(regs[dst]!, regs[src]!);
  return regs[plan.result]!;
}

Deno.test("`executePlan()` (float64 sums rounded to binary32) equals the FP32 unit's add on adversarial patterns", () => {
  // NaNs with payloads, both infinities, both zeros, subnormals, the extremes and random patterns.
  const special = SPECIAL_F32;
  const pattern = fc.oneof(
    fc.constantFrom(...special),
    fc.integer({ min: 0, max: 0xffffffff }),
    fc.float({ noNaN: true }).map((v) => bitsFromF32(v)),
  );
  fc.assert(
    fc.property(
      fc.array(pattern, { minLength: 1, maxLength: 200 }),
      fc.integer({ min: 1, max: 8 }),
      (xs, width) => {
        const x = Uint32Array.from(xs);
        const plans: ReductionPlan[] = [sequentialPlan(x.length)];
        // A plan of `width` strided registers combined pairwise, as the kernels' trees are.
        const registers = Array.from({ length: width }, (_, r) => {
          const idx: number[] = [];
          for (let i = r; i < x.length; i += width) idx.push(i);
          return Int32Array.from(idx);
        });
        const steps: [number, number][] = [];
        for (let s = 1; s < width; s *= 2) {
          for (let d = 0; d + s < width; d += 2 * s) steps.push([d, d + s]);
        }
        plans.push({ length: x.length, registers, steps, result: 0 });
        for (const plan of plans) assert.equal(executePlan(plan, x), referenceExecute(plan, x));
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("a flattened plan sums every row of a buffer as `executePlan()` does, bit for bit", () => {
  const pattern = fc.oneof(
    fc.constantFrom(...SPECIAL_F32),
    fc.integer({ min: 0, max: 0xffffffff }),
    fc.float({ noNaN: true }).map((v) => bitsFromF32(v)),
  );
  fc.assert(
    fc.property(
      fc.array(pattern, { minLength: 1, maxLength: 120 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 0, max: 3 }),
      (xs, width, offset) => {
        const length = xs.length - Math.min(offset, xs.length - 1);
        const x = Uint32Array.from(xs);
        const f32 = new Float32Array(x.buffer);
        // Strided registers (empty ones when width > length), combined in reverse pairs.
        const registers = Array.from({ length: width }, (_, r) => {
          const idx: number[] = [];
          for (let i = r; i < length; i += width) idx.push(i);
          return Int32Array.from(idx);
        });
        const steps: [number, number][] = [];
        for (let r = width - 1; r > 0; r--) steps.push([r - 1, r]);
        for (const plan of [sequentialPlan(length), { length, registers, steps, result: 0 }]) {
          const flat = _flattenPlan(plan);
          for (let o = 0; o + length <= x.length; o++) {
            assert.equal(_executeFlatF32(flat, f32, o), executePlan(plan, x, { offset: o }));
          }
        }
      },
    ),
    { numRuns: 1000 },
  );
});
