/**
 * Differential fuzz of the wasm FA2 softmax against the TypeScript models: whole tiles of the
 * online softmax (`fa2TileSoftmax` against `_fa2TileSoftmax`) for all 16 combinations of the four
 * build choices, on the table-model SFU and on the `ieee` SFU with FTZ off and on, with scores placed so that exp2 arguments land on -126, -127, -149, -150, 0 and
 * 128 and around them, NaNs, infinities, subnormal and random patterns, scales from the smallest
 * subnormal to specials, masks before, inside and past the tile, and row states (O, lane sums,
 * maxima) set to specials between tiles, later tiles with and without Check_inf (a row max of
 * -inf taken as 0 in the rescale, or not: NaN); and the instruction models one call at a time (FFMA,
 * FMUL, FADD with results at the FTZ boundary 2^-126, ex2.approx.f32 and MUFU.EX2 at the ends of
 * their ranges). Fixed seed; `BITAUDIT_FUZZ_SCALE` multiplies the cases; a failure names the seed
 * and the case index.
 */
import { addF32, createSfu, fmaF32, mulF32, sfuDescription } from "../../src/hardware/mod.ts";
import { instantiateKernel } from "../../src/engine/wasm_kernel.ts";
import { fa2SoftmaxFlags } from "../../src/engine/fa2_tile_softmax.ts";
import { ex2ApproxF32, FA2_DAO_FASTMATH, type Fa2Build } from "../../src/kernels/mod.ts";
import { _fa2Arith } from "../../src/kernels/attention/_fa2_arith.ts";
import { _laneColumns, _newRowState } from "../../src/kernels/attention/_fa2_softmax_step.ts";
import { _fa2TileSoftmax } from "../../src/kernels/attention/_fa2_tile_softmax.ts";
import { bitsFromF32, f32FromBits } from "../../src/numerics/mod.ts";
import { ENGINE, TESLA } from "../kernels/attention/_fa2_fixture.ts";
import { SPECIAL_F32 } from "../_f32_specials.ts";
import { Draw, firstDiff, fp32At, hex, Tally } from "./_differential_fuzz.ts";
import { fuzzRuns } from "../hostile/_fuzz.ts";

/** Fixed seed of every test in this file. */
const SEED = 1130;

/** The `ieee` SFU, FTZ off and on. */
const IEEE = [createSfu({ mode: "ieee" }), createSfu({ mode: "ieee", ftz: true })] as const;

/** The 16 builds: flag bits 1 FTZ, 2 FFMA argument, 4 bare MUFU.EX2, 8 FFMA row-sum rescale. */
const BUILDS: readonly Fa2Build[] = Array.from({ length: 16 }, (_, flags) => ({
  ...FA2_DAO_FASTMATH,
  ftz: (flags & 1) !== 0,
  exp2Argument: (flags & 2) !== 0 ? "ffma" : "fmul-fadd",
  exp2: (flags & 4) !== 0 ? "mufu-ftz" : "ex2-approx",
  rowSumRescale: (flags & 8) !== 0 ? "ffma" : "fmul-fadd",
}));

/** exp2 arguments at the ends of the ranges of ex2.approx, MUFU.EX2 and FTZ. */
const ARGUMENTS = [
  -126,
  -126.5,
  -127,
  -125.9999,
  -128,
  -149,
  -150,
  -151,
  -200,
  -0.5,
  0,
  -1e-7,
  -24,
  -25,
  -63,
  -64,
  -65,
  127.9,
  128,
  -127.99999,
];

