import assert from "node:assert/strict";
import fc from "fast-check";
import { ieeeRsqrt } from "../../../src/hardware/sfu/ieee_rsqrt.ts";
import { refRsqrt } from "./_fp32_reference.ts";

const hex = (v: number) => `0x${v.toString(16)}`;

Deno.test("`ieeeRsqrt()` equals the BigInt reference on boundary inputs", () => {
  const xs: number[] = [1, 2, 3, 0x7fffff, 0x400000, 0x7f7fffff];
  for (let e = 1; e < 255; e++) {
    for (const m of [0, 1, 2, 0x7fffff, 0x7ffffe, 0x400000, 0x3504f3, 0x3504f4, 0x020036]) {
      xs.push((e << 23) | m);
    }
  }
  for (let k = 0; k < 23; k++) xs.push(1 << k, (1 << k) + 1, (2 << k) - 1);
  for (const x of xs) assert.equal(hex(ieeeRsqrt(x)), hex(refRsqrt(x)), hex(x));
});

Deno.test("`ieeeRsqrt()` equals the BigInt reference on random positive inputs", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 0x7f7fffff }), (x) => ieeeRsqrt(x) === refRsqrt(x)),
    { numRuns: 20000, seed: 20261122 },
  );
});

Deno.test("`ieeeRsqrt()` gives IEEE special values and honours `ftz`", () => {
  assert.equal(ieeeRsqrt(0), 0x7f800000);
  assert.equal(ieeeRsqrt(0x80000000), 0xff800000);
  assert.equal(ieeeRsqrt(0x7f800000), 0);
  assert.equal(ieeeRsqrt(0xff800000), 0x7fc00000);
  assert.equal(ieeeRsqrt(0xbf800000), 0x7fc00000);
  assert.equal(ieeeRsqrt(0x80000001), 0x7fc00000); // negative subnormal is negative
  assert.equal(ieeeRsqrt(0x80000001, { ftz: true }), 0xff800000); // ... unless flushed to -0
  assert.equal(ieeeRsqrt(0x7fa00000), 0x7fe00000);
  assert.equal(ieeeRsqrt(0x00000001), 0x64b504f3); // 2^74.5
  assert.equal(ieeeRsqrt(0x00000001, { ftz: true }), 0x7f800000);
  assert.equal(ieeeRsqrt(0x3f800000), 0x3f800000);
  assert.equal(ieeeRsqrt(0x3e800000), 0x40000000);
});
