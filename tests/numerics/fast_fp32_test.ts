/**
 * The fp32 fast paths (`fp32ToBf16()`, `fp32Add()`, `f32FromBits()`, `bitsFromF32()`) bit for bit
 * against the exact reference: every bf16 tie and grid point, fp32 specials, and seeded random
 * samples (operand pairs drawn close in exponent so that additions cancel and carry).
 *
 * @module
 */
import assert from "node:assert/strict";
import { bitsFromF32, f32FromBits, FP32, fp32Add, fp32ToBf16 } from "../../src/numerics/mod.ts";
import { boundaryInputs, FP32_SPECIALS } from "./_boundary_inputs.ts";
import { refDecode, refRound } from "./_exact_reference.ts";
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

/** Exact signed sum of two fp32 patterns, rounded once by the reference (RNE). */
function refAdd(x: number, y: number): number {
  const a = refDecode(RF32, x);
  const b = refDecode(RF32, y);
  if (a.kind === "nan" || b.kind === "nan") return FP32.canonicalNan;
  if (a.kind === "inf" || b.kind === "inf") {
    if (a.kind === "inf" && b.kind === "inf" && a.sign !== b.sign) return FP32.canonicalNan;
    return (a.kind === "inf" ? a.sign : (b as { sign: 0 | 1 }).sign) ? 0xff800000 : 0x7f800000;
  }
  const e = Math.min(a.mag.exp, b.mag.exp);
  const sa = (a.sign ? -a.mag.num : a.mag.num) << BigInt(a.mag.exp - e);
  const sb = (b.sign ? -b.mag.num : b.mag.num) << BigInt(b.mag.exp - e);
  const sum = sa + sb;
  // IEEE 754 §6.3: an exact zero sum is +0 in nearest-even unless both operands are -0.
  if (sum === 0n) return a.sign === 1 && b.sign === 1 ? 0x80000000 : 0;
  const sign = sum < 0n ? 1 : 0;
  return refRound(RF32, sign, { num: sign ? -sum : sum, exp: e });
}

Deno.test("`fp32Add()` equals the exactly rounded sum when operands are specials, near or random", () => {
  const m = new Mismatches();
  const next = prng32(0xadd);
  const pairs: [number, number][] = [];
  for (const x of FP32_SPECIALS) for (const y of FP32_SPECIALS) pairs.push([x, y]);
  for (let i = 0; i < 40_000; i++) {
    const x = next();
    // y: same sign or not, exponent within +-25 binades of x (clamped), random fraction.
    const ex = (x >>> 23) & 0xff;
    const ey = Math.min(254, Math.max(0, ex + (next() % 51) - 25));
    const y = ((next() & 0x807fffff) + ey * 2 ** 23) >>> 0;
    pairs.push([x, y], [x, next()]);
  }
  for (const [x, y] of pairs) {
    const want = refAdd(x, y);
    const got = fp32Add(x, y);
    m.check(
      got === want,
      () => `${hex(x, 32)} + ${hex(y, 32)}: got ${hex(got, 32)}, want ${hex(want, 32)}`,
    );
  }
  m.assertNone("fp32Add");
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
