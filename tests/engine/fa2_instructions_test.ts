/**
 * The wasm FA2 softmax's instruction models against the TypeScript ones, one call at a time:
 * MUFU.EX2 (table model) and ex2.approx.f32 on every exponent field and sign with 4,096
 * mantissas each; the `ieee` SFU's MUFU.EX2 and ex2.approx.f32 the same way, FTZ off and on, and
 * on inputs whose float64 step is undecided (the kernel asks the host's `ieeeEx2`); FFMA, FMUL
 * and FADD, with and without FTZ, on adversarial and random operands and on FFMA cases whose exact
 * result lies 2^-54 from an FP32 midpoint.
 */
import assert from "node:assert/strict";
import { addF32, createSfu, fmaF32, mulF32, sfuDescription } from "../../src/hardware/mod.ts";
import { _roundExp2Fast } from "../../src/hardware/sfu/_round_exp2_fast.ts";
import { instantiateKernel } from "../../src/engine/wasm_kernel.ts";
import { ex2ApproxF32 } from "../../src/kernels/mod.ts";
import { bitsFromF32 } from "../../src/numerics/mod.ts";
import { ENGINE, TESLA } from "../kernels/attention/_fa2_fixture.ts";
import { SPECIAL_F32 } from "../_f32_specials.ts";

const desc = sfuDescription(TESLA);
if (desc?.mode !== "tesla-table") throw new Error("the fixture's SFU is the table model");
const run = instantiateKernel(ENGINE.module).fa2Instructions(desc.tables.ex2);

Deno.test("fa2Instructions: MUFU.EX2 and ex2.approx.f32 equal the TypeScript models on every exponent and sign", () => {
  for (const x of _everyExponentAndSign()) {
    const want = TESLA.ex2(x);
    const got = run("ex2", x, 0, 0, false);
    if (got !== want) {
      assert.fail(`MUFU.EX2(${x.toString(16)}): ${got.toString(16)}, want ${want.toString(16)}`);
    }
    const wantA = ex2ApproxF32(TESLA, x);
    const gotA = run("ex2-approx", x, 0, 0, false);
    if (gotA !== wantA) {
      assert.fail(
        `ex2.approx(${x.toString(16)}): ${gotA.toString(16)}, want ${wantA.toString(16)}`,
      );
    }
  }
});

/**
 * FP32 patterns of every exponent field and sign, 4,096 mantissas each: both ends and a spread
 * over the bits the table index and the squarer see.
 */
function* _everyExponentAndSign(): Generator<number> {
  for (let field = 0; field < 256; field++) {
    for (const sign of [0, 0x80000000]) {
      for (let m = 0; m < 4096; m++) {
        const mant = m < 4
          ? [0, 1, 0x7ffffe, 0x7fffff][m]!
          : (m * 2047 + (m >> 3) * 0x1ffff) & 0x7fffff;
        yield (sign | (field << 23) | mant) >>> 0;
      }
    }
  }
}

const IEEE = [createSfu({ mode: "ieee" }), createSfu({ mode: "ieee", ftz: true })] as const;

/** The ieee SFU's EX2 of `x` both ways in the kernel against `ieeeEx2`; "" when equal. */
function ieeeDiff(x: number): string {
  for (const ftz of [false, true]) {
    const sfu = IEEE[ftz ? 1 : 0];
    const cases: [string, number, number][] = [
      ["ieee-ex2", run("ieee-ex2", x, 0, 0, ftz), sfu.ex2(x)],
      ["ieee-ex2-approx", run("ieee-ex2-approx", x, 0, 0, ftz), ex2ApproxF32(sfu, x)],
    ];
    for (const [op, got, want] of cases) {
      if (got !== want) {
        return `${op}(${x.toString(16)}) ftz ${ftz}: ${got.toString(16)}, want ${
          want.toString(16)
        }`;
      }
    }
  }
  return "";
}

Deno.test("fa2Instructions: the ieee SFU's MUFU.EX2 and ex2.approx.f32 equal ieeeEx2 on every exponent and sign, FTZ off and on", () => {
  for (const x of _everyExponentAndSign()) {
    const diff = ieeeDiff(x);
    if (diff !== "") assert.fail(diff);
  }
});

