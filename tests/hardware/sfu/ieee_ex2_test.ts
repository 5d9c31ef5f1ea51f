import assert from "node:assert/strict";
import fc from "fast-check";
import { exp2Fixed } from "../../../src/hardware/sfu/exp2_fixed.ts";
import { ieeeEx2 } from "../../../src/hardware/sfu/ieee_ex2.ts";
import { refEx2 } from "./_fp32_reference.ts";

const hex = (v: number) => `0x${v.toString(16)}`;

/** True when x is finite, not an integer, and |x| < 256 (the domain of `refEx2`). */
function refDomain(x: number): boolean {
  const e = (x >>> 23) & 0xff;
  if (e >= 135) return false;
  const den = 150 - e;
  return e >= 102 && den > 0 && (x & ((2 ** Math.min(den, 23)) - 1)) !== 0;
}

Deno.test("`ieeeEx2()` equals the square-root-product reference on random inputs", () => {
  const exps = fc.integer({ min: 102, max: 134 });
  const mant = fc.integer({ min: 0, max: 0x7fffff });
  fc.assert(
    fc.property(exps, mant, fc.boolean(), (e, m, neg) => {
      const x = ((neg ? 0x80000000 : 0) | (e << 23) | m) >>> 0;
      fc.pre(refDomain(x));
      return ieeeEx2(x) === refEx2(x);
    }),
    { numRuns: 3000, seed: 20261122 },
  );
});

Deno.test("`ieeeEx2()` equals the reference near overflow, underflow and 1", () => {
  const xs: number[] = [];
  for (const base of [0x42fe0000, 0xc2fc0000, 0xc3150000, 0xc3160000, 0xc2fe0000, 0x3f800000]) {
    for (let d = -40; d <= 40; d++) xs.push((base + d * 977) >>> 0);
  }
  for (const x of xs.filter(refDomain)) assert.equal(hex(ieeeEx2(x)), hex(refEx2(x)), hex(x));
});

Deno.test("`ieeeEx2()` gives exact powers, IEEE specials, and flushes only under `ftz`", () => {
  assert.equal(ieeeEx2(0x42fe0000), 0x7f000000); // 2^127
  assert.equal(ieeeEx2(0x43000000), 0x7f800000); // 2^128 overflows
  assert.equal(ieeeEx2(0xc2fc0000), 0x00800000); // 2^-126
  assert.equal(ieeeEx2(0xc3150000), 0x00000001); // 2^-149
  assert.equal(ieeeEx2(0xc3160000), 0x00000000); // 2^-150: tie to even zero
  assert.equal(ieeeEx2(0xc3158000), 0x00000001); // 2^-149.5 rounds up to 2^-149
  assert.equal(ieeeEx2(0xc3168000), 0x00000000);
  assert.equal(ieeeEx2(0xc2fe0000, { ftz: true }), 0); // 2^-127 subnormal flushed
  assert.equal(ieeeEx2(0xc2fe0000), 0x00400000);
  assert.equal(ieeeEx2(0x7f800000), 0x7f800000);
  assert.equal(ieeeEx2(0xff800000), 0);
  assert.equal(ieeeEx2(0xff800001), 0xffc00001);
  assert.equal(ieeeEx2(0x00000001), 0x3f800000);
  assert.equal(ieeeEx2(0x80000000), 0x3f800000);
  assert.equal(ieeeEx2(0x32ffffff), 0x3f800000); // |x| < 2^-25
  assert.equal(ieeeEx2(0x33000001), 0x3f800000);
});

Deno.test("`exp2Fixed()` stays within its error bound and refuses bad arguments", () => {
  for (const [num, den] of [[1n, 1], [3n, 2], [12345n, 20], [(1n << 48n) - 1n, 48]] as const) {
    const { value, error } = exp2Fixed(num, { den, bits: 200 });
    const coarse = exp2Fixed(num, { den, bits: 64 });
    const d = (coarse.value << 136n) - value;
    assert.ok((d < 0n ? -d : d) <= (coarse.error << 136n) + error);
  }
  assert.throws(() => exp2Fixed(2n, { den: 1, bits: 64 }), RangeError);
  assert.throws(() => exp2Fixed(0n, { den: 1, bits: 8 }), RangeError);
});
