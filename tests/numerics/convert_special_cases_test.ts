/**
 * `convert()` on hand-computed edge cases from fp32 (values worked out from IEEE 754-2019 and
 * the OCP FP8 v1.0 tables, independently of the reference): ties, overflow per rule, the
 * subnormal range, signed zeros, infinities, NaNs, FTZ and DAZ.
 *
 * @module
 */
import assert from "node:assert/strict";
import { convert, type ConvertOptions, FORMATS, FP32 } from "../../src/numerics/mod.ts";
import { hex } from "./_ref_convert.ts";

type Case = readonly [
  target: keyof typeof FORMATS,
  input: number,
  options: ConvertOptions,
  want: number,
];

function run(cases: readonly Case[]): void {
  for (const [name, input, options, want] of cases) {
    const to = FORMATS[name];
    const got = convert(FP32, to, input, options);
    assert.equal(
      hex(got, to.storageBits),
      hex(want, to.storageBits),
      `fp32 ${hex(input, 32)} -> ${name} ${JSON.stringify(options)}`,
    );
  }
}

Deno.test("`convert()` breaks exact ties to even and directed modes by sign when rounding to bf16", () => {
  run([
    ["bf16", 0x3f808000, {}, 0x3f80], // 1 + 2^-8: tie, 1.0 is even
    ["bf16", 0x3f818000, {}, 0x3f82], // 1 + 3*2^-8: tie, 1 + 2^-6 is even
    ["bf16", 0x3f808001, {}, 0x3f81], // one fp32 ulp above the tie
    ["bf16", 0x3f807fff, {}, 0x3f80], // one fp32 ulp below the tie
    ["bf16", 0x3f808000, { mode: "rz" }, 0x3f80],
    ["bf16", 0x3f808000, { mode: "ru" }, 0x3f81],
    ["bf16", 0x3f808000, { mode: "rd" }, 0x3f80],
    ["bf16", 0xbf808000, { mode: "rd" }, 0xbf81],
    ["bf16", 0xbf808000, { mode: "ru" }, 0xbf80],
    ["bf16", 0x3f800001, { mode: "ru" }, 0x3f81],
  ]);
});

