import assert from "node:assert/strict";
import fc from "fast-check";
import { ieeeRcp } from "../../../src/hardware/sfu/ieee_rcp.ts";
import { refRcp } from "./_fp32_reference.ts";

const hex = (v: number) => `0x${v.toString(16)}`;

/** Finite non-zero patterns near every boundary: ±1 around powers of two, max, min, subnormals. */
function boundaryInputs(): number[] {
  const xs: number[] = [1, 2, 3, 0x7fffff, 0x400000, 0x7f7fffff, 0x7f000000, 0x7e800000];
  for (let e = 1; e < 255; e++) {
    for (const m of [0, 1, 2, 0x7fffff, 0x7ffffe, 0x400000, 0x555555, 0x2aaaab]) {
      xs.push((e << 23) | m);
    }
  }
  for (let k = 0; k < 23; k++) xs.push(1 << k, (1 << k) + 1, (2 << k) - 1);
  return xs.flatMap((x) => [x, (x | 0x80000000) >>> 0]);
}

Deno.test("`ieeeRcp()` equals the BigInt reference on boundary inputs", () => {
  for (const x of boundaryInputs()) assert.equal(hex(ieeeRcp(x)), hex(refRcp(x)), hex(x));
});

Deno.test("`ieeeRcp()` equals the BigInt reference on random finite inputs", () => {
  const finite = fc.integer({ min: 1, max: 0x7f7fffff });
  fc.assert(
    fc.property(finite, fc.boolean(), (m, neg) => {
      const x = (neg ? 0x80000000 | m : m) >>> 0;
      return ieeeRcp(x) === refRcp(x);
    }),
    { numRuns: 20000, seed: 20261122 },
  );
});

Deno.test("`ieeeRcp()` gives IEEE special values and honours `ftz`", () => {
  assert.equal(ieeeRcp(0), 0x7f800000);
  assert.equal(ieeeRcp(0x80000000), 0xff800000);
  assert.equal(ieeeRcp(0x7f800000), 0);
  assert.equal(ieeeRcp(0xff800000), 0x80000000);
  assert.equal(ieeeRcp(0x7f800001), 0x7fc00001); // NaN quieted, payload kept
  assert.equal(ieeeRcp(0xffc00000), 0xffc00000);
  assert.equal(ieeeRcp(0x00000001), 0x7f800000); // 1/2^-149 overflows
  assert.equal(ieeeRcp(0x00200000), 0x7f800000); // 1/2^-128 = 2^128 overflows
  assert.equal(ieeeRcp(0x00400000), 0x7f000000); // 1/2^-127 = 2^127
  assert.equal(ieeeRcp(0x00400000, { ftz: true }), 0x7f800000); // subnormal input -> 1/0
  assert.equal(ieeeRcp(0x7f7fffff), 0x00200000); // subnormal result 2^-128 after rounding
  assert.equal(ieeeRcp(0x7f7fffff, { ftz: true }), 0);
  assert.equal(ieeeRcp(0xff7fffff, { ftz: true }), 0x80000000);
  assert.equal(ieeeRcp(0x7e800000, { ftz: true }), 0x00800000); // 2^-126 is normal: kept
});