/** A score of the given kind, near the tile's maximum `top` (as a float) at scale `scale`. */
function score(r: Draw, kind: number, top: number, scale: number): number {
  if (kind === 0) return r.pick(SPECIAL_F32);
  if (kind === 1) return r.next();
  if (kind === 2) {
    // s = top + t / scale: the exp2 argument s·scale - top·scale lands near t.
    const jitter = r.chance(0.5) ? 0 : (r.next() / 2 ** 32 - 0.5) * 2 ** -r.int(0, 30);
    return bitsFromF32(top + (r.pick(ARGUMENTS) + jitter) / scale);
  }
  if (kind === 3) return fp32At(r, r.int(-149, 127));
  return bitsFromF32(top - (r.next() / 2 ** 32) * r.pick([1, 10, 100, 1000]) / scale);
}

/**
 * Sets a row's state between tiles the same way on both sides (as a P·V product and earlier
 * tiles might have left it): O, sometimes the lane sums; returns a new row maximum now and then.
 */
function perturb(
  r: Draw,
  o: readonly Uint32Array[],
  sums: readonly Uint32Array[],
): number | undefined {
  for (let j = 0; j < o[0]!.length; j++) {
    const v = r.chance(0.1)
      ? r.pick(SPECIAL_F32)
      : fp32At(r, r.chance(0.1) ? r.int(-149, -120) : r.int(-10, 20));
    for (const x of o) x[j] = v;
  }
  if (r.chance(0.1)) {
    for (let t = 0; t < 4; t++) {
      const v = r.chance(0.5) ? r.pick(SPECIAL_F32) : fp32At(r, r.int(-149, 127), 0);
      for (const x of sums) x[t] = v;
    }
  }
  return r.chance(0.05) ? r.pick(SPECIAL_F32) : undefined;
}

/**
 * Runs case `index` on the SFU given: a few tiles in a row on both sides; "" when every state and
 * P match.
 */
function tileCase(index: number, tally: Tally, sfu: typeof TESLA = TESLA): string {
  const r = new Draw(SEED, index);
  const build = BUILDS[index % BUILDS.length]!;
  const fast = ENGINE.fa2TileSoftmax(build, sfu)!;
  const arith = _fa2Arith(build, sfu);
  const blockN = r.pick([8, 16, 32, 64, 128]);
  const d = r.pick([4, 8, 64, 96, 128, 256]);
  const rows = r.int(1, 9);
  const scaleLog2 = r.chance(0.6)
    ? r.pick([0x3fb8aa3b, 0x3e3a0000, 0x3e4ccccd, 0x3d8aa3b0, 0x3f800000])
    : r.chance(0.5)
    ? fp32At(r, r.int(-149, 127), r.chance(0.9) ? 0 : 1)
    : r.pick(SPECIAL_F32);
  const scale = Math.abs(f32FromBits(scaleLog2)) || 1;
  const states = Array.from({ length: rows }, () => _newRowState(d));
  const rowMax = new Uint32Array(rows).fill(0xff800000);
  const sums = new Uint32Array(rows * 4);
  const o = new Uint32Array(rows * d);
  const kinds = r.pick([[2, 4], [0, 2, 3, 4], [4], [2], [0, 1, 2, 3, 4]]);
  const top = r.pick([0, 1, 10, -10, 100, 1e30, -1e30, 1e-30, 3.4e38]);
  const steps = r.int(1, 4);
  const label = `${sfu.mode} flags ${
    fa2SoftmaxFlags(build)
  } blockN ${blockN} d ${d} rows ${rows} scaleLog2 ${hex(scaleLog2, 8)}`;
  for (let step = 0; step < steps; step++) {
    const first = step === 0;
    // Later tiles with and without Check_inf (no draw: the cases' other choices stay as they were).
    const checkInf = (index + step) % 3 !== 0;
    const stepTop = top * (1 + step * 0.01 * r.int(-3, 3));
    const scores = Uint32Array.from(
      { length: rows * blockN },
      () => score(r, r.pick(kinds), stepTop, scale),
    );
    const limits = Int32Array.from(
      { length: rows },
      () =>
        r.chance(0.3)
          ? blockN
          : r.chance(0.3)
          ? r.pick([0, -1, 1, blockN - 1])
          : r.int(-3, blockN + 3),
    );
    if (!first) {
      for (let row = 0; row < rows; row++) {
        const s = states[row]!;
        const oRow = o.subarray(row * d, (row + 1) * d);
        const max = perturb(r, [s.o, oRow], [s.laneSums, sums.subarray(row * 4, row * 4 + 4)]);
        if (max !== undefined) [s.rowMax, rowMax[row]] = [max, max];
      }
    }
    const pbTs = new Uint16Array(rows * blockN);
    _fa2TileSoftmax(states, {
      scores,
      limits,
      blockN,
      lanes: _laneColumns(blockN),
      arith,
      scaleLog2,
      first,
      checkInf,
    }, pbTs);
    const pb = new Uint16Array(rows * blockN);
    fast({ rows, blockN, d, scores, limits, rowMax, sums, o, pb, first, checkInf, scaleLog2 });
    let diff = firstDiff("P", pbTs, pb, 4);
    for (let row = 0; row < rows && diff === ""; row++) {
      const s = states[row]!;
      diff = firstDiff(`row ${row} max`, [s.rowMax], [rowMax[row]!]) ||
        firstDiff(`row ${row} lane sums`, s.laneSums, sums.subarray(row * 4, row * 4 + 4)) ||
        firstDiff(`row ${row} O`, s.o, o.subarray(row * d, (row + 1) * d));
    }
    if (diff !== "") return `${label} step ${step}: ${diff}`;
    if (limits.some((l) => l <= 0)) tally.saw("masked row");
    if (!first && states.some((s) => s.rowMax === 0xff800000)) {
      tally.saw(checkInf ? "-inf max, Check_inf" : "-inf max, no Check_inf");
    }
    if (states.some((s) => s.o.some((v) => v !== 0 && (v & 0x7f800000) === 0))) {
      tally.saw("subnormal O");
    }
    if (states.some((s) => s.laneSums.some((v) => (v & 0x7fffffff) > 0x7f800000))) {
      tally.saw("NaN sum");
    }
  }
  tally.saw(`flags ${fa2SoftmaxFlags(build)}`);
  return "";
}

