/**
 * Self-checks of the test-only exact reference against values written out by hand from the
 * IEEE 754 and OCP FP8 specifications, so that the reference is not trusted blindly.
 *
 * @module
 */
import assert from "node:assert/strict";
import { compareDyadic, type Dyadic, dyadic, dyadicToNumber } from "./_dyadic.ts";
import { refDecode, refNeighbours, refNeighboursOnTheFly, refRound } from "./_exact_reference.ts";
import { prng32 } from "./_prng.ts";
import { refConvert } from "./_ref_convert.ts";
import { maxFiniteIndex, refFormat } from "./_ref_formats.ts";

function value(name: string, bits: number): number {
  const v = refDecode(refFormat(name), bits);
  if (v.kind !== "finite") return v.kind === "inf" ? (v.sign ? -Infinity : Infinity) : NaN;
  const x = dyadicToNumber(v.mag);
  return v.sign ? -x : x;
}

Deno.test("`refDecode()` gives the published extreme values when decoding each format's limits", () => {
  // OCP FP8 v1.0 table 1: E4M3 max 448, min normal 2^-6, min subnormal 2^-9; E5M2 max 57344.
  assert.equal(value("e4m3", 0x7e), 448);
  assert.equal(value("e4m3", 0x08), 2 ** -6);
  assert.equal(value("e4m3", 0x01), 2 ** -9);
  assert.ok(Number.isNaN(value("e4m3", 0x7f)) && Number.isNaN(value("e4m3", 0xff)));
  assert.equal(value("e4m3", 0x78), 256); // S.1111.000 is finite in E4M3FN
  assert.equal(value("e5m2", 0x7b), 57344);
  assert.equal(value("e5m2", 0x7c), Infinity);
  assert.ok(Number.isNaN(value("e5m2", 0x7d)));
  assert.equal(value("e5m2", 0x01), 2 ** -16);
  // IEEE binary16: max 65504, min subnormal 2^-24.
  assert.equal(value("fp16", 0x7bff), 65504);
  assert.equal(value("fp16", 0x0001), 2 ** -24);
  assert.equal(value("fp16", 0xfc00), -Infinity);
  // bf16 and fp32 share the exponent range.
  assert.equal(value("bf16", 0x7f7f), (2 - 2 ** -7) * 2 ** 127);
  assert.equal(value("bf16", 0x0001), 2 ** -133);
  assert.equal(value("fp32", 0x7f7fffff), (2 - 2 ** -23) * 2 ** 127);
  assert.equal(value("fp32", 0x00000001), 2 ** -149);
  assert.equal(value("tf32", 0x00002000), 2 ** -136);
  assert.equal(value("e8m13", 0x00000400), 2 ** -139);
  assert.equal(value("tf32", 0x7f7fe000), (2 - 2 ** -10) * 2 ** 127);
  assert.equal(Object.is(value("bf16", 0x8000), -0), true);
  assert.throws(() => refDecode(refFormat("tf32"), 0x3f800001), RangeError);
});

Deno.test("`maxFiniteIndex()` leaves exactly the specials above it when the format is e4m3, e5m2 or bf16", () => {
  assert.equal(maxFiniteIndex(refFormat("e4m3")), 0x7e);
  assert.equal(maxFiniteIndex(refFormat("e5m2")), 0x7b);
  assert.equal(maxFiniteIndex(refFormat("bf16")), 0x7f7f);
});

