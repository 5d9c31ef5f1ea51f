import assert from "node:assert/strict";
import { bitsFromF32 } from "../../../src/numerics/mod.ts";
import {
  executePlan,
  pytorchReducePlan,
  REDUCE_STACK_CUDA_RECENT as stack,
  reduceSumRows,
} from "../../../src/kernels/reduce/mod.ts";
import { rowShift } from "../../../src/kernels/reduce/reduce_sum_rows.ts";

Deno.test("`reduceSumRows()` uses each row's alignment class when H is not a multiple of 4", () => {
  const rows = 4;
  const length = 130;
  const x = Uint32Array.from(
    { length: rows * length },
    (_, i) => bitsFromF32(1 + i / 7 + 1e-3 * (i % 11)),
  );
  const sums = reduceSumRows(x, { rows, length, stack });
  for (let r = 0; r < rows; r++) {
    const shift = rowShift(r, { length, stack });
    assert.equal(shift, (r * 130) % 4);
    const plan = pytorchReducePlan({ outputs: rows, length }, { stack, shift });
    assert.equal(sums[r], executePlan(plan, x, { offset: r * length }));
  }
  assert.equal(rowShift(0, { length, stack, baseOffset: 3 }), 3);
});

Deno.test("`reduceSumRows()` throws TypeError when the matrix has the wrong length", () => {
  assert.throws(() => reduceSumRows(new Uint32Array(5), { rows: 2, length: 3, stack }), TypeError);
});
