/**
 * The fp32 fast conversions (`fp32ToBf16()`, `f32FromBits()`, `bitsFromF32()`) bit for bit
 * against the exact reference: every bf16 tie and grid point, fp32 specials, and seeded random
 * samples.
 *
 * @module
 */
import assert from "node:assert/strict";
import { bitsFromF32, f32FromBits, FP32, fp32ToBf16 } from "../../src/numerics/mod.ts";
import { boundaryInputs, FP32_SPECIALS } from "./_boundary_inputs.ts";
import { Mismatches } from "./_mismatches.ts";
import { prng32 } from "./_prng.ts";
import { hex, refConvert } from "./_ref_convert.ts";
import { refFormat } from "./_ref_formats.ts";

const RF32 = refFormat("fp32");
const RBF16 = refFormat("bf16");

Deno.test("`fp32ToBf16()` equals the reference nearest-even conversion when inputs are on bf16 boundaries or random", () => {
  const m = new Mismatches();
  const inputs = boundaryInputs(RBF16, { every: true });
  const next = prng32(0xbf16);
  for (let i = 0; i < 100_000; i++) inputs.push(next());
  for (const bits of inputs) {
    const want = refConvert(RF32, RBF16, bits, { canonicalNan: 0x7fff });
    const got = fp32ToBf16(bits);
    m.check(got === want, () => `${hex(bits, 32)}: got ${hex(got, 16)}, want ${hex(want, 16)}`);
  }
  m.assertNone("fp32ToBf16");
});

Deno.test("`bitsFromF32()` inverts `f32FromBits()` when the pattern is not a NaN", () => {
  const next = prng32(0xf32);
  const inputs = [...FP32_SPECIALS];
  for (let i = 0; i < 10_000; i++) inputs.push(next());
  for (const bits of inputs) {
    const isNan = (bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0;
    assert.equal(bitsFromF32(f32FromBits(bits)), isNan ? FP32.canonicalNan : bits, hex(bits, 32));
  }
  assert.equal(bitsFromF32(0.1), 0x3dcccccd); // rounds to nearest
  assert.equal(bitsFromF32(NaN), 0x7fffffff);
});
