import assert from "node:assert/strict";
import { bitsFromF32 } from "../../../src/numerics/mod.ts";
import { meanFactor } from "../../../src/kernels/norm/mod.ts";

Deno.test("`meanFactor()` is fl32(1/2560) = 0x39CCCCCD for H = 2560 at any row count", () => {
  for (const m of [1, 2, 16, 256, 4000, 8000]) assert.equal(meanFactor(m, m * 2560), 0x39cccccd);
  assert.notEqual(meanFactor(1, 2560), 0x3a800000); // the writeup's constant is 2^-10 (gaps.md B.3)
});

Deno.test("`meanFactor()` is exactly 1/128 for QK-norm and fl32(1e-6) is 0x358637BD", () => {
  assert.equal(meanFactor(32 * 500, 32 * 500 * 128), 0x3c000000);
  assert.equal(bitsFromF32(1e-6), 0x358637bd);
});

Deno.test("`meanFactor()` rounds both counts to FP32 first when they are not exact", () => {
  // float(3) / float(2^24 + 3 = 16777219 -> 16777220): 3 / 16777220, not 3 / 16777219.
  assert.equal(meanFactor(3, 2 ** 24 + 3), bitsFromF32(3 / (2 ** 24 + 4)));
  assert.throws(() => meanFactor(0, 5), RangeError);
  assert.throws(() => meanFactor(5, 4), RangeError);
});
