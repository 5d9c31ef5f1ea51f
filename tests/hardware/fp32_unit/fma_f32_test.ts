import assert from "node:assert/strict";
import fc from "fast-check";
import {
  addF32,
  divF32,
  fmaF32,
  fmaRnValue,
  mulF32,
  sqrtF32,
} from "../../../src/hardware/fp32_unit/mod.ts";
import type { RoundingMode } from "../../../src/numerics/mod.ts";
import { exactFma, refDiv, refSqrt, roundExact } from "./_bigint_reference.ts";

const MODES: RoundingMode[] = ["rne", "rz", "ru", "rd"];
const finite = fc.integer({ min: 0, max: 0xffffffff }).filter((b) =>
  (b & 0x7f800000) !== 0x7f800000
);
/** Operands biased toward equal exponents (cancellation) and subnormals. */
const near = fc.tuple(finite, finite, fc.integer({ min: 0, max: 0x7fffff }), fc.boolean()).map(
  ([a, b, frac, sub]) => {
    const pe = ((a >>> 23) & 0xff) + ((b >>> 23) & 0xff) - 127;
    const e = sub ? 0 : Math.min(254, Math.max(0, pe));
    return [a, b, ((((a ^ b) & 0x80000000) ^ 0x80000000) | (e << 23) | frac) >>> 0] as const;
  },
);

function refFma(a: number, b: number, c: number, mode: RoundingMode, ftz = false): number | null {
  const { num, exp } = exactFma(a, b, c);
  return num === 0n ? null : roundExact(num, exp, { mode, ftz });
}

Deno.test("`fmaF32()` matches the BigInt reference in all modes on random and cancelling triples", () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.tuple(finite, finite, finite), near),
      fc.constantFrom(...MODES),
      (t, mode) => {
        const ref = refFma(t[0], t[1], t[2], mode);
        if (ref !== null) assert.equal(fmaF32([t[0], t[1], t[2]], { mode }), ref);
      },
    ),
    { numRuns: 20000, seed: 42 },
  );
});

Deno.test("`fmaRnValue()` agrees with `fmaF32()` in nearest-even", () => {
  const f = new Float32Array(4);
  const u = new Uint32Array(f.buffer);
  fc.assert(
    fc.property(fc.oneof(fc.tuple(finite, finite, finite), near), (t) => {
      u[0] = t[0], u[1] = t[1], u[2] = t[2];
      f[3] = fmaRnValue(f[0]!, f[1]!, f[2]!);
      assert.equal(u[3], fmaF32([t[0], t[1], t[2]]));
    }),
    { numRuns: 20000, seed: 7 },
  );
});

Deno.test("`fmaF32()` rounds halfway cases, subnormals and overflow correctly", () => {
  // 1 * (1 + 2^-23) + 2^-24: exactly halfway between 1 + 2^-23 and 1 + 2^-22 -> even (2^-22).
  assert.equal(fmaF32([0x3f800000, 0x3f800001, 0x33800000]), 0x3f800002);
  // 1 * 1 + 2^-24 is halfway between 1 and 1 + 2^-23: stays 1; a product tail breaks the tie.
  assert.equal(fmaF32([0x3f800000, 0x3f800000, 0x33800000]), 0x3f800000);
  assert.equal(fmaF32([0x3f800001, 0x33800000, 0x3f800000]), 0x3f800001);
  // Subnormal result: 2^-75 * 2^-75 = 2^-150 is the tie between 0 and 2^-149 -> 0 (even).
  assert.equal(fmaF32([0x1a000000, 0x1a000000, 0]), 0);
  assert.equal(fmaF32([0x1a000000, 0x1a000000, 0], { mode: "ru" }), 1);
  assert.equal(fmaF32([0x1a000000, 0x1a000000, 0], { ftz: true, mode: "ru" }), 0);
  assert.equal(fmaF32([0x00000001, 0x3f800000, 0]), 1);
  assert.equal(fmaF32([0x00000001, 0x3f800000, 0], { ftz: true }), 0);
  // Overflow: max * 2 in each mode.
  assert.equal(fmaF32([0x7f7fffff, 0x40000000, 0]), 0x7f800000);
  assert.equal(fmaF32([0x7f7fffff, 0x40000000, 0], { mode: "rz" }), 0x7f7fffff);
  assert.equal(fmaF32([0xff7fffff, 0x40000000, 0], { mode: "ru" }), 0xff7fffff);
  assert.equal(fmaF32([0xff7fffff, 0x40000000, 0], { mode: "rd" }), 0xff800000);
});