Deno.test("`convert()` applies the overflow rule when the result is past the largest finite", () => {
  run([
    // bf16: the threshold (2 - 2^-8) * 2^127 = 0x7f7f8000 ties to even, i.e. 2^128 = infinity.
    ["bf16", 0x7f7f7fff, {}, 0x7f7f],
    ["bf16", 0x7f7f8000, {}, 0x7f80],
    ["bf16", 0x7f7fffff, {}, 0x7f80],
    ["bf16", 0x7f7fffff, { mode: "rz" }, 0x7f7f],
    ["bf16", 0x7f7fffff, { mode: "ru" }, 0x7f80],
    ["bf16", 0x7f7fffff, { mode: "rd" }, 0x7f7f],
    ["bf16", 0xff7fffff, { mode: "rd" }, 0xff80],
    ["bf16", 0xff7fffff, { mode: "ru" }, 0xff7f],
    ["bf16", 0x7f7fffff, { overflow: "saturate" }, 0x7f7f],
    ["bf16", 0x7f7fffff, { mode: "rz", overflow: "infinity" }, 0x7f7f], // truncation: no overflow
    // fp16: max 65504; 65520 is the threshold; 65536 overflows even when truncated.
    ["fp16", 0x477fefff, {}, 0x7bff],
    ["fp16", 0x477ff000, {}, 0x7c00],
    ["fp16", 0x477ff000, { mode: "rz" }, 0x7bff],
    ["fp16", 0xc77ff000, { overflow: "saturate" }, 0xfbff],
    ["fp16", 0x47800000, { mode: "rz" }, 0x7bff],
    ["fp16", 0x47800000, { mode: "rz", overflow: "infinity" }, 0x7c00],
    ["fp16", 0x501502f9, { mode: "rd" }, 0x7bff], // 1e10
    // e4m3 (no infinity): 464 ties to 448 (even); above it the default rule gives NaN.
    ["e4m3", 0x43e00000, {}, 0x7e], // 448
    ["e4m3", 0x43e80000, {}, 0x7e], // 464
    ["e4m3", 0x43e80001, {}, 0x7f],
    ["e4m3", 0xc3e80001, {}, 0xff],
    ["e4m3", 0x43e80001, { overflow: "saturate" }, 0x7e],
    ["e4m3", 0x43f00000, { mode: "rz" }, 0x7e], // 480
    ["e4m3", 0x43f00000, { mode: "rz", overflow: "infinity" }, 0x7f],
    ["e4m3", 0x43e08000, { mode: "ru" }, 0x7f], // 449 rounds up past 448
    ["e4m3", 0x43e08000, { mode: "rd" }, 0x7e],
    ["e4m3", 0xc3e08000, { mode: "rd" }, 0xff],
    ["e4m3", 0xc3e08000, { mode: "ru" }, 0xfe],
    ["e4m3", 0x7f7fffff, { mode: "rz" }, 0x7e],
    // e5m2: max 57344; 61440 ties to 65536 (even) = infinity.
    ["e5m2", 0x47600000, {}, 0x7b],
    ["e5m2", 0x476fffff, {}, 0x7b],
    ["e5m2", 0x47700000, {}, 0x7c],
    ["e5m2", 0x47700000, { mode: "rz" }, 0x7b],
    ["e5m2", 0xc7700000, { overflow: "saturate" }, 0xfb],
    // tf32 keeps fp32's range: the largest fp32 rounds to infinity, truncates to 0x7f7fe000.
    ["tf32", 0x7f7fffff, {}, 0x7f800000],
    ["tf32", 0x7f7fffff, { mode: "rz" }, 0x7f7fe000],
    ["tf32", 0x3f801000, {}, 0x3f800000], // tie at 1 + 2^-11
    ["tf32", 0x3f803000, {}, 0x3f804000],
    ["tf32", 0x3f801001, {}, 0x3f802000],
  ]);
});

Deno.test("`convert()` rounds into the subnormal range when the value is below the smallest normal", () => {
  run([
    ["bf16", 0x00010000, {}, 0x0001], // 2^-133: smallest bf16 subnormal, exact
    ["bf16", 0x00008000, {}, 0x0000], // half of it: tie to even zero
    ["bf16", 0x00008000, { mode: "ru" }, 0x0001],
    ["bf16", 0x00008001, {}, 0x0001],
    ["bf16", 0x80008000, { mode: "rd" }, 0x8001],
    ["bf16", 0x80008000, {}, 0x8000], // the zero keeps the sign
    ["bf16", 0x00018000, {}, 0x0002], // 1.5 quanta: tie to even 2
    ["bf16", 0x007fffff, {}, 0x0080], // largest fp32 subnormal rounds up to the smallest normal
    ["bf16", 0x007fffff, { mode: "rz" }, 0x007f],
    ["bf16", 0x00000001, { mode: "ru" }, 0x0001],
    ["bf16", 0x00000001, {}, 0x0000],
    ["fp16", 0x33800000, {}, 0x0001], // 2^-24
    ["fp16", 0x33000000, {}, 0x0000], // 2^-25: tie to zero
    ["fp16", 0x33000001, {}, 0x0001],
    ["fp16", 0x33000000, { mode: "ru" }, 0x0001],
    ["fp16", 0x33c00000, {}, 0x0002], // 3 * 2^-25: tie to even 2
    ["fp16", 0x387fffff, {}, 0x0400], // just below 2^-14 rounds to the smallest normal
    ["fp16", 0x387fffff, { mode: "rz" }, 0x03ff],
    ["fp16", 0x00000001, { mode: "ru" }, 0x0001],
    ["fp16", 0x80000001, { mode: "rd" }, 0x8001],
    ["e4m3", 0x3b000000, {}, 0x01], // 2^-9
    ["e4m3", 0x3a800000, {}, 0x00], // 2^-10: tie to zero
    ["e4m3", 0x3b400000, {}, 0x02], // 3 * 2^-10: tie to even 2
    ["e4m3", 0x3ac00000, {}, 0x01], // 3 * 2^-11: above the 2^-10 tie
    ["e5m2", 0x37800000, {}, 0x01], // 2^-16
    ["e5m2", 0x37000001, {}, 0x01],
  ]);
});

