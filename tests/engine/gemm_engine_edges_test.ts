/**
 * The kernel's fast-path edges against the plain reference, bit for bit, for every bf16/fp16 ->
 * fp32 datapath of every GPU profile: block sums whose round-to-nearest conversion goes away from
 * zero (the narrow RZ correction), sums at the top of the i32 range (the narrow/wide split and the
 * H100-class f64 rounding), block exponents at the fast path's range limits F - 126 and 127
 * (accumulators near overflow, infinities, NaN, subnormals, zeros), exact cancellation, and walks
 * longer than one K cache block with ragged panels and untame rows.
 */
import assert from "node:assert/strict";
import type { Datapath, KWalkGemmOperands } from "../../src/hardware/mod.ts";
import {
  assertSameAsReference,
  loadEngine,
  loadProfiles,
  pattern,
  rng,
  sixteenBitFp32Datapaths,
} from "./_engine_fixture.ts";

const engine = await loadEngine();
const datapaths = await sixteenBitFp32Datapaths();

type Fmt = "bf16" | "fp16";
const BIAS = { bf16: 127, fp16: 15 };
const FB = { bf16: 7, fp16: 10 };

/** A pattern of sign * (1 + frac) * 2^e with a random fraction; e must be a normal exponent. */
function pow2ish(next: () => number, fmt: Fmt, e: number, sign = next() & 1): number {
  const field = Math.max(1, Math.min(2 * BIAS[fmt], e + BIAS[fmt]));
  return (sign << 15) | (field << FB[fmt]) | (next() & ((1 << FB[fmt]) - 1));
}

function assertSame(dp: Datapath, ops: KWalkGemmOperands, label: string): void {
  assertSameAsReference(engine, dp, ops, label);
}

/**
 * Blocks whose first product is in [1, 4) and whose other products are a few units of the block
 * grid 2^-F: sums of F + 1 to F + 3 bits, so that the fp32 conversion drops 1-3 low bits and
 * round-to-nearest often goes away from zero.
 */
function gridOps(dp: Datapath, seed: number): KWalkGemmOperands {
  const fmt = dp.input.name as Fmt;
  const next = rng(seed);
  const [m, n, k] = [3, 9, 2 * dp.k];
  // b of the small products: 2^(emin(fmt) + 1), so a sits at 2^(-F - that + r).
  const eb = fmt === "bf16" ? 0 : -12;
  const a = new Uint16Array(m * k).map((_, idx) =>
    idx % dp.blockSize === 0
      ? pow2ish(next, fmt, 0)
      : pow2ish(next, fmt, -dp.fracBits - eb + (next() % 8))
  );
  const b = new Uint16Array(n * k).map((_, idx) =>
    idx % dp.blockSize === 0 ? pow2ish(next, fmt, 0) : pow2ish(next, fmt, eb)
  );
  return { a, b, m, n, k };
}

/** Same-sign products with the largest significands at one exponent: sums near L * 2^(F+2). */
function topOps(dp: Datapath, seed: number, negative: boolean): KWalkGemmOperands {
  const fmt = dp.input.name as Fmt;
  const next = rng(seed);
  const [m, n, k] = [4, 10, 2 * dp.k];
  const maxSig = (1 << FB[fmt]) - 1 - (next() % 2);
  const big = (s: number) => (s << 15) | (BIAS[fmt] << FB[fmt]) | maxSig;
  const a = new Uint16Array(m * k).map(() => big(negative ? 1 : 0));
  const b = new Uint16Array(n * k).map(() => next() % 5 === 0 ? big(0) & 0xff80 : big(0));
  // Accumulators of the same sign just below 2^(E+1) = 2^1 (their top equals E = 0).
  const init = new Uint32Array(m * n).map(() =>
    (negative ? 0xbfffff00 : 0x3fffff00) | (next() & 0xff)
  );
  return { a, b, m, n, k, init };
}

/**
 * Blocks whose exponent sums sit at F - 128 .. F - 124, one value per column of B (bf16 only;
 * fp16 sums never get that low), against zero, subnormal and smallest-normal accumulators.
 */
function thresholdOps(dp: Datapath, seed: number): KWalkGemmOperands {
  const next = rng(seed);
  const [m, n, k] = [5, 10, 2 * dp.k];
  const lo = dp.fracBits - 126;
  const a = new Uint16Array(m * k).map(() => pow2ish(next, "bf16", -51));
  const b = new Uint16Array(n * k).map((_, idx) =>
    pow2ish(next, "bf16", lo + 51 - 2 + (Math.floor(idx / k) % 5))
  );
  const specials = [0, 0x80000000, 0x00000001, 0x807fffff, 0x00800000];
  const init = new Uint32Array(m * n).map(() => specials[next() % specials.length] as number);
  return { a, b, m, n, k, init };
}

