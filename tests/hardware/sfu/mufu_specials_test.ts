import assert from "node:assert/strict";
import { decodeSfuTables } from "../../../src/hardware/sfu/mod.ts";
import { mufuEx2, mufuEx2Batch } from "../../../src/hardware/sfu/mufu_ex2.ts";
import { mufuRcp, mufuRcpBatch } from "../../../src/hardware/sfu/mufu_rcp.ts";
import { mufuRsqrt, mufuRsqrtBatch } from "../../../src/hardware/sfu/mufu_rsqrt.ts";
import { PRE_EX2_INF, PRE_EX2_NAN, preEx2 } from "../../../src/hardware/sfu/pre_ex2.ts";
import { readTeslaTableBytes } from "./_fp32_reference.ts";

const t = decodeSfuTables(readTeslaTableBytes());
const hex = (v: number) => `0x${v.toString(16)}`;

function check(fn: (x: number) => number, cases: [number, number][]): void {
  for (const [x, want] of cases) assert.equal(hex(fn(x)), hex(want), `input ${hex(x)}`);
}

Deno.test("`mufuRcp()` follows the envytools special-value rules when given specials", () => {
  check((x) => mufuRcp(x, t), [
    [0x00000000, 0x7f800000], // 1/+0 = +Inf
    [0x80000000, 0xff800000], // 1/-0 = -Inf
    [0x00000001, 0x7f800000], // subnormal input flushes to 0
    [0x807fffff, 0xff800000],
    [0x7f800000, 0x00000000], // 1/Inf = 0, sign kept
    [0xff800000, 0x80000000],
    [0x7fc00000, 0x7fffffff], // NaN -> 0x7fffffff
    [0xffc00001, 0x7fffffff],
    [0x3f800000, 0x3f800000], // 1
    [0xc0000000, 0xbf000000], // -2 -> -0.5
    [0x7e800000, 0x00800000], // 2^126 -> 2^-126 through the carry
    [0x7e800001, 0x00000000], // just below 2^-126 flushes
    [0xff000000, 0x80000000], // -2^127 -> -2^-127 flushes to -0
  ]);
});

Deno.test("`mufuRsqrt()` follows the envytools special-value rules when given specials", () => {
  check((x) => mufuRsqrt(x, t), [
    [0x00000000, 0x7f800000],
    [0x80000000, 0xff800000],
    [0x00400000, 0x7f800000], // subnormal flushes to +0 -> +Inf
    [0x80400000, 0xff800000],
    [0xbf800000, 0x7fffffff], // negative -> NaN
    [0xff800000, 0x7fffffff],
    [0x7f800000, 0x00000000],
    [0x7f800001, 0x7fffffff],
    [0x3f800000, 0x3f800000], // powers of 4 are exact
    [0x40800000, 0x3f000000],
    [0x00800000, 0x5f000000], // 2^-126 -> 2^63
    [0x7e800000, 0x20000000], // 2^126 -> 2^-63
  ]);
});

Deno.test("`mufuEx2()` follows the RRO/EX2 special-value rules when given specials", () => {
  check((x) => mufuEx2(x, t), [
    [0x7fc00000, 0x7fffffff],
    [0x7f800000, 0x7f800000],
    [0xff800000, 0x00000000],
    [0x43000000, 0x7f800000], // 128 saturates to +Inf
    [0xc3000000, 0x00000000], // -128 -> 0
    [0x00000000, 0x3f800000],
    [0x80000000, 0x3f800000],
    [0x807fffff, 0x3f800000], // subnormal -> 1
    [0x3f800000, 0x40000000],
    [0x42fe0000, 0x7f000000], // 2^127
    [0xc2fc0000, 0x00800000], // 2^-126
    [0xc2fe0000, 0x00000000], // 2^-127 flushes
    // Results in [2^-127, 2^-126) flush to +0 too (spec sfu_tesla_model.md §1: "Results below
    // 2^-126 flush to 0"): -126.5 and -126.9 give 2^-127 · g(~f), g(~f) in [1, 2).
    [0xc2fd0000, 0x00000000], // -126.5
    [0xc2fdcccd, 0x00000000], // -126.9
  ]);
  // The largest finite input below 128 stays finite or saturates to +Inf, never NaN.
  assert.ok(mufuEx2(0x42ffffff, t) <= 0x7f800000);
});

Deno.test("`preEx2()` truncates to 7.23 and codes Inf and NaN", () => {
  assert.equal(preEx2(0x3f800000), 0x00800000);
  assert.equal(preEx2(0x33ffffff), 0); // below 2^-23 truncates to zero
  assert.equal(preEx2(0xb4400000), 0x80000001);
  assert.equal(preEx2(0x42ffffff), 0x3fffffc0);
  assert.equal(preEx2(0x43000000), PRE_EX2_INF);
  assert.equal(preEx2(0xff800000), (0x80000000 | PRE_EX2_INF) >>> 0);
  assert.equal(preEx2(0x7fc00000), PRE_EX2_NAN);
  assert.equal(preEx2(0x3f7fffff), preEx2(0x3f7ffffe));
});

Deno.test("`mufuRcpBatch()`, `mufuRsqrtBatch()` and `mufuEx2Batch()` equal the scalar forms", () => {
  const xs = new Uint32Array(4096);
  let s = 0x9e3779b9;
  for (let i = 0; i < xs.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    xs[i] = s;
  }
  const pairs: [(x: Uint32Array) => Uint32Array, (x: number) => number][] = [
    [(v) => mufuRcpBatch(v, t), (x) => mufuRcp(x, t)],
    [(v) => mufuRsqrtBatch(v, t), (x) => mufuRsqrt(x, t)],
    [(v) => mufuEx2Batch(v, t), (x) => mufuEx2(x, t)],
  ];
  for (const [batch, scalar] of pairs) {
    const out = batch(xs);
    xs.forEach((x, i) => assert.equal(out[i], scalar(x)));
  }
});