Deno.test("`convert()` flushes subnormal results with ftz and subnormal inputs with daz", () => {
  run([
    ["bf16", 0x00010000, { ftz: true }, 0x0000],
    ["bf16", 0x80010000, { ftz: true }, 0x8000],
    ["bf16", 0x007fffff, { ftz: true }, 0x0080], // rounds to a normal first: kept
    ["bf16", 0x007fffff, { ftz: true, mode: "rz" }, 0x0000],
    ["bf16", 0x00800000, { ftz: true }, 0x0080],
    ["bf16", 0x00400000, { daz: true }, 0x0000],
    ["bf16", 0x80400000, { daz: true, mode: "rd" }, 0x8000],
    ["bf16", 0x00800000, { daz: true }, 0x0080], // normal inputs are untouched
    ["fp16", 0x387fffff, { ftz: true, mode: "rz" }, 0x0000],
    ["fp16", 0x33800000, { ftz: true }, 0x0000],
    ["fp16", 0x38800000, { ftz: true }, 0x0400],
    ["e4m3", 0x3c000000, { ftz: true }, 0x00], // 2^-7 is an e4m3 subnormal
    ["e4m3", 0x3c800000, { ftz: true }, 0x08], // 2^-6 is the smallest normal
  ]);
});

Deno.test("`convert()` keeps zero signs and maps infinities and NaNs when the input is special", () => {
  const cases: Case[] = [];
  for (const name of ["bf16", "fp16", "e4m3", "e5m2", "tf32", "e8m13"] as const) {
    const to = FORMATS[name];
    const neg = 2 ** (to.storageBits - 1);
    for (const mode of ["rne", "rz", "ru", "rd"] as const) {
      cases.push([name, 0x00000000, { mode }, 0], [name, 0x80000000, { mode }, neg]);
      for (const nan of [0x7fc00000, 0xffc00000, 0x7f800001, 0xffffffff]) {
        cases.push([name, nan, { mode }, to.canonicalNan]);
      }
    }
  }
  run(cases);
  run([
    ["bf16", 0x7f800000, {}, 0x7f80],
    ["bf16", 0xff800000, { mode: "rz" }, 0xff80],
    ["bf16", 0x7f800000, { overflow: "saturate" }, 0x7f80], // infinity is exact, not overflow
    ["fp16", 0xff800000, {}, 0xfc00],
    ["e5m2", 0x7f800000, {}, 0x7c],
    ["e4m3", 0x7f800000, {}, 0x7f],
    ["e4m3", 0xff800000, {}, 0xff],
    ["e4m3", 0x7f800000, { overflow: "saturate" }, 0x7e],
    ["e4m3", 0xff800000, { overflow: "saturate" }, 0xfe],
    ["tf32", 0xff800000, {}, 0xff800000],
    ["bf16", 0x7fc00000, {}, 0x7fff], // NVIDIA canonical NaN
    ["bf16", 0xffc00001, { nan: 0x7fc0 }, 0x7fc0], // PyTorch's choice
    ["fp16", 0x7fc00000, {}, 0x7fff],
    ["e4m3", 0x7fc00000, {}, 0x7f],
    ["e5m2", 0x7fc00000, {}, 0x7f],
    ["tf32", 0x7fc00000, {}, 0x7fffe000],
  ]);
});

Deno.test("`convert()` throws RangeError when the source pattern does not fit", () => {
  assert.throws(() => convert(FP32, FORMATS.bf16, -1), RangeError);
  assert.throws(() => convert(FP32, FORMATS.bf16, 2 ** 32), RangeError);
  assert.throws(() => convert(FORMATS.bf16, FP32, 0x10000), RangeError);
  assert.throws(() => convert(FORMATS.e4m3, FP32, 0.5), RangeError);
});
