/**
 * F = ⌈p·N⌉ from the rate's exact decimal text (review h141: in doubles with a 1e-9 tolerance,
 * 0.07 of 279,928,000 and 0.00001 of 2,280,804,700,000 gave one record too many).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { falseCount, MAX_RATE_TEXT, rateIsOne } from "../../src/verify/false_count.ts";

Deno.test("falseCount() is exact where p·N in doubles lands just above an integer", () => {
  assert.equal(Math.ceil(0.07 * 279_928_000 - 1e-9), 19_594_961);
  assert.equal(falseCount("0.07", 279_928_000), 19_594_960);
  assert.equal(Math.ceil(0.00001 * 2_280_804_700_000 - 1e-9), 22_808_048);
  assert.equal(falseCount("0.00001", 2_280_804_700_000), 22_808_047);
  assert.equal(falseCount("1e-5", 2_280_804_700_000), 22_808_047);
});

Deno.test("falseCount() reads every form of decimal text Number() reads", () => {
  for (
    const [text, n, f] of [
      ["0.01", 300, 3],
      ["0.01", 301, 4],
      [".5", 7, 4],
      ["1.", 3, 3],
      ["1e-15", 9007199254740991, 10],
      ["1E-15", 1, 1],
      ["2.5e-3", 1000, 3],
      ["+0.5", 3, 2],
      ["1", 9007199254740991, 9007199254740991],
      ["1.000", 5, 5],
      ["10e-1", 5, 5],
      ["0", 100, 0],
      ["0.000", 100, 0],
      ["1e-99999", 100, 1],
      ["0.001", 0, 0],
    ] as const
  ) {
    assert.equal(falseCount(text, n), f, `${text} of ${n}`);
  }
});

Deno.test("falseCount() refuses text that is no rate, above 1 or too long", () => {
  for (
    const bad of [
      "",
      ".",
      "e5",
      "1e",
      "1.2.3",
      "-0.1",
      "0x10",
      "Infinity",
      " 0.1",
      "1_0",
      "1.0000000000000000001",
      "5.",
      "1e99999",
      `0.${"0".repeat(MAX_RATE_TEXT)}1`,
    ]
  ) {
    assert.throws(() => falseCount(bad, 10), RangeError, bad);
  }
  assert.throws(() => falseCount("0.1", -1), RangeError);
  assert.throws(() => falseCount("0.1", 2 ** 53), RangeError);
});

Deno.test("falseCount() agrees with an exact ceiling of digits·N / 10^d (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 10 ** 9 - 1 }),
      fc.integer({ min: 9, max: 20 }),
      fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      (digits, places, n) => {
        const text = `0.${String(digits).padStart(places, "0")}`;
        const den = 10n ** BigInt(places);
        const want = (BigInt(digits) * BigInt(n) + den - 1n) / den;
        assert.equal(falseCount(text, n), Number(want), `${text} of ${n}`);
      },
    ),
    { numRuns: 500, seed: 1410 },
  );
});

Deno.test("rateIsOne() tells 1 from a rate just below it that Number() reads as 1", () => {
  for (const one of ["1", "1.", "1.000", "+1", "10e-1", "0.1e1", "100000e-5"]) {
    assert.equal(rateIsOne(one), true, one);
  }
  for (
    const below of ["0.99999999999999999", "0.99999999999999995", "9.99999999999999999e-1", "0.5"]
  ) {
    assert.equal(rateIsOne(below), false, below);
  }
  assert.equal(Number("0.99999999999999999"), 1);
  for (const not of ["0", "0.000", "1e-99999"]) assert.equal(rateIsOne(not), false, not);
  for (const bad of ["1.0000000000000000001", "x", "", "-1"]) {
    assert.throws(() => rateIsOne(bad), RangeError, bad);
  }
});
