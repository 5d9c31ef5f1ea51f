/**
 * Spec `parallel_and_vllm.md` §A2.3 "Key simplification": for TP = 2 every all-reduce computes
 * one correctly rounded BF16 add, `RNE_bf16(x0 + x1)`, whatever its order or accumulator. The
 * reference is the format-generic `floatAdd(BF16, ...)` of src/numerics (exact sum, one
 * rounding; NaN results are the canonical 0x7FFF; IEEE signed zeros).
 */
import assert from "node:assert/strict";
import { allReduce } from "../../../src/kernels/allreduce/mod.ts";
import { BF16, floatAdd } from "../../../src/numerics/mod.ts";
import { allPlans, rng } from "./_plans.ts";

/** BF16 patterns that break careless adds: zeros, subnormals, extremes, infinities, NaNs, ties. */
const ADVERSARIAL: readonly number[] = [
  0x0000, // +0
  0x8000, // -0
  0x0001, // smallest subnormal
  0x8001,
  0x007f, // largest subnormal
  0x807f,
  0x0080, // smallest normal
  0x7f7f, // largest finite
  0xff7f,
  0x7f00, // 2^127: doubling overflows
  0x7f80, // +inf
  0xff80, // -inf
  0x7fc0, // quiet NaN
  0x7f81, // signalling NaN
  0xffff, // negative NaN
  0x3f80, // 1
  0xbf80, // -1
  0x3f81, // 1 + 2^-7
  0x3b80, // 2^-8: half an ulp of 1 (ties)
  0xbb80,
  0x3380, // 2^-24
  0x4000, // 2
];

/** Every BF16 pattern against each adversarial operand, then random pairs. */
function operands(): { a: Uint16Array; b: Uint16Array } {
  const random = 1 << 18;
  const n = 65536 * ADVERSARIAL.length + random;
  const a = new Uint16Array(n);
  const b = new Uint16Array(n);
  ADVERSARIAL.forEach((o, i) => {
    for (let x = 0; x < 65536; x++) {
      a[i * 65536 + x] = x;
      b[i * 65536 + x] = o;
    }
  });
  const next = rng(27);
  for (let i = 65536 * ADVERSARIAL.length; i < n; i++) {
    a[i] = Math.floor(next() * 65536);
    b[i] = Math.floor(next() * 65536);
  }
  return { a, b };
}

Deno.test("`allReduce()` is one correctly rounded BF16 add for TP = 2 under every implementation, in both rank orders", () => {
  const { a, b } = operands();
  const want = new Uint16Array(a.length);
  for (let i = 0; i < a.length; i++) {
    want[i] = floatAdd(BF16, [a[i]!, b[i]!]);
    // Commutative, so the rank order cannot matter (NaN results are all 0x7FFF).
    if (floatAdd(BF16, [b[i]!, a[i]!]) !== want[i]) assert.fail(`floatAdd not commutative at ${i}`);
  }
  for (const { name, plan } of allPlans(2, a.length)) {
    for (const partials of [[a, b], [b, a]]) {
      const got = allReduce(partials, plan);
      for (let i = 0; i < a.length; i++) {
        if (got[i] !== want[i]) {
          assert.fail(
            `${name}: bf16(${partials[0]![i]!.toString(16)} + ${
              partials[1]![i]!.toString(16)
            }) = ` +
              `${got[i]!.toString(16)}, want ${want[i]!.toString(16)}`,
          );
        }
      }
    }
  }
});

Deno.test("`allReduce()` for TP = 2 keeps IEEE signs of zero, overflow and NaN results", () => {
  const cases: [number, number, number][] = [
    [0x8000, 0x8000, 0x8000], // -0 + -0 = -0
    [0x0000, 0x8000, 0x0000], // +0 + -0 = +0 in round-to-nearest
    [0x3f80, 0xbf80, 0x0000], // 1 - 1 = +0
    [0x7f7f, 0x7f7f, 0x7f80], // overflow to +inf
    [0x7f7f, 0x7b00, 0x7f80], // largest + half its ulp: a tie, and even is 2^128, so +inf
    [0x7f7f, 0x7a80, 0x7f7f], // largest + a quarter ulp stays finite
    [0x7f80, 0xff80, 0x7fff], // inf - inf = NaN
    [0x7f81, 0x3f80, 0x7fff], // NaN operands give the canonical NaN
    [0x0001, 0x0001, 0x0002], // subnormals add exactly
    [0x007f, 0x0001, 0x0080], // and carry into the normal range
    [0x3f80, 0x3b80, 0x3f80], // 1 + 2^-8 ties to even (1)
    [0x3f81, 0x3b80, 0x3f82], // (1 + 2^-7) + 2^-8 ties to even (1 + 2^-6)
  ];
  for (const { name, plan } of allPlans(2, 8)) {
    for (const [x, y, want] of cases) {
      const out = allReduce([new Uint16Array(8).fill(x), new Uint16Array(8).fill(y)], plan);
      assert.equal(out[0], want, `${name}: ${x.toString(16)} + ${y.toString(16)}`);
    }
  }
});
