import assert from "node:assert/strict";
import { _roundExp2Fast } from "../../../src/hardware/sfu/_round_exp2_fast.ts";
import { _roundExp2 } from "../../../src/hardware/sfu/ieee_ex2.ts";
import { ieeeEx2 } from "../../../src/hardware/sfu/ieee_ex2.ts";
import { prng32 as rng } from "../../numerics/_prng.ts";
import { refEx2 } from "./_fp32_reference.ts";

/**
 * Compares the float64 step with the BigInt steps on `count` fractions num / 2^den; returns how
 * many it left undecided. Any decided result that differs fails.
 */
function compare(fractions: Iterable<[number, number, number]>): { n: number; undecided: number } {
  let n = 0, undecided = 0;
  for (const [num, den, k] of fractions) {
    const fast = _roundExp2Fast(num / 2 ** den, k);
    n++;
    if (fast === undefined) {
      undecided++;
      continue;
    }
    const exact = _roundExp2(BigInt(num), den, k);
    if (fast !== exact) assert.fail(`num ${num} / 2^${den}, k ${k}: ${fast} != ${exact}`);
  }
  return { n, undecided };
}

Deno.test("`_roundExp2Fast()` agrees with the BigInt steps on 150,000 random fractions of every width and grid, deciding nearly all", () => {
  const next = rng(77);
  const r = compare(function* () {
    for (let i = 0; i < 150_000; i++) {
      const den = 1 + (next() % 48); // the fraction widths ieeeEx2 produces
      const num = (next() * 2 ** 16 + (next() >>> 16)) % 2 ** den || 1;
      yield [num, den, i % 3 === 0 ? next() % 24 : 23] as [number, number, number];
    }
  }());
  assert.ok(r.undecided <= 5, `${r.undecided} of ${r.n} undecided`);
});

Deno.test("`_roundExp2Fast()` leaves results next to a rounding midpoint to the BigInt steps", () => {
  // Fractions whose 2^f lies within 2^-40 ulp of a midpoint, found by construction: for a 24-bit
  // target q + 1/2, f = log2((q + 1/2) / 2^23) rounded to 48 bits is within 2^-48 of it, so 2^f
  // is within about 2^-24 ulp of the midpoint: far inside the float64 step's error margin.
  const next = rng(5);
  let undecided = 0;
  for (let i = 0; i < 2000; i++) {
    const q = 0x800000 + (next() % 0x800000);
    const f = Math.log2((q + 0.5) / 2 ** 23);
    const num = Math.round(f * 2 ** 48);
    if (num <= 0 || num >= 2 ** 48) continue;
    const fast = _roundExp2Fast(num / 2 ** 48, 23);
    if (fast === undefined) undecided++;
    else assert.equal(fast, _roundExp2(BigInt(num), 48, 23));
  }
  assert.ok(undecided > 1900, `only ${undecided} near-midpoint cases were left undecided`);
});

Deno.test("`ieeeEx2()` equals the independent square-root-product reference on 2^14 consecutive patterns at each of 0.75, 100 and -140", () => {
  for (const base of [0x3f3ff000, 0x42c7f000, 0xc30bf000]) {
    for (let i = 0; i < 2 ** 14; i += 1) {
      const x = (base + i) >>> 0;
      if ((x & 0xffff) === 0) continue; // integers are exact powers, outside refEx2's domain
      assert.equal(ieeeEx2(x), refEx2(x), `0x${x.toString(16)}`);
    }
  }
});
