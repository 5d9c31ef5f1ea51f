import assert from "node:assert/strict";
import {
  type ReductionPlan,
  sequentialPlan,
  validatePlan,
} from "../../../src/kernels/reduce/mod.ts";

const plan = (registers: number[][], steps: [number, number][], length: number): ReductionPlan => ({
  length,
  registers: registers.map((r) => Int32Array.from(r)),
  steps,
  result: 0,
});

Deno.test("`validatePlan()` rejects duplicate, missing and out-of-range inputs", () => {
  assert.throws(() => validatePlan(plan([[0, 0]], [], 1)), RangeError);
  assert.throws(() => validatePlan(plan([[0]], [], 2)), RangeError);
  assert.throws(() => validatePlan(plan([[5]], [], 1)), RangeError);
});

Deno.test("`validatePlan()` rejects plans that are not one tree", () => {
  assert.throws(() => validatePlan(plan([[0], [1]], [], 2)), RangeError); // register 1 dangling
  assert.throws(() => validatePlan(plan([[0], [1], [2]], [[0, 1], [2, 1], [0, 2]], 3)), RangeError);
  assert.throws(() => validatePlan(plan([[0], [1]], [[0, 0]], 2)), RangeError);
  assert.throws(() => validatePlan({ ...plan([[0], [1]], [[0, 1]], 2), result: 1 }), RangeError);
  validatePlan(plan([[0], [1], [2]], [[1, 2], [0, 1]], 3));
  assert.throws(() => sequentialPlan(-1), RangeError);
});
