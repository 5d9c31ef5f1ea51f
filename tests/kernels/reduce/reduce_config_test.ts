import assert from "node:assert/strict";
import {
  REDUCE_STACK_CUDA_LEGACY,
  REDUCE_STACK_CUDA_RECENT,
  reduceConfig,
} from "../../../src/kernels/reduce/mod.ts";
import { lastPow2 } from "../../../src/kernels/reduce/reduce_config.ts";

const stack = REDUCE_STACK_CUDA_RECENT;
const width = (outputs: number, length: number, s = stack) =>
  reduceConfig({ outputs, length }, { stack: s }).blockWidth;

Deno.test("`reduceConfig()` gives block (32, 16) and 80 values per thread when H = 2560, M >= 16", () => {
  for (const outputs of [16, 17, 256, 8000]) {
    const c = reduceConfig({ outputs, length: 2560 }, { stack });
    assert.deepEqual([c.blockWidth, c.blockHeight, c.valuesPerThread], [32, 16, 80]);
    assert.equal(c.vectorize, true);
    assert.equal(c.splitY, false);
  }
});

Deno.test("`reduceConfig()` widens the block for few rows as ops.md §1.1 states (H = 2560)", () => {
  const want: [number, number][] = [[1, 512], [2, 256], [3, 256], [4, 128], [7, 128], [8, 64], [
    15,
    64,
  ]];
  for (const [m, w] of want) assert.equal(width(m, 2560), w, `M = ${m}`);
  assert.equal(reduceConfig({ outputs: 1, length: 2560 }, { stack }).valuesPerThread, 5);
});

Deno.test("`reduceConfig()` uses width 32 for QK-norm rows when dim0 is divided by the vector", () => {
  // gaps.md B.3: PyTorch divides dim0 = 128 by 4 before the block shape; width 32 for every M.
  for (const rows of [1, 2, 8, 15, 16, 32, 4000 * 8]) assert.equal(width(rows, 128), 32);
  // The legacy `> 128` threshold keeps H = 128 on the strided path: 128 / 64 / 32 wide.
  assert.equal(
    reduceConfig({ outputs: 1, length: 128 }, { stack: REDUCE_STACK_CUDA_LEGACY }).vectorize,
    false,
  );
  assert.equal(width(1, 128, REDUCE_STACK_CUDA_LEGACY), 128);
  assert.equal(width(8, 128, REDUCE_STACK_CUDA_LEGACY), 64);
  assert.equal(width(16, 128, REDUCE_STACK_CUDA_LEGACY), 32);
});

Deno.test("`reduceConfig()` splits the row over warps when values per thread reach the threshold", () => {
  const c = reduceConfig({ outputs: 16, length: 8192 }, { stack });
  assert.equal(c.splitY, true);
  assert.equal(c.stepInput, 512);
  assert.equal(c.threadsPerRow, 512);
  assert.equal(c.valuesPerThread, 16);
  assert.equal(reduceConfig({ outputs: 16, length: 4096 }, { stack }).splitY, false); // 128 < 256
});

Deno.test("`reduceConfig()` throws on a multi-CTA or over-32-bit configuration", () => {
  assert.throws(() => reduceConfig({ outputs: 16, length: 1 << 18 }, { stack }), RangeError);
  assert.throws(() => reduceConfig({ outputs: 1 << 20, length: 1024 }, { stack }), RangeError);
  assert.throws(() => reduceConfig({ outputs: 0, length: 8 }, { stack }), RangeError);
  assert.throws(() => reduceConfig({ outputs: 1, length: 2.5 }, { stack }), RangeError);
});

Deno.test("`lastPow2()` returns the largest power of two not above n", () => {
  assert.deepEqual([1, 2, 3, 511, 512, 513].map(lastPow2), [1, 2, 2, 256, 512, 512]);
});
