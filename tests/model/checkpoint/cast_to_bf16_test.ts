/**
 * `castToBf16()`, the loaders' F32/F16 -> BF16 cast, against bit patterns derived by hand from
 * PyTorch's rule (c10/util/BFloat16.h `round_to_nearest_even`: add 0x7FFF plus the lowest kept bit
 * to the F32 pattern, keep its high 16 bits; F16 converts to float exactly first), and every F16
 * pattern against the reference `convert` (one nearest-even rounding, F16 -> F32 being exact).
 */
import assert from "node:assert/strict";
import { castToBf16, isLoadCastDtype } from "../../../src/model/mod.ts";
import { firstNan } from "../../../src/model/checkpoint/cast_to_bf16.ts";
import { BF16, convert, FP16 } from "../../../src/numerics/mod.ts";

/** Casts one pattern; null for a NaN (which is not cast). */
function one(dtype: "F32" | "F16", bits: number): number | null {
  const out = new Uint16Array(1);
  const src = dtype === "F32" ? Uint32Array.of(bits) : Uint16Array.of(bits);
  return castToBf16(dtype, { bits: src, out }) === 0 ? null : out[0]!;
}

const hex = (x: number | null) => x === null ? "NaN (not cast)" : `0x${x.toString(16)}`;

Deno.test("`castToBf16()` rounds F32 to nearest-even as PyTorch does, ties both ways, overflow to infinity, subnormals kept", () => {
  const cases: [number, number, string][] = [
    [0x3f800000, 0x3f80, "1.0 exact"],
    [0x3f808000, 0x3f80, "1 + 2^-8: a tie, kept part even: stays"],
    [0x3f818000, 0x3f82, "1 + 3 * 2^-8: a tie, kept part odd: up to even"],
    [0xbf818000, 0xbf82, "the same tie, negative: up in magnitude"],
    [0x3f808001, 0x3f81, "just above the tie: up"],
    [0x3f807fff, 0x3f80, "just below the tie: down"],
    [0x3f80ffff, 0x3f81, "all dropped bits set: up"],
    [0x7f7f7fff, 0x7f7f, "below the tie at the largest bf16: stays finite"],
    [0x7f7f8000, 0x7f80, "a tie at the largest bf16 (odd): up to +inf"],
    [0x7f7fffff, 0x7f80, "FLT_MAX overflows to +inf"],
    [0xff7fffff, 0xff80, "-FLT_MAX overflows to -inf"],
    [0x7f800000, 0x7f80, "+inf"],
    [0xff800000, 0xff80, "-inf"],
    [0x80000000, 0x8000, "-0"],
    [0x00008000, 0x0000, "subnormal tie, even: down to +0"],
    [0x00018000, 0x0002, "subnormal tie, odd: up"],
    [0x807fffff, 0x8080, "largest negative subnormal: up to the smallest normal"],
  ];
  for (const [f32, want, what] of cases) {
    assert.equal(hex(one("F32", f32)), hex(want), `${hex(f32)}: ${what}`);
  }
});

Deno.test("`castToBf16()` converts F16 exactly to F32 first, then rounds as PyTorch does", () => {
  const cases: [number, number, string][] = [
    [0x3c00, 0x3f80, "1.0"],
    [0x3c01, 0x3f80, "1 + 2^-10: down"],
    [0x3c04, 0x3f80, "1 + 2^-8: a tie, even: stays"],
    [0x3c0c, 0x3f82, "1 + 3 * 2^-8: a tie, odd: up"],
    [0x7bff, 0x4780, "65504 (0x477fe000): up to 65536"],
    [0x03ff, 0x3880, "largest subnormal (0x387fc000): up to 2^-14"],
    [0x0001, 0x3380, "smallest subnormal 2^-24, normal in bf16"],
    [0x7c00, 0x7f80, "+inf"],
    [0xfc00, 0xff80, "-inf"],
    [0x8000, 0x8000, "-0"],
  ];
  for (const [f16, want, what] of cases) {
    assert.equal(hex(one("F16", f16)), hex(want), `${hex(f16)}: ${what}`);
  }
  // Every pattern: one nearest-even rounding of the F16 value, as the reference path gives it.
  const all = new Uint16Array(1 << 16).map((_, i) => i);
  const out = new Uint16Array(all.length);
  const nans = all.filter((h) => (h & 0x7fff) > 0x7c00);
  let at = 0;
  for (const nan of [...nans, all.length]) {
    const bits = all.subarray(at, nan);
    assert.equal(castToBf16("F16", { bits, out, at }), -1);
    at = nan + 1;
  }
  const wrong = [...all].find((h) => (h & 0x7fff) <= 0x7c00 && out[h] !== convert(FP16, BF16, h));
  assert.equal(wrong, undefined, `F16 ${wrong}`);
});

Deno.test("`castToBf16()` does not cast a NaN (its BF16 pattern depends on where PyTorch casts it): its index comes back", () => {
  // c10's scalar rule gives 0x7FC0, ATen's AVX2/AVX-512 kernels 0xFFFF, a GPU's cvt 0x7FFF.
  for (const nan of [0x7fc00000, 0x7f800001, 0xffffffff, 0xff800001]) {
    assert.equal(one("F32", nan), null, hex(nan));
  }
  for (const nan of [0x7e00, 0x7c01, 0xffff]) assert.equal(one("F16", nan), null, hex(nan));
  const out = new Uint16Array(4);
  const bits = Uint32Array.of(0x3f800000, 0x40000000, 0x7fc00000, 0x3f800000);
  assert.equal(castToBf16("F32", { bits, out }), 2);
  assert.deepEqual([...out.subarray(0, 2)], [0x3f80, 0x4000]);
});

Deno.test("`firstNan()` (the load's NaN check, which casts nothing) stops where `castToBf16()` does, for every F16 pattern and F32 patterns around the infinities", () => {
  const out = new Uint16Array(1);
  const f32 = [0, 0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fffffff, 0x80000000, 0xff800000];
  for (const b of [...f32, ...f32.map((b) => (b | 0x80000000) >>> 0), 0xff800001]) {
    const bits = Uint32Array.of(0x3f800000, b);
    assert.equal(firstNan(bits), castToBf16("F32", { bits, out: new Uint16Array(2) }), hex(b));
  }
  for (let h = 0; h < 1 << 16; h++) {
    const bits = Uint16Array.of(h);
    assert.equal(firstNan(bits), castToBf16("F16", { bits, out }), hex(h));
  }
});

Deno.test("`castToBf16()` refuses patterns of the wrong kind or an output too short", () => {
  const out = new Uint16Array(2);
  assert.throws(() => castToBf16("F32", { bits: new Uint16Array(1), out }), RangeError);
  assert.throws(() => castToBf16("F16", { bits: new Uint32Array(1), out }), RangeError);
  assert.throws(() => castToBf16("F32", { bits: new Uint32Array(2), out, at: 1 }), RangeError);
  assert.ok(isLoadCastDtype("F16") && !isLoadCastDtype("F64") && !isLoadCastDtype("I32"));
});
