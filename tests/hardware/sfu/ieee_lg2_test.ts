import assert from "node:assert/strict";
import fc from "fast-check";
import { ieeeLg2 } from "../../../src/hardware/sfu/ieee_lg2.ts";
import { ln2Fixed } from "../../../src/hardware/sfu/ln2_fixed.ts";
import { log2Fixed } from "../../../src/hardware/sfu/log2_fixed.ts";
import { refLg2 } from "./_fp32_reference.ts";

const hex = (v: number) => `0x${v.toString(16)}`;
const isPow2 = (x: number) => (x & 0x7fffff) === 0 || ((x >>> 23) === 0 && (x & (x - 1)) === 0);

Deno.test("`ieeeLg2()` equals the repeated-squaring reference on random positive inputs", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 0x7f7fffff }), (x) => {
      fc.pre(!isPow2(x));
      return ieeeLg2(x) === refLg2(x);
    }),
    { numRuns: 3000, seed: 20261125 },
  );
});

Deno.test("`ieeeLg2()` equals the reference next to 1, 2, 0.5 and on subnormals", () => {
  const xs: number[] = [];
  for (const base of [0x3f800000, 0x40000000, 0x3f000000, 0x00000000, 0x00800000]) {
    for (let d = -60; d <= 60; d++) xs.push((base + d) >>> 0);
  }
  for (let k = 0; k < 23; k++) xs.push(3 << k, (1 << k) + 1);
  for (const x of xs.filter((x) => x > 0 && x < 0x7f800000 && !isPow2(x))) {
    assert.equal(hex(ieeeLg2(x)), hex(refLg2(x)), hex(x));
  }
});

Deno.test("`ieeeLg2()` gives exact exponents for powers of two and IEEE specials", () => {
  for (let n = -149; n <= 127; n++) {
    const x = n >= -126 ? (n + 127) << 23 : 2 ** (n + 149);
    const want = new Uint32Array(new Float32Array([n]).buffer)[0]!;
    assert.equal(hex(ieeeLg2(x)), hex(want), `2^${n}`);
  }
  assert.equal(hex(ieeeLg2(0)), "0xff800000");
  assert.equal(hex(ieeeLg2(0x80000000)), "0xff800000");
  assert.equal(hex(ieeeLg2(0xbf800000)), "0x7fc00000");
  assert.equal(hex(ieeeLg2(0xff800000)), "0x7fc00000");
  assert.equal(hex(ieeeLg2(0x7f800000)), "0x7f800000");
  assert.equal(hex(ieeeLg2(0x7f800001)), "0x7fc00001");
  assert.equal(hex(ieeeLg2(0x00000003, { ftz: true })), "0xff800000");
  assert.equal(ieeeLg2(0x00000003), refLg2(0x00000003));
});

Deno.test("`log2Fixed()` stays within its error bound and refuses m outside [1, 2)", () => {
  // Reference: log2(m) at 256 bits by the same digit method as refLg2, independent of the series.
  const digits = (sig: bigint, den: number, k: number): bigint => {
    const P = 600n;
    let m = (sig << P) >> BigInt(den);
    let d = 0n;
    for (let i = 0; i < k; i++) {
      m = (m * m) >> P;
      d <<= 1n;
      if (m >= 2n << P) {
        m >>= 1n;
        d |= 1n;
      }
    }
    return d;
  };
  for (const [sig, den] of [[3n, 1], [0xffffffn, 23], [0x800001n, 23], [5n, 2]] as const) {
    for (const bits of [16, 64, 200]) {
      const { value, error } = log2Fixed(sig, { den, bits });
      const exact = digits(sig, den, bits); // floor(log2(m)·2^bits), up to 1 unit
      const d = value > exact ? value - exact : exact - value;
      assert.ok(d <= error + 1n, `${sig}/2^${den} at ${bits}: off by ${d}, bound ${error}`);
    }
  }
  assert.deepEqual(log2Fixed(8n, { den: 3, bits: 64 }).value, 0n);
  assert.throws(() => log2Fixed(16n, { den: 3, bits: 64 }), RangeError);
  assert.throws(() => log2Fixed(3n, { den: 1, bits: 8 }), RangeError);
  assert.throws(() => ln2Fixed(-1), RangeError);
});
