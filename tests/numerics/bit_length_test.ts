/**
 * `bitLength()` against BigInt's binary rendering over the whole safe-integer range.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { bitLength } from "../../src/numerics/mod.ts";

Deno.test("`bitLength()` equals the binary digit count when n is any safe integer", () => {
  const digits = (n: number) => (n === 0 ? 0 : BigInt(n).toString(2).length);
  fc.assert(
    fc.property(fc.oneof(fc.maxSafeNat(), fc.nat(), fc.integer({ min: 0, max: 64 })), (n) => {
      assert.equal(bitLength(n), digits(n), String(n));
    }),
    { numRuns: 5_000, seed: 42 },
  );
  for (let k = 0; k < 53; k++) {
    assert.equal(bitLength(2 ** k), k + 1);
    assert.equal(bitLength(2 ** k - 1), k);
  }
  assert.equal(bitLength(2 ** 53 - 1), 53);
});