/** Accumulators at the top of the range and non-finite: E = 127 (kept) and 128 (exact path). */
function hugeAccumulatorOps(dp: Datapath, seed: number): KWalkGemmOperands {
  const fmt = dp.input.name as Fmt;
  const next = rng(seed);
  const [m, n, k] = [3, 12, dp.k];
  const a = new Uint16Array(m * k).map(() => pattern(next, fmt, BIAS[fmt] - 2, BIAS[fmt] + 2));
  const b = new Uint16Array(n * k).map(() => pattern(next, fmt, BIAS[fmt] - 2, BIAS[fmt] + 2));
  const accs = [0x7f7fffff, 0xff7fffff, 0x7f000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f7fff00];
  const init = new Uint32Array(m * n).map(() => accs[next() % accs.length] as number);
  return { a, b, m, n, k, init };
}

/** Products that cancel exactly, alone and against the accumulator: +0 results. */
function cancelOps(dp: Datapath, seed: number): KWalkGemmOperands {
  const fmt = dp.input.name as Fmt;
  const next = rng(seed);
  const [m, n, k] = [2, 9, dp.k];
  const one = BIAS[fmt] << FB[fmt];
  const a = new Uint16Array(m * k).map(() => pow2ish(next, fmt, (next() % 5) - 2, 0));
  // Column pairs of +-1: k and k + 1 see x*1 and x*(-1) when a repeats in pairs.
  for (let i = 0; i < m * k; i += 2) a[i + 1] = a[i] as number;
  const b = new Uint16Array(n * k).map((_, idx) => idx % 2 === 0 ? one : one | 0x8000);
  const init = new Uint32Array(m * n).map((_, idx) => idx % 3 === 0 ? 0x80000000 : 0);
  return { a, b, m, n, k, init };
}

for (const [label, dp] of datapaths) {
  Deno.test(`GemmEngine.kWalk() matches kWalkReference() at the fast path's edges on ${label}`, () => {
    for (let s = 1; s <= 4; s++) assertSame(dp, gridOps(dp, s), "grid sums");
    assertSame(dp, topOps(dp, 5, false), "top of the range, positive");
    assertSame(dp, topOps(dp, 6, true), "top of the range, negative");
    if (dp.input.name === "bf16") {
      for (let s = 7; s <= 9; s++) assertSame(dp, thresholdOps(dp, s), "E at F - 126");
    }
    assertSame(dp, hugeAccumulatorOps(dp, 10), "huge and non-finite accumulators");
    assertSame(dp, cancelOps(dp, 11), "exact cancellation");
    const c = engine.kWalk(dp, cancelOps(dp, 12));
    assert.ok(c.every((v) => v === 0), "exact cancellation gives +0");
  });
}

/** One datapath per distinct kernel parameter set (format, L, F, floor). */
const distinct = [
  ...new Map(
    datapaths.map((
      [l, dp],
    ) => [`${dp.input.name} ${dp.blockSize} ${dp.fracBits} ${dp.alignFloor}`, [l, dp] as const]),
  ).values(),
];

for (const [label, dp] of distinct) {
  Deno.test(`GemmEngine.kWalk() matches kWalkReference() over several K cache blocks on ${label}`, () => {
    const fmt = dp.input.name as Fmt;
    const next = rng(13);
    const [m, n, k] = [5, 13, 65 * dp.k]; // 1040: two cache blocks of 512 and a part
    const a = new Uint16Array(m * k).map((_, idx) => {
      const kk = idx % k;
      if (kk >= 600 && kk < 640) return 0; // an all-zero stretch: exact-path blocks mid-walk
      return pattern(next, fmt, BIAS[fmt] - 6, BIAS[fmt] + 5);
    });
    a[3 * k + 700] = fmt === "bf16" ? 0x7f80 : 0x7c00; // row 3 untame (infinity)
    const b = new Uint16Array(n * k).map(() => pattern(next, fmt, BIAS[fmt] - 6, BIAS[fmt] + 5));
    const init = new Uint32Array(m * n).map(() => next() & 0xbfffffff);
    assertSame(dp, { a, b, m, n, k, init }, "long K");
  });
}