Deno.test("`refRound()` gives the hand-computed pattern when rounding ties, overflows and subnormals", () => {
  const bf16 = refFormat("bf16");
  const e4m3 = refFormat("e4m3");
  const at = (num: number, exp: number): Dyadic => dyadic(num, exp);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
  assert.equal(refRound(bf16, 0, at(257, -8)), 0x3f80);
  assert.equal(refRound(bf16, 0, at(257, -8), { sticky: true }), 0x3f81);
  assert.equal(refRound(bf16, 0, at(259, -8)), 0x3f82); // 1 + 3*2^-8: tie to even 1 + 2^-6
  assert.equal(refRound(bf16, 1, at(257, -8), { mode: "rd" }), 0xbf81);
  assert.equal(refRound(bf16, 1, at(257, -8), { mode: "ru" }), 0xbf80);
  // Half the smallest subnormal: nearest-even gives zero, up gives the subnormal.
  assert.equal(refRound(bf16, 0, at(1, -134)), 0x0000);
  assert.equal(refRound(bf16, 0, at(1, -134), { mode: "ru" }), 0x0001);
  assert.equal(refRound(bf16, 1, at(3, -135)), 0x8001);
  assert.equal(refRound(bf16, 0, at(1, -134), { sticky: true }), 0x0001);
  assert.equal(refRound(bf16, 0, at(0, 5), { sticky: true, mode: "ru" }), 0x0001);
  // E4M3: 464 ties to 448 (even), 465 overflows to NaN; saturate keeps 448.
  assert.equal(refRound(e4m3, 0, at(464, 0)), 0x7e);
  assert.equal(refRound(e4m3, 0, at(465, 0)), 0x7f);
  assert.equal(refRound(e4m3, 1, at(465, 0), { overflow: "saturate" }), 0xfe);
  assert.equal(refRound(e4m3, 0, at(100000, 0), { mode: "rz" }), 0x7e);
  // bf16 overflow threshold is (2 - 2^-8) * 2^127.
  assert.equal(refRound(bf16, 0, at(511, 119)), 0x7f80);
  assert.equal(refRound(bf16, 0, at(511, 119), { mode: "rz" }), 0x7f7f);
  assert.equal(refRound(bf16, 0, at(511, 119), { mode: "rz", overflow: "infinity" }), 0x7f7f);
  assert.equal(refRound(bf16, 0, at(1, 128), { mode: "rz", overflow: "infinity" }), 0x7f80);
  // FTZ applies after rounding: the largest subnormal rounding up to the smallest normal stays.
  assert.equal(refRound(bf16, 0, at(255, -134), { ftz: true }), 0x0080);
  assert.equal(refRound(bf16, 0, at(253, -134), { ftz: true }), 0x0000);
});

Deno.test("`refConvert()` keeps signed zeros and maps NaN and infinity per target when the input is special", () => {
  const fp32 = refFormat("fp32");
  const e4m3 = refFormat("e4m3");
  assert.equal(refConvert(fp32, refFormat("fp16"), 0x80000000, { canonicalNan: 0x7fff }), 0x8000);
  assert.equal(refConvert(fp32, e4m3, 0xff800000, { canonicalNan: 0x7f }), 0xff);
  assert.equal(
    refConvert(fp32, e4m3, 0xff800000, { canonicalNan: 0x7f, overflow: "saturate" }),
    0xfe,
  );
  assert.equal(refConvert(fp32, e4m3, 0x7fc00000, { canonicalNan: 0x7f, nan: 0xff }), 0xff);
  assert.equal(refConvert(fp32, refFormat("bf16"), 1, { canonicalNan: 0, daz: true }), 0);
  assert.equal(compareDyadic(dyadic(4, -2), dyadic(1, 0)), 0);
});

Deno.test("`refNeighbours()` agrees with `refNeighboursOnTheFly()` when magnitudes are random", () => {
  const next = prng32(99);
  for (const name of ["bf16", "fp16", "e4m3", "e5m2"]) {
    const f = refFormat(name);
    for (let i = 0; i < 3000; i++) {
      const mag = dyadic(next() % 2 ** 20, (next() % 320) - 170);
      const a = refNeighbours(f, mag);
      const b = refNeighboursOnTheFly(f, mag);
      assert.deepEqual(a, b, `${name} ${mag.num}*2^${mag.exp}`);
    }
  }
});
