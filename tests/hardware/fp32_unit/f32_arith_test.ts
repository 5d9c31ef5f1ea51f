import assert from "node:assert/strict";
import { addF32, f32Arith, fmaF32, mulF32 } from "../../../src/hardware/fp32_unit/mod.ts";
import { prng32 } from "../../numerics/_prng.ts";

const SPECIALS = [0, 0x80000000, 1, 0x807fffff, 0x00800000, 0x7f7fffff, 0x7f800000, 0xff800000];

Deno.test("`f32Arith()` gives the bits of addF32, mulF32 and fmaF32 in every mode, with and without FTZ", () => {
  const next = prng32(31);
  for (const mode of ["rne", "rz", "ru", "rd"] as const) {
    for (const ftz of [false, true]) {
      const ops = f32Arith({ mode, ftz });
      for (let i = 0; i < 4000; i++) {
        const pick = () => (i % 8 === 0 ? SPECIALS[next() % SPECIALS.length]! : next());
        const a = pick(), b = pick(), c = pick();
        const label = `${mode} ftz=${ftz} ${a} ${b} ${c}`;
        assert.equal(ops.add(a, b), addF32(a, b, { mode, ftz }), label);
        assert.equal(ops.mul(a, b), mulF32(a, b, { mode, ftz }), label);
        assert.equal(ops.fma(a, b, c), fmaF32([a, b, c], { mode, ftz }), label);
      }
    }
  }
});

Deno.test("`f32Arith()` defaults to round-to-nearest-even without FTZ", () => {
  const ops = f32Arith();
  assert.equal(ops.mul(1, 0x3f800000), 1); // a subnormal survives without FTZ
  assert.equal(f32Arith({ ftz: true }).mul(1, 0x3f800000), 0);
});
