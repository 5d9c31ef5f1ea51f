/**
 * `decode()` against the field-by-field reference, and re-encoding through `roundPack()`,
 * `packZero()`, `packInfinity()` and `convert()` back to the identical pattern: exhaustive for
 * bf16, fp16, e4m3 and e5m2; boundary patterns plus a seeded random sample for fp32, tf32, e8m13.
 *
 * @module
 */
import assert from "node:assert/strict";
import { decode, decodedToNumber, FORMATS } from "../../src/numerics/mod.ts";
import { checkRoundTrip } from "./_check_round_trip.ts";
import { fp32FamilyPatterns } from "./_fp32_patterns.ts";
import { Mismatches } from "./_mismatches.ts";
import { prng32 } from "./_prng.ts";
import { padBits, refFormat } from "./_ref_formats.ts";

for (const name of ["bf16", "fp16", "e4m3", "e5m2"] as const) {
  const f = FORMATS[name];
  Deno.test(`\`decode()\` and \`roundPack()\` round-trip exactly when given every ${name} pattern`, () => {
    const m = new Mismatches();
    for (let bits = 0; bits < 2 ** f.storageBits; bits++) checkRoundTrip(f, bits, m);
    m.assertNone(`${name} exhaustive`);
  });
}

for (const name of ["fp32", "tf32", "e8m13"] as const) {
  const f = FORMATS[name];
  Deno.test(`\`decode()\` and \`roundPack()\` round-trip exactly when given ${name} boundary and sampled patterns`, () => {
    const m = new Mismatches();
    const pad = 2 ** padBits(refFormat(name));
    for (const bits of fp32FamilyPatterns(pad)) checkRoundTrip(f, bits, m);
    const next = prng32(0x5eed0000 + f.fracBits);
    for (let i = 0; i < 60_000; i++) {
      const raw = next();
      checkRoundTrip(f, raw - (raw % pad), m);
    }
    m.assertNone(`${name} sample`);
  });
}

Deno.test("`decode()` throws RangeError when the pattern does not fit the format", () => {
  for (const bad of [-1, 0x100, 1.5, NaN, Infinity]) {
    assert.throws(() => decode(FORMATS.e4m3, bad), RangeError);
  }
  assert.throws(() => decode(FORMATS.bf16, 0x10000), RangeError);
  assert.throws(() => decode(FORMATS.fp32, 2 ** 32), RangeError);
  assert.equal(decode(FORMATS.fp32, 2 ** 32 - 1).kind, "nan");
});

Deno.test("`decode()` reads S.1111.xxx as finite except S.1111.111 when the format is e4m3", () => {
  const d = decode(FORMATS.e4m3, 0x7e);
  assert.ok(d.kind === "finite" && d.significand * 2 ** d.exponent === 448);
  assert.equal(decode(FORMATS.e4m3, 0xff).kind, "nan");
  assert.equal(decodedToNumber(decode(FORMATS.e5m2, 0x7b)), 57344);
  assert.equal(decodedToNumber(decode(FORMATS.e5m2, 0xfc)), -Infinity);
});
