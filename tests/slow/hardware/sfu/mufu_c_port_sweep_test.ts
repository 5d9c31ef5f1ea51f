/**
 * Slow suite: the TS Tesla SFU model (src/hardware/sfu) against its independent C port in the
 * libdevice oracle (tools/libdevice_oracle/mufu.c, written from the spec, reading the same
 * digest-checked ROM asset). rcp and rsqrt: every mantissa at several exponents of both parities
 * and both signs (specials included) plus every 257th pattern; ex2: every 257th pattern (all 2^32
 * with `BITAUDIT_MATH_FULL=1`) plus specials. Also the non-FTZ `ex2.approx.f32` and
 * `rsqrt.approx.f32` expansions (src/kernels/math/mufu.ts) against their C mirrors.
 */
import assert from "node:assert/strict";
import { ieeeEx2 } from "../../../../src/hardware/sfu/ieee_ex2.ts";
import { ieeeRcp } from "../../../../src/hardware/sfu/ieee_rcp.ts";
import { ieeeRsqrt } from "../../../../src/hardware/sfu/ieee_rsqrt.ts";
import { ex2ApproxF32, rsqrtApproxF32 } from "../../../../src/kernels/math/mod.ts";
import { oracleRange, oracleRecords, sweep, type SweepResult } from "../../kernels/math/_oracle.ts";
import { fractionGridHistogram, mantissaHistogram } from "../../../hardware/sfu/_histogram.ts";
import { teslaSfu } from "../../../hardware/sfu/_tesla_sfu.ts";

const sfu = teslaSfu();
const FULL = Deno.env.get("BITAUDIT_MATH_FULL") === "1";
const STRIDED = { start: 0, count: Math.ceil(2 ** 32 / 257), stride: 257 };
const ALL = FULL ? { start: 0, count: 2 ** 32, stride: 1 } : STRIDED;
const MANTISSAS = 2 ** 23;

/** What a sweep without differences reports. */
const NONE = { mismatches: 0, first: [] };

function clean(r: SweepResult) {
  return { mismatches: r.mismatches, first: r.first };
}

/** Every mantissa of each listed (sign, biased exponent). */
async function binades(name: string, fn: (x: number) => number, exps: number[], signs = [0, 1]) {
  let count = 0, mismatches = 0;
  const first: [number, number, number][] = [];
  for (const sign of signs) {
    for (const e of exps) {
      const start = ((sign << 31) | (e << 23)) >>> 0;
      const r = await sweep(name, fn, { start, count: MANTISSAS, stride: 1 });
      count += r.count;
      mismatches += r.mismatches;
      first.push(...r.first.slice(0, 10 - first.length));
    }
  }
  return { count, mismatches, first };
}

Deno.test("`sfu.rcp()` equals the C port on every mantissa of 10 exponents, both signs", async () => {
  const r = await binades("mufu_rcp", sfu.rcp, [0, 1, 2, 126, 127, 128, 252, 253, 254, 255]);
  assert.equal(r.count, 20 * MANTISSAS);
  assert.deepEqual(clean(r), NONE);
  assert.deepEqual(clean(await sweep("mufu_rcp", sfu.rcp, STRIDED)), NONE);
});

Deno.test("`sfu.rsqrt()` equals the C port on every mantissa of both parities and signs", async () => {
  const r = await binades("mufu_rsqrt", sfu.rsqrt, [0, 1, 2, 127, 128, 200, 253, 254, 255]);
  assert.deepEqual(clean(r), NONE);
  assert.deepEqual(clean(await sweep("mufu_rsqrt", sfu.rsqrt, STRIDED)), NONE);
});

Deno.test(`\`sfu.ex2()\` equals the C port on ${ALL.count} patterns and the binades near 0 and 128`, async () => {
  assert.deepEqual(clean(await sweep("mufu_ex2", sfu.ex2, ALL)), NONE);
  // |x| < 2^-23 .. 2 (truncation of the 7.23 input, one's complement) and [64, 256) (saturation).
  const r = await binades("mufu_ex2", sfu.ex2, [0, 103, 104, 126, 127, 133, 134, 255]);
  assert.deepEqual(clean(r), NONE);
});

Deno.test("`ex2ApproxF32()` and `rsqrtApproxF32()` equal the oracle's non-FTZ forms", async () => {
  const ex2 = (x: number) => ex2ApproxF32(sfu, x);
  const rsq = (x: number) => rsqrtApproxF32(sfu, x);
  assert.deepEqual(clean(await sweep("ex2_approx", ex2, STRIDED)), NONE);
  assert.deepEqual(clean(await sweep("rsqrt_approx", rsq, STRIDED)), NONE);
  // Below -126 (the squared branch), and subnormal inputs of rsqrt (the 2^24 scaling).
  const e = await binades("ex2_approx", ex2, [133, 134], [1]);
  const s = await binades("rsqrt_approx", rsq, [0, 1]);
  assert.deepEqual([clean(e), clean(s)], [NONE, NONE]);
  const specials = new Uint32Array([0xc2fc0000, 0xc2fbffff, 0xc2fc0001, 0xc3160000, 0xff800000]);
  const got = await oracleRecords("ex2_approx", specials);
  assert.deepEqual([...got], [...specials].map(ex2));
});

/** The oracle's outputs on `base | m` for every mantissa m, as a function of x. */
function binadeLookup(fn: string, base: number): (x: number) => number {
  const out = oracleRange(fn, { start: base, count: MANTISSAS, stride: 1 });
  return (x) => out[(x - base) & 0x7fffff] as number;
}

Deno.test("the C port reproduces the spec's full-domain error histograms (sfu_tesla_model.md)", async () => {
  // Reference: the correctly rounded `ieee` mode (BigInt-checked in tests/hardware/sfu); model: C.
  const rcp = { model: binadeLookup("mufu_rcp", 0x3f800000), reference: ieeeRcp, stride: 1 };
  assert.deepEqual(mantissaHistogram(0x3f800000, rcp), {
    "0": 7280086,
    "-1": 374723,
    "1": 733799,
  });
  const even = { model: binadeLookup("mufu_rsqrt", 0x3f800000), reference: ieeeRsqrt, stride: 1 };
  const odd = { model: binadeLookup("mufu_rsqrt", 0x40000000), reference: ieeeRsqrt, stride: 1 };
  assert.deepEqual(mantissaHistogram(0x3f800000, even), {
    "0": 6505163,
    "-1": 1265297,
    "1": 618140,
    "-2": 8,
  });
  assert.deepEqual(mantissaHistogram(0x40000000, odd), {
    "0": 6637923,
    "-1": 1079094,
    "1": 671591,
  });
  // EX2 on x = +-i/2^23 (section 3): the inputs are not one binade, so ask the oracle per input.
  for (const negative of [false, true]) {
    const xs = new Float32Array(MANTISSAS);
    for (let i = 0; i < MANTISSAS; i++) xs[i] = (negative ? -i : i) / MANTISSAS; // exact
    const bits = new Uint32Array(xs.buffer);
    const out = await oracleRecords("mufu_ex2", bits);
    const index = new Map<number, number>();
    const model = (x: number) => out[index.get(x)!] as number;
    bits.forEach((x, i) => index.set(x, i));
    const h = fractionGridHistogram(negative, { model, reference: ieeeEx2, stride: 1 });
    assert.deepEqual(
      h,
      negative
        ? { "0": 3342935, "-1": 4959061, "-2": 86537, "1": 75 }
        : { "0": 5125875, "-1": 3093, "1": 3259640 },
    );
  }
});
