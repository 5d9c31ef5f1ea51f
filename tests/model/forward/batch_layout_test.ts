import assert from "node:assert/strict";
import fc from "fast-check";
import { addBf16Once, batchLayout, parseTokenBatch } from "../../../src/model/mod.ts";
import { fp32ToBf16 } from "../../../src/numerics/mod.ts";
import { F32_RN } from "../../../src/hardware/mod.ts";
import { InputError } from "../../../src/errors.ts";

Deno.test("batchLayout() pads right to the longest sequence with positions from 0", () => {
  const l = batchLayout([[5, 6], [7, 8, 9]], { batching: "pad-to-longest", padTokenId: 1 });
  assert.equal(l.rows, 6);
  assert.deepEqual([...l.tokens], [5, 6, 1, 7, 8, 9]);
  assert.deepEqual(l.positions, [0, 1, 2, 0, 1, 2]);
  assert.deepEqual([...l.real], [0, 1, 3, 4, 5]);
  assert.deepEqual(l.cuSeqlens, [0, 2, 5]);
  assert.equal(l.varlen, true);
  const even = batchLayout([[5, 6], [7, 8]], { batching: "pad-to-longest" });
  assert.equal(even.padded, false);
  assert.equal(even.varlen, false);
  assert.throws(() => batchLayout([[5], [6, 7]], { batching: "pad-to-longest" }), RangeError);
});

Deno.test("batchLayout() flattens to M = total tokens and always runs varlen attention", () => {
  const l = batchLayout([[5, 6], [7, 8]], { batching: "flatten" });
  assert.equal(l.rows, 4);
  assert.deepEqual(l.positions, [0, 1, 0, 1]);
  assert.equal(l.varlen, true);
});

Deno.test("addBf16Once() equals bf16(fl32(a + b)) for BF16 operands", () => {
  // For two BF16 operands the exact sum of any pair that can round to a BF16 tie fits FP32, so
  // one rounding and FP32-then-BF16 agree; NaNs are compared as a class.
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 0xffff }),
      fc.integer({ min: 0, max: 0xffff }),
      (a, b) => {
        const once = addBf16Once(a, b);
        const twice = fp32ToBf16(F32_RN.add((a << 16) >>> 0, (b << 16) >>> 0));
        const nan = (x: number) => (x & 0x7f80) === 0x7f80 && (x & 0x7f) !== 0;
        return nan(once) ? nan(twice) : once === twice;
      },
    ),
    { numRuns: 20000 },
  );
  assert.equal(addBf16Once(0x0000, 0x8000), 0x0000);
  assert.equal(addBf16Once(0x8000, 0x8000), 0x8000);
  assert.equal(addBf16Once(0x7f7f, 0x7f7f), 0x7f80);
  assert.equal(addBf16Once(0x0001, 0x0001), 0x0002); // subnormals
});

Deno.test("parseTokenBatch() bounds and checks ids against the vocabulary", () => {
  assert.deepEqual(parseTokenBatch({ sequences: [[1]] }, 4).sequences, [[1]]);
  for (
    const bad of [{}, { sequences: [] }, { sequences: [[]] }, { sequences: [[4]] }, {
      sequences: [[1]],
      x: 1,
    }, { sequences: [[1.5]] }]
  ) {
    assert.throws(
      () => parseTokenBatch(bad, 4),
      (e: unknown) => e instanceof InputError && e.code === "TOKENS_INVALID",
    );
  }
});
