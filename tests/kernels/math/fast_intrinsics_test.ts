import assert from "node:assert/strict";
import { createSfu } from "../../../src/hardware/sfu/mod.ts";
import { fastExpf, fastLogf, LN2_F32, LOG2E_F32 } from "../../../src/kernels/math/mod.ts";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const table = teslaSfu();
const ieee = createSfu({ mode: "ieee" });
const hex = (v: number) => `0x${v.toString(16)}`;

Deno.test("`fastLogf()` multiplies the LG2 result by fl32(ln 2) once", () => {
  // A stand-in LG2 returning 1 + 2^-23 makes the product round: (1 + 2^-23)·ln2_f32.
  const lg2 = () => 0x3f800001;
  const want = bitsFromF32(Math.fround(f32FromBits(0x3f800001) * f32FromBits(LN2_F32)));
  assert.equal(hex(fastLogf(0x40000000, { lg2, ftz: true })), hex(want));
  for (const x of [0x3f000000, 0x40400000, 0x4b000003, 0x3f800001]) {
    const l = table.lg2(x);
    const want2 = bitsFromF32(Math.fround(f32FromBits(l) * f32FromBits(LN2_F32)));
    assert.equal(fastLogf(x, { lg2: table.lg2, ftz: true }), want2, hex(x));
  }
});

Deno.test("`fastLogf()` is within 2^-21 of ln y on [0.5, 2) for both SFU modes", () => {
  for (const sfu of [table, ieee]) {
    for (let m = 0; m < 0x800000; m += 4099) {
      for (const base of [0x3f000000, 0x3f800000]) {
        const x = base | m;
        const got = f32FromBits(fastLogf(x, { lg2: sfu.lg2, ftz: true }));
        assert.ok(Math.abs(got - Math.log(f32FromBits(x))) < 2 ** -21, `${sfu.mode} ${hex(x)}`);
      }
    }
  }
});

Deno.test("`fastLogf()` flushes subnormal inputs only under ftz", () => {
  const { lg2 } = ieee;
  assert.equal(hex(fastLogf(0x00000001, { lg2, ftz: true })), "0xff800000"); // -inf
  // 2^-149: LG2(2^-125) - 24 = -149, times ln 2.
  const want = bitsFromF32(Math.fround(-149 * f32FromBits(LN2_F32)));
  assert.equal(hex(fastLogf(0x00000001, { lg2, ftz: false })), hex(want));
});

Deno.test("`fastExpf()` is EX2 of fl32(x · log2 e)", () => {
  for (const x of [0x3f800000, 0xbf800000, 0x41200000, 0xc1a00000, 0x3a000000]) {
    const t = bitsFromF32(Math.fround(f32FromBits(x) * f32FromBits(LOG2E_F32)));
    assert.equal(fastExpf(x, { mufu: table, ftz: true }), table.ex2(t), hex(x));
    const got = f32FromBits(fastExpf(x, { mufu: ieee, ftz: true }));
    const want = Math.exp(f32FromBits(x));
    assert.ok(Math.abs(got - want) <= 2 ** -20 * want, hex(x)); // fl32(x·log2e) costs |x|·2^-24
  }
  // Below 2^-126 the FTZ build flushes and the non-FTZ one keeps a subnormal.
  assert.equal(fastExpf(0xc2c80000, { mufu: table, ftz: true }), 0); // e^-100
  const sub = fastExpf(0xc2c80000, { mufu: ieee, ftz: false });
  assert.ok(sub > 0 && sub < 0x800000, hex(sub));
  assert.ok(Math.abs(f32FromBits(sub) - Math.exp(-100)) < 2 ** -149 * 2);
});