/** What the tile fuzz must have met: every build flag set and each special row. */
const TILE_CATEGORIES = [
  ...BUILDS.map((b) => `flags ${fa2SoftmaxFlags(b)}`),
  "masked row",
  "subnormal O",
  "NaN sum",
  "-inf max, Check_inf",
  "-inf max, no Check_inf",
];

Deno.test("GemmEngine.fa2TileSoftmax() equals _fa2TileSoftmax() on fuzzed tiles for all 16 build flag sets", () => {
  const tally = new Tally("fa2TileSoftmax() vs _fa2TileSoftmax()", SEED);
  for (const build of BUILDS) {
    // Each combination must take the wasm path (a build it refuses would test nothing).
    if (ENGINE.fa2TileSoftmax(build, TESLA) === undefined) {
      throw new Error(`no wasm softmax for ${fa2SoftmaxFlags(build)}`);
    }
  }
  const count = fuzzRuns(6000);
  for (let i = 0; i < count; i++) {
    tally.check(`seed ${SEED} case ${i}`, tileCase(i, tally));
  }
  tally.assertClean(TILE_CATEGORIES, 10);
});

Deno.test("GemmEngine.fa2TileSoftmax() equals _fa2TileSoftmax() on fuzzed tiles for all 16 build flag sets on the ieee SFU, FTZ off and on", () => {
  const tally = new Tally("fa2TileSoftmax() vs _fa2TileSoftmax(), ieee SFU", SEED);
  for (const build of BUILDS) {
    for (const sfu of IEEE) {
      if (ENGINE.fa2TileSoftmax(build, sfu) === undefined) {
        throw new Error(`no wasm softmax for ${fa2SoftmaxFlags(build)} on the ieee SFU`);
      }
    }
  }
  const count = fuzzRuns(4000);
  for (let i = 0; i < count; i++) {
    // Each build flag set on both SFU flags: case i's build is i mod 16, its SFU (i / 16) mod 2.
    const sfu = IEEE[Math.floor(i / BUILDS.length) % 2]!;
    tally.check(`seed ${SEED} case ${i} ieee ftz ${sfu === IEEE[1]}`, tileCase(i, tally, sfu));
  }
  tally.assertClean(TILE_CATEGORIES, 10);
});

