/**
 * Source of truth: ../shared/sfu/mufu_probes.json (model predictions and correctly rounded values
 * from sfu_tesla_model.md §5) and the GB200 ex2 outputs of sfu_tesla_model.md §4. The probe
 * values are copied here so the test runs without the shared folder.
 */
import assert from "node:assert/strict";
import { decodeSfuTables } from "../../../src/hardware/sfu/mod.ts";
import { ieeeEx2 } from "../../../src/hardware/sfu/ieee_ex2.ts";
import { ieeeRcp } from "../../../src/hardware/sfu/ieee_rcp.ts";
import { ieeeRsqrt } from "../../../src/hardware/sfu/ieee_rsqrt.ts";
import { mufuEx2 } from "../../../src/hardware/sfu/mufu_ex2.ts";
import { mufuRcp } from "../../../src/hardware/sfu/mufu_rcp.ts";
import { mufuRsqrt } from "../../../src/hardware/sfu/mufu_rsqrt.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";

const tables = decodeSfuTables(readTeslaTableBytes());

// [x, model, correctly rounded]
const RCP: [number, number, number][] = [
  [0x3fe21812, 0x3f10ee4d, 0x3f10ee4c],
  [0x3fc26d6d, 0x3f288930, 0x3f28892f],
  [0x3ff7ed69, 0x3f042af1, 0x3f042af0],
  [0x3fbf28a3, 0x3f2b6af2, 0x3f2b6af1],
  [0x3f96365c, 0x3f5a24ff, 0x3f5a2500],
  [0x3fefeaf6, 0x3f089481, 0x3f089482],
  [0x3ffe0871, 0x3f00fdba, 0x3f00fdbb],
  [0x3f90ddf2, 0x3f623197, 0x3f623198],
];
const RSQ: [number, number, number][] = [
  [0x3f820036, 0x3f7e05b6, 0x3f7e05b8],
  [0x3f820061, 0x3f7e058c, 0x3f7e058e],
  [0x3f8200b8, 0x3f7e0537, 0x3f7e0539],
  [0x3f820317, 0x3f7e02e6, 0x3f7e02e8],
  [0x3f820342, 0x3f7e02bc, 0x3f7e02be],
  [0x3f820399, 0x3f7e0267, 0x3f7e0269],
  [0x3f8203c4, 0x3f7e023d, 0x3f7e023f],
  [0x3f8203ef, 0x3f7e0213, 0x3f7e0215],
  [0x3f967a79, 0x3f6c1b41, 0x3f6c1b40],
  [0x3faa4de4, 0x3f5df033, 0x3f5df032],
  [0x3f861718, 0x3f7a1e6c, 0x3f7a1e6d],
  [0x3fb7f358, 0x3f558c25, 0x3f558c26],
  [0x406a8423, 0x3f05bc0b, 0x3f05bc0a],
  [0x405fbc54, 0x3f08eb28, 0x3f08eb27],
  [0x40638ea0, 0x3f07c397, 0x3f07c398],
  [0x4037739e, 0x3f1734bf, 0x3f1734c0],
];
// [x, H1_tesla, correctly rounded]
const EX2: [number, number, number][] = [
  [0x3fc00000, 0x403504f3, 0x403504f3],
  [0xbf000000, 0x3f3504f2, 0x3f3504f3],
  [0xbfc00000, 0x3eb504f2, 0x3eb504f3],
  [0xc0b4fae8, 0x3ca2822f, 0x3ca28230],
  [0x33ffffff, 0x3f800000, 0x3f800001],
  [0xb3ffffff, 0x3f800000, 0x3f7fffff],
  [0x33c00000, 0x3f800000, 0x3f800001],
  [0xb3c00000, 0x3f800000, 0x3f7fffff],
  [0xb4400000, 0x3f7ffffe, 0x3f7ffffe],
  [0x3f7fffff, 0x3fffffff, 0x3fffffff],
  [0x3f7ffffe, 0x3fffffff, 0x3fffffff],
  [0xbf7fffff, 0x3f000000, 0x3f000000],
  [0xbf7ffffe, 0x3f000000, 0x3f000001],
  [0x3e800003, 0x3f9837f1, 0x3f9837f1],
  [0x3e800000, 0x3f9837f1, 0x3f9837f0],
  [0xbe800003, 0x3f5744fc, 0x3f5744fc],
  [0xbe800000, 0x3f5744fc, 0x3f5744fd],
];
// GB200 (sm_100) hardware outputs, spec §4: [printed x, hardware output].
const GB200: [number, number][] = [
  [-10.221991, 0x3a5b7d5c],
  [-12.691620, 0x391e8128],
  [-12.472450, 0x39388261],
  [-18.084177, 0x36717d95],
  [-8.411281, 0x3b408029],
];

const hex = (v: number) => `0x${v.toString(16)}`;

Deno.test("`mufuRcp()` and `ieeeRcp()` give the probe file's model and CR values", () => {
  for (const [x, model, cr] of RCP) {
    assert.equal(hex(mufuRcp(x, tables)), hex(model), hex(x));
    assert.equal(hex(ieeeRcp(x)), hex(cr), hex(x));
  }
});

Deno.test("`mufuRsqrt()` and `ieeeRsqrt()` give the probe file's model and CR values", () => {
  for (const [x, model, cr] of RSQ) {
    assert.equal(hex(mufuRsqrt(x, tables)), hex(model), hex(x));
    assert.equal(hex(ieeeRsqrt(x)), hex(cr), hex(x));
  }
});

Deno.test("`mufuEx2()` gives the H1 predictions and `ieeeEx2()` the CR values of the probes", () => {
  for (const [x, h1, cr] of EX2) {
    assert.equal(hex(mufuEx2(x, tables)), hex(h1), hex(x));
    assert.equal(hex(ieeeEx2(x)), hex(cr), hex(x));
  }
});

Deno.test("`mufuEx2()` matches every unambiguous GB200 hardware output", () => {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (const [printed, hw] of GB200) {
    f[0] = printed;
    const c = u[0] as number;
    const near: number[] = [];
    for (let k = c - 4; k <= c + 4; k++) {
      u[0] = k;
      if (Math.abs((f[0] as number) - printed) <= 5e-7) near.push(k);
    }
    assert.equal(near.length, 1, `${printed} should have one FP32 candidate`);
    assert.equal(hex(mufuEx2(near[0] as number, tables)), hex(hw), String(printed));
  }
});
