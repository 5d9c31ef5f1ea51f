/**
 * Exhaustive over all 2^23 mantissas of the binades |x| in [2^-3, 128), both signs, and of
 * x in (-150, -128] (about 169 M inputs, about 5 minutes): `ieeeEx2`, whose float64 step decides
 * nearly every input, equals the BigInt-only Ziv evaluation (`_roundExp2`) everywhere. The range
 * holds every normal and subnormal result grid and the fraction widths 16 to 26 bits; wider
 * fractions (small |x|) are sampled in tests/hardware/sfu/round_exp2_fast_test.ts. Run with
 * `deno task test:slow`.
 */
import assert from "node:assert/strict";
import { _roundExp2, ieeeEx2 } from "../../../../src/hardware/sfu/ieee_ex2.ts";

/** The BigInt-only ieeeEx2 for finite non-integer |x| in [2^-25, 256) with a normal or subnormal result. */
function bigintEx2(x: number): number | undefined {
  const negative = (x & 0x80000000) !== 0;
  const e = (x >>> 23) & 0xff;
  const den = 150 - e;
  const sig = negative ? -((x & 0x7fffff) | 0x800000) : ((x & 0x7fffff) | 0x800000);
  const n = Math.floor(sig / 2 ** den);
  const num = sig - n * 2 ** den;
  const k = Math.min(23, n + 149);
  if (num === 0 || k < 0 || n >= 128) return undefined; // exact powers, underflow, overflow
  const q = _roundExp2(BigInt(num), den, k);
  return k === 23 ? (((n + 127) << 23) + q - 0x800000) >>> 0 : q;
}

for (let e = 124; e <= 134; e++) {
  Deno.test(`\`ieeeEx2()\` equals the BigInt-only evaluation on every pattern of exponent ${e}, both signs`, () => {
    let compared = 0;
    for (const sign of [0, 0x80000000]) {
      for (let m = 0; m < 0x800000; m++) {
        const x = (sign | (e << 23) | m) >>> 0;
        const want = bigintEx2(x);
        if (want === undefined) continue;
        compared++;
        const got = ieeeEx2(x);
        if (got !== want) assert.fail(`0x${x.toString(16)}: ${got} != ${want}`);
      }
    }
    assert.ok(compared >= 0x100000, `${compared} compared`); // e = 134: only x in (-150, -128]
  });
}