/** A random FP32 pattern with exponent field e + 127 (clamped to the finite range). */
function near(r: Draw, e: number): number {
  return ((r.next() & 0x80000000) | (Math.max(0, Math.min(254, e + 127)) << 23) |
    (r.next() & 0x7fffff)) >>> 0;
}

Deno.test("fa2Instructions: FFMA, FMUL, FADD at the FTZ boundary and ex2.approx, MUFU.EX2 at their range ends equal the TypeScript models", () => {
  const desc = sfuDescription(TESLA);
  if (desc?.mode !== "tesla-table") throw new Error("the fixture's SFU is the table model");
  const run = instantiateKernel(ENGINE.module).fa2Instructions(desc.tables.ex2);
  const tally = new Tally("fa2Instructions vs fmaF32/mulF32/addF32/ex2ApproxF32/MUFU.EX2", SEED);
  const count = fuzzRuns(400_000);
  for (let i = 0; i < count; i++) {
    const r = new Draw(SEED, i);
    // a·b near 2^(target) with target around -126, c near -a·b or at the boundary.
    const ea = r.int(-80, 79);
    const a = near(r, ea);
    const target = -126 + r.int(-3, 2);
    const b = r.chance(0.25)
      ? (r.next() & 0x807fffff) >>> 0
      : near(r, Math.max(-149, Math.min(127, target - ea + r.int(-1, 1))));
    const product = f32FromBits(a) * f32FromBits(b);
    const c = [
      () => bitsFromF32(-product),
      () => (r.next() & 0x807fffff) >>> 0,
      () => near(r, target),
      () => bitsFromF32(-product + 2 ** (target - 1) * (r.bit() ? 1 : -1)),
      () => r.pick([0, 0x80000000, 0x00800000, 0x80800000, 0x007fffff]),
    ][r.next() % 5]!();
    let diff = "";
    for (const ftz of [false, true]) {
      diff ||=
        firstDiff(`ffma ftz ${ftz}`, [fmaF32([a, b, c], { ftz })], [run("ffma", a, b, c, ftz)]) ||
        firstDiff(`fmul ftz ${ftz}`, [mulF32(a, b, { ftz })], [run("fmul", a, b, 0, ftz)]) ||
        firstDiff(`fadd ftz ${ftz}`, [addF32(a, c, { ftz })], [run("fadd", a, c, 0, ftz)]);
    }
    // ex2 arguments: ordinary, and within a few ULPs of 126, -126 and -128.
    const x = near(r, r.int(-10, 9) + (r.bit() ? 0 : 6));
    for (
      const y of [
        x,
        ((x & 0x80000000) | 0x42fc0000 | (r.next() & 0xffff)) >>> 0,
        0xc2fc0000 + r.int(0, 299),
        0xc3000000 - r.int(0, 299),
      ]
    ) {
      diff ||= firstDiff(`ex2.approx(${hex(y, 8)})`, [ex2ApproxF32(TESLA, y)], [
        run("ex2-approx", y, 0, 0, false),
      ]) ||
        firstDiff(`MUFU.EX2(${hex(y, 8)})`, [TESLA.ex2(y)], [run("ex2", y, 0, 0, false)]);
    }
    tally.check(`seed ${SEED} case ${i}: a ${hex(a, 8)} b ${hex(b, 8)} c ${hex(c, 8)}`, diff);
  }
  tally.assertClean();
});
