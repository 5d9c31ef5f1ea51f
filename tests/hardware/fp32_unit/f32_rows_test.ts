import assert from "node:assert/strict";
import { f32Arith, fmaF32, mulF32 } from "../../../src/hardware/fp32_unit/mod.ts";
import { prng32 } from "../../numerics/_prng.ts";

const SPECIALS = [
  0,
  0x80000000,
  1,
  0x807fffff,
  0x00800000,
  0x80800000,
  0x7f7fffff,
  0xff7fffff,
  0x7f800000,
  0xff800000,
  0x7fc00000,
  0xffbfffff,
  0x3f800000,
  0xbf800000,
];

/** Patterns that reach every path: specials, any pattern, near 1, subnormal, near underflow. */
function pattern(next: () => number): number {
  const r = next();
  const sign = (r & 1) << 31;
  switch (r % 6) {
    case 0:
      return SPECIALS[(r >>> 3) % SPECIALS.length]!;
    case 1:
      return next();
    case 2: // exponent 2^-8 .. 2^7: products and sums that cancel and round
      return (sign | ((119 + ((r >>> 3) % 16)) << 23) | (next() & 0x7fffff)) >>> 0;
    case 3: // subnormal
      return (sign | (next() & 0x7fffff)) >>> 0;
    case 4: // exponent 2^-126 .. 2^-100: products underflow, sums flush
      return (sign | ((1 + ((r >>> 3) % 27)) << 23) | (next() & 0x7fffff)) >>> 0;
    default: // exponent 2^100 .. 2^127: products and sums overflow
      return (sign | ((227 + ((r >>> 3) % 27)) << 23) | (next() & 0x7fffff)) >>> 0;
  }
}

/** An accumulator close to -(a * x), so that the FMA cancels, or an independent pattern. */
function addend(next: () => number, a: number, x: number): number {
  if (next() % 2 === 0) return pattern(next);
  const p = mulF32(a, x) ^ 0x80000000;
  return (p + (next() % 5) - 2) >>> 0;
}

Deno.test("`f32Arith().fmaRow` gives the bits of fmaF32 on every element, each mode, with and without FTZ", () => {
  const next = prng32(211);
  for (const mode of ["rne", "rz", "ru", "rd"] as const) {
    for (const ftz of [false, true]) {
      const ops = f32Arith({ mode, ftz });
      for (let row = 0; row < 300; row++) {
        const a = pattern(next);
        // Rows inside larger buffers: the row forms must honour byteOffset and length.
        const x = new Uint32Array(70).subarray(3, 67).map(() => pattern(next));
        const accAll = new Uint32Array(66);
        const acc = accAll.subarray(1, 65);
        acc.forEach((_, j) => (acc[j] = addend(next, a, x[j]!)));
        const want = acc.map((c, j) => fmaF32([a, x[j]!, c], { mode, ftz }));
        ops.fmaRow(a, x, acc);
        assert.deepEqual(acc, want, `${mode} ftz=${ftz} a=${a}`);
        assert.equal(accAll[0], 0);
        assert.equal(accAll[65], 0);
      }
    }
  }
});

Deno.test("`f32Arith().mulRow` gives the bits of mulF32 on every element, in place or not", () => {
  const next = prng32(212);
  for (const mode of ["rne", "rz", "ru", "rd"] as const) {
    for (const ftz of [false, true]) {
      const ops = f32Arith({ mode, ftz });
      for (let row = 0; row < 300; row++) {
        const b = pattern(next);
        const x = Uint32Array.from({ length: 64 }, () => pattern(next));
        const want = x.map((v) => mulF32(v, b, { mode, ftz }));
        const out = new Uint32Array(64).fill(0xdeadbeef);
        ops.mulRow(x, b, out);
        assert.deepEqual(out, want, `${mode} ftz=${ftz} b=${b}`);
        ops.mulRow(x, b, x);
        assert.deepEqual(x, want, `${mode} ftz=${ftz} b=${b} in place`);
      }
    }
  }
});

Deno.test("`f32Arith().fmaRow` keeps IEEE zero signs, the canonical NaN, FTZ and one rounding", () => {
  const rn = f32Arith();
  const acc = new Uint32Array([0x80000000, 0, 0x3f800000, 0x7f800000, 0x7fc00000]);
  // -0 * 1 + -0 = -0; -0 * 1 + 0 = +0; -1 * 1 + 1 = +0; -inf + inf = NaN; NaN in = NaN out.
  rn.fmaRow(0xbf800000, new Uint32Array([0, 0, 0x3f800000, 0x7f800000, 0]), acc);
  assert.deepEqual([...acc], [0x80000000, 0, 0, 0x7fffffff, 0x7fffffff]);
  // (1 + 2^-18)(2^-24 - 2^-42) + (1 + 2^-23) = 1 + 2^-23 + 2^-24 - 2^-60: float64 rounds it to
  // the FP32 midpoint, which a second rounding would take up to 1 + 2^-22 (one rounding: down).
  const mid = new Uint32Array([0x3f800001]);
  rn.fmaRow(0x3f800020, new Uint32Array([0x337fffc0]), mid);
  assert.equal(mid[0], 0x3f800001);
  // .ftz: a subnormal result becomes a zero of its sign; a subnormal scalar reads as zero.
  const ftz = f32Arith({ ftz: true });
  const tiny = new Uint32Array([0x80000000]);
  ftz.fmaRow(0x00800000, new Uint32Array([0xbf000000]), tiny); // -2^-127
  assert.equal(tiny[0], 0x80000000);
  const kept = new Uint32Array([0x3f800000]);
  ftz.fmaRow(1, new Uint32Array([0x7f7fffff]), kept); // 2^-149 * max flushed: 0 * max + 1
  assert.equal(kept[0], 0x3f800000);
});

Deno.test("fmaRow() and mulRow() refuse a row read shorter than the row written, in every mode", () => {
  for (const mode of ["rne", "rz", "ru", "rd"] as const) {
    const ops = f32Arith({ mode });
    assert.throws(() => ops.fmaRow(0x3f800000, new Uint32Array(2), new Uint32Array(3)), RangeError);
    assert.throws(() => ops.mulRow(new Uint32Array(2), 0x3f800000, new Uint32Array(3)), RangeError);
    ops.fmaRow(0x3f800000, new Uint32Array(4), new Uint32Array(3));
  }
});