Deno.test("`fmaF32()` follows IEEE signed zeros, infinities and NaN", () => {
  assert.equal(fmaF32([0x3f800000, 0x3f800000, 0xbf800000]), 0); // exact cancellation
  assert.equal(fmaF32([0x3f800000, 0x3f800000, 0xbf800000], { mode: "rd" }), 0x80000000);
  assert.equal(fmaF32([0x80000000, 0x3f800000, 0x80000000]), 0x80000000); // -0 + -0
  assert.equal(fmaF32([0x80000000, 0x3f800000, 0x00000000]), 0); // -0 + +0
  assert.equal(fmaF32([0x80000000, 0x3f800000, 0x00000000], { mode: "rd" }), 0x80000000);
  assert.equal(fmaF32([0x7f800000, 0, 0x3f800000]), 0x7fffffff); // inf * 0
  assert.equal(fmaF32([0x7f800000, 0x3f800000, 0xff800000]), 0x7fffffff); // inf - inf
  assert.equal(fmaF32([0x7f800000, 0xbf800000, 0x3f800000]), 0xff800000);
  assert.equal(fmaF32([0x3f800000, 0x3f800000, 0xff800000]), 0xff800000);
  assert.equal(fmaF32([0x7fc00001, 0x3f800000, 0]), 0x7fffffff);
  assert.equal(fmaF32([0x7f7fffff, 0x7f7fffff, 0xff800000]), 0xff800000); // finite overflow + -inf
});

Deno.test("`addF32()` and `mulF32()` match the BigInt reference in all modes", () => {
  fc.assert(
    fc.property(finite, finite, fc.constantFrom(...MODES), fc.boolean(), (a, b, mode, ftz) => {
      const flush = (x: number) => ((x & 0x7f800000) === 0 && ftz ? (x & 0x80000000) >>> 0 : x);
      const s = exactFma(0x3f800000, flush(a), flush(b));
      if (s.num !== 0n) {
        assert.equal(addF32(a, b, { mode, ftz }), roundExact(s.num, s.exp, { mode, ftz }));
      }
      const p = exactFma(flush(a), flush(b), 0);
      if (p.num !== 0n) {
        assert.equal(mulF32(a, b, { mode, ftz }), roundExact(p.num, p.exp, { mode, ftz }));
      }
    }),
    { numRuns: 20000, seed: 3 },
  );
  assert.equal(addF32(0x80000000, 0x80000000), 0x80000000);
  assert.equal(addF32(0x3f800000, 0xbf800000, { mode: "rd" }), 0x80000000);
  assert.equal(mulF32(0x80000000, 0x7f800000), 0x7fffffff);
  assert.equal(mulF32(0x80000000, 0x3f800000, { mode: "rd" }), 0x80000000);
});

Deno.test("`divF32()` and `sqrtF32()` match the BigInt reference in all modes", () => {
  fc.assert(
    fc.property(finite, finite, fc.constantFrom(...MODES), (a, b, mode) => {
      if ((a & 0x7fffffff) !== 0 && (b & 0x7fffffff) !== 0) {
        assert.equal(divF32(a, b, { mode }), refDiv(a, b, mode));
      }
      const m = a & 0x7fffffff;
      if (m !== 0) assert.equal(sqrtF32(m, { mode }), refSqrt(m, mode));
    }),
    { numRuns: 20000, seed: 5 },
  );
  assert.equal(divF32(0, 0), 0x7fffffff);
  assert.equal(divF32(0x7f800000, 0xff800000), 0x7fffffff);
  assert.equal(divF32(0x3f800000, 0x80000000), 0xff800000);
  assert.equal(divF32(0xbf800000, 0x7f800000), 0x80000000);
  assert.equal(divF32(0x00000001, 0x40000000), 0); // 2^-150: tie to even
  assert.equal(divF32(0x00000001, 0x40000000, { mode: "ru" }), 1);
  assert.equal(divF32(0x00800000, 0x3f800001, { ftz: true }), 0); // result subnormal -> 0
  assert.equal(sqrtF32(0x80000000), 0x80000000);
  assert.equal(sqrtF32(0xbf800000), 0x7fffffff);
  assert.equal(sqrtF32(0x7f800000), 0x7f800000);
  assert.equal(sqrtF32(0x00000001), 0x1a3504f3); // sqrt(2^-149)
  assert.equal(sqrtF32(0x00000001, { ftz: true }), 0);
});