for (const [label, dp] of distinct) {
  Deno.test(`GemmEngine.kWalk() matches kWalkReference() on all-zero row blocks over zero accumulators on ${label}`, () => {
    // FA2's P·V on a causal diagonal tile: row r of P is zero past its limit, O starts at zero.
    // Whole blocks of a row are then zero, which the kernel decides without the scalar path
    // when the lane's accumulator is +-0 (result +0, also for -0); other accumulators there
    // (tiny, subnormal, NaN, infinity, ordinary) still go through the exact lane fix.
    const fmt = dp.input.name as Fmt;
    const next = rng(29);
    const [m, n, k] = [7, 13, 6 * dp.k];
    const a = new Uint16Array(m * k).map((_, idx) => {
      const [r, kk] = [Math.floor(idx / k), idx % k];
      if (kk >= (r + 1) * Math.floor(k / m) || (r === 5 && kk % dp.blockSize === 0)) return 0;
      return pattern(next, fmt, BIAS[fmt] - 6, BIAS[fmt] + 5);
    });
    for (let kk = 0; kk < k; kk++) a[6 * k + kk] = next() & 1 ? 0x8000 : 0; // a row of +-0 only
    const b = new Uint16Array(n * k).map(() => pattern(next, fmt, BIAS[fmt] - 6, BIAS[fmt] + 5));
    const accs = [0, 0x80000000, 0x00000001, 0x80400000, 0x09000000, 0x7fc00000, 0xff800000];
    for (
      const init of [
        new Uint32Array(m * n), // all +0
        new Uint32Array(m * n).fill(0x80000000), // all -0: the result of a zero block is +0
        new Uint32Array(m * n).map(() => accs[next() % accs.length]!),
        new Uint32Array(m * n).map(() => (next() & 3) === 0 ? 0x3f800000 : accs[next() & 1]!),
      ]
    ) {
      assertSame(dp, { a, b, m, n, k, init }, "zero row blocks");
    }
  });
}

for (const [label, dp] of distinct) {
  Deno.test(`GemmEngine.kWalk() matches kWalkReference() with alignment floors at and past the exponent bytes' range on ${label}`, () => {
    // The kernel starts its byte-lane block maximum at the floor + 127, clamped to [0, 255]:
    // floors below -127 and above 128 are clamped, those between are exact. Operands from tiny
    // to huge, accumulators from zero to near overflow.
    const fmt = dp.input.name as Fmt;
    const lo = fmt === "bf16" ? -60 : -14;
    const hi = fmt === "bf16" ? 60 : 14;
    for (const floor of [-200, -128, -127, -126, -20, 0, 100, 126, 127, 128, 129, 300]) {
      const next = rng(1000 + floor);
      const [m, n, k] = [3, 9, 4 * dp.k];
      const a = new Uint16Array(m * k).map(() => pow2ish(next, fmt, lo + (next() % (hi - lo))));
      const b = new Uint16Array(n * k).map(() => pow2ish(next, fmt, lo + (next() % (hi - lo))));
      const init = new Uint32Array(m * n).map(() => next() & 0x7f7fffff | (next() & 0x80000000));
      const at = { ...dp, alignFloor: floor };
      assertSame(at, { a, b, m, n, k, init }, `floor ${floor}`);
      assertSame(at, { a: new Uint16Array(m * k), b, m, n, k, init }, `floor ${floor}, zero A`);
    }
  });
}

Deno.test("GemmEngine.kWalk() matches kWalkReference() where a block sum plus the accumulator crosses 2^128 on a100/mma-bf16-fp32", async () => {
  // The narrow (i32) path takes a block only while its exponent sums stay below F + 97 (the
  // fast path's ceiling); past it the exact path decides. Here one block's sum sits just below
  // 2^128 and the accumulator tips it over: 8 products (255/128 * 2^62) * (255/128 * 2^61) =
  // 1.984405517578125 * 2^127, plus (2^23 + 63) * 2^98 ~ 2^121, exceed 2^128 (by 2^112), so the
  // walk overflows where a ceiling two exponents higher leaves it at the largest finite value.
  const a100 = (await loadProfiles()).find((p) => p.id === "a100");
  const dp = a100?.tensorCore.datapaths.find((d) => d.id === "mma-bf16-fp32");
  assert.ok(dp, "a100/mma-bf16-fp32 is in the committed profiles");
  const [m, n, k] = [1, 1, 16];
  const a = new Uint16Array(k).map((_, i) => i < 8 ? 0x5eff : 0);
  const b = new Uint16Array(k).map((_, i) => i < 8 ? 0x5e7f : 0);
  const init = new Uint32Array([((122 + 127) << 23 | 63) >>> 0]);
  assertSame(dp, { a, b, m, n, k, init }, "block sum over 2^128 with the accumulator");
});