/** Whether `ieeeEx2(x)` leaves its float64 step undecided (the split of ieee_ex2.ts). */
function undecided(x: number): boolean {
  const e = (x >>> 23) & 0xff;
  const negative = x >= 0x80000000;
  if (e < 102 || e > 134 || (e === 134 && !negative)) return false;
  const den = 150 - e;
  const sig = negative ? -((x & 0x7fffff) | 0x800000) : (x & 0x7fffff) | 0x800000;
  const n = Math.floor(sig / 2 ** den);
  const num = sig - n * 2 ** den;
  const k = Math.min(23, n + 149);
  return num !== 0 && k >= 0 && _roundExp2Fast(num / 2 ** den, k) === undefined;
}

Deno.test("fa2Instructions: the ieee SFU's MUFU.EX2 equals ieeeEx2 where its float64 step is undecided", () => {
  // Softmax arguments: every third pattern in [-64, -1), and every pattern in [-149, -126) (the
  // subnormal results). About 2^-21 of them are undecided.
  let found = 0;
  const ranges: [number, number, number][] = [[0xbf800000, 0xc2800000, 3], [
    0xc2fc0000,
    0xc3150000,
    1,
  ]];
  for (const [from, to, step] of ranges) {
    for (let x = from; x < to; x += step) {
      if (!undecided(x)) continue;
      found++;
      const diff = ieeeDiff(x);
      if (diff !== "") assert.fail(diff);
    }
  }
  assert.ok(found >= 4, `only ${found} undecided inputs found`);
});

Deno.test("fa2Instructions: FFMA, FMUL and FADD equal the FP32 unit's, with and without FTZ", () => {
  let s = 0x9e3779b9;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
  const operand = () => {
    const u = next() % 8;
    if (u === 0) return SPECIAL_F32[next() % SPECIAL_F32.length]!;
    if (u === 1) return next(); // any pattern
    if (u === 2) return next() & 0x807fffff; // subnormal or zero
    // Nearby magnitudes, so that sums cancel and round.
    return ((next() & 0x80000000) | ((120 + (next() % 16)) << 23) | (next() & 0x7fffff)) >>> 0;
  };
  for (let i = 0; i < 200_000; i++) {
    const [a, b, c] = [operand(), operand(), operand()];
    for (const ftz of [false, true]) {
      const cases: [string, number, number][] = [
        ["ffma", run("ffma", a, b, c, ftz), fmaF32([a, b, c], { ftz })],
        ["fmul", run("fmul", a, b, 0, ftz), mulF32(a, b, { ftz })],
        ["fadd", run("fadd", a, b, 0, ftz), addF32(a, b, { ftz })],
      ];
      for (const [op, got, want] of cases) {
        if (got !== want) {
          assert.fail(
            `${op}(${a.toString(16)}, ${b.toString(16)}, ${c.toString(16)}) ftz ${ftz}: ${
              got.toString(16)
            }, want ${want.toString(16)}`,
          );
        }
      }
    }
  }
  // a * b = 2^(e-24) (1 - 2^-30) exactly and c = -A with A in [2^e, 2^(e+1)): the exact sum is
  // 2^-54 relative past the midpoint under A, which rounding first to binary64 would miss.
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const value = (bits: number) => (u[0] = bits, f[0]!);
  let doubleRoundingWrong = 0;
  for (let j = 0; j < 20_000; j++) {
    const e = (next() % 200) - 100;
    const a = bitsFromF32(2 ** (e - 24) * (1 + 2 ** -15));
    const b = 0x3f7ffe00; // 1 - 2^-15
    const big = (((e + 127) << 23) | (next() & 0x7fffff) | (next() & 0x80000000)) >>> 0;
    const c = (big ^ 0x80000000) >>> 0;
    for (const ftz of [false, true]) {
      const want = fmaF32([a, b, c], { ftz });
      assert.equal(run("ffma", a, b, c, ftz), want, `${a.toString(16)} ${c.toString(16)}`);
    }
    // The cases are the intended ones: binary64 then binary32 gets some of them wrong.
    const naive = bitsFromF32(Math.fround(value(a) * value(b) + value(c)));
    if (naive !== fmaF32([a, b, c])) doubleRoundingWrong++;
  }
  assert.ok(doubleRoundingWrong > 1000, `${doubleRoundingWrong} cases where double rounding errs`);
});
