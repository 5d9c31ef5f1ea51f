import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeSfuTables, type SfuTables } from "../../../src/hardware/sfu/mod.ts";
import { mufuLg2 } from "../../../src/hardware/sfu/mufu_lg2.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";

const t = decodeSfuTables(readTeslaTableBytes());
const hex = (v: number) => `0x${v.toString(16)}`;

/**
 * The envytools G80 `sfu_lg2` steps written again with BigInt int64 semantics (`<<`, `>>`, `~`
 * on BigInt), as a check of the float64 exactness argument of `mufuLg2`.
 */
function bigLg2(x: number, tables: SfuTables): number {
  const e = (x >>> 23) & 0xff;
  const f = x & 0x7fffff;
  if (e === 0) return 0xff800000;
  if (x >>> 31) return 0x7fffffff;
  if (e === 255) return f === 0 ? 0x7f800000 : 0x7fffffff;
  let res = 0n;
  if (f !== 0 || e !== 127) {
    const row = (f >>> 17) * 3;
    const lo = BigInt(f & 0x1ffff);
    let sx = 0n; // the truncated squarer, bit by bit
    for (let i = 0n; i < 17n; i++) if ((lo >> i) & 1n) sx += lo >> (18n - i);
    sx >>= 1n;
    const [a, b, c] = [0, 1, 2].map((k) => BigInt(tables.lg2[row + k] as number));
    res = ((a! << 12n) + b! * lo + ((c! * sx) << 1n) + 0x3345n) >> 2n;
  }
  res += BigInt(e - 127) << 36n;
  let sign = 0;
  if (res < 0n) {
    sign = 0x80000000;
    res = ~res;
  }
  if (res === 0n) return sign >>> 0;
  let exp = 133;
  while (((res >> 42n) & 1n) === 0n) {
    res <<= 1n;
    exp--;
  }
  return (sign | (exp << 23) | Number((res >> 19n) - (1n << 23n))) >>> 0;
}

Deno.test("`mufuLg2()` equals a BigInt transcription of the G80 algorithm on random inputs", () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 0xffffffff }), (x) => mufuLg2(x, t) === bigLg2(x, t)),
    { numRuns: 20000, seed: 20261125 },
  );
  for (let e = 1; e < 255; e++) {
    for (const m of [0, 1, 0x1ffff, 0x20000, 0x400000, 0x7fffff]) {
      const x = (e << 23) | m;
      assert.equal(hex(mufuLg2(x, t)), hex(bigLg2(x, t)), hex(x));
    }
  }
});

Deno.test("`mufuLg2()` gives hand-derived values at powers of two", () => {
  // Row 0 is A = 4, so res = (4·2^12 + 0x3345) >> 2 = 7377 for a zero fraction; its 7377·2^-36
  // falls below the kept 24 bits for 2, 4, ..., 2^127, which come out exact.
  for (let k = 1; k <= 127; k++) {
    const want = Math.fround(k);
    const bits = new Uint32Array(new Float32Array([want]).buffer)[0]!;
    assert.equal(hex(mufuLg2((127 + k) << 23, t)), hex(bits), `2^${k}`);
  }
  // 0.5: res = -2^36 + 7377 -> one's complement 2^36 - 7378 -> 7 shifts, truncated:
  // 2^24 - 2 significand at exponent -1, i.e. -(1 - 2^-23).
  assert.equal(hex(mufuLg2(0x3f000000, t)), "0xbf7ffffe");
  assert.equal(mufuLg2(0x3f800000, t), 0); // the bypass: log2(1) = +0
});

Deno.test("`mufuLg2()` follows the G80 special values", () => {
  for (const z of [0x00000000, 0x80000000, 0x00000001, 0x807fffff]) {
    assert.equal(hex(mufuLg2(z, t)), "0xff800000", hex(z)); // zero and subnormal (either sign)
  }
  for (const bad of [0xbf800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffc00000]) {
    assert.equal(hex(mufuLg2(bad, t)), "0x7fffffff", hex(bad));
  }
  assert.equal(hex(mufuLg2(0x7f800000, t)), "0x7f800000");
});
