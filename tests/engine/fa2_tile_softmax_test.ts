/**
 * The kernel's FA2 tile softmax against the TypeScript step, bit for bit: adversarial tiles
 * (NaN with payloads, infinities, zeros of both signs, subnormals, huge scores, exp2 arguments
 * below -126, masked and partly masked rows), three tiles in a row, both builds; and whole FA2
 * launches with and without it, on the table-model SFU and on the `ieee` SFU (FTZ off and on).
 */
import assert from "node:assert/strict";
import { createSfu } from "../../src/hardware/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  type Fa2Build,
  flashAttentionForward,
} from "../../src/kernels/mod.ts";
import { _fa2Arith } from "../../src/kernels/attention/_fa2_arith.ts";
import { _laneColumns, _newRowState } from "../../src/kernels/attention/_fa2_softmax_step.ts";
import { _fa2TileSoftmax } from "../../src/kernels/attention/_fa2_tile_softmax.ts";
import { fa2SoftmaxFlags } from "../../src/engine/fa2_tile_softmax.ts";
import { bitsFromF32 } from "../../src/numerics/mod.ts";
import { ENGINE, fa2Options, profile, qkv, TESLA } from "../kernels/attention/_fa2_fixture.ts";
import { SPECIAL_F32 } from "../_f32_specials.ts";

/** Deterministic 32-bit generator. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return s >>> 0;
  };
}

const SPECIAL = SPECIAL_F32;

/** A score: mostly ordinary values around a row's scale, some specials and extremes. */
function score(next: () => number, scale: number): number {
  const u = next() % 100;
  if (u < 6) return SPECIAL[next() % SPECIAL.length]!;
  if (u < 10) return next(); // any pattern
  const v = ((next() / 2 ** 32) - 0.5) * scale;
  return bitsFromF32(v);
}

/**
 * Runs the kernel's tile softmax and the TypeScript step on adversarial tiles of each width and
 * head dimension, three tiles in a row, both builds, and asserts equal bits.
 */
function assertAdversarialTiles(
  blockNs: readonly number[],
  ds: readonly number[],
  builds: readonly Fa2Build[] = [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED],
): void {
  for (const build of builds) {
    const fast = ENGINE.fa2TileSoftmax(build, TESLA);
    assert.ok(fast !== undefined, build.id);
    const arith = _fa2Arith(build, TESLA);
    for (const blockN of blockNs) {
      for (const d of ds) {
        for (let trial = 0; trial < 12; trial++) {
          const next = rng(
            blockN * 1000 + trial * 7 + build.id.length + (d === 16 ? 0 : d << 20) +
              (fa2SoftmaxFlags(build)! << 24),
          );
          const rows = 1 + (next() % 9);
          const states = Array.from({ length: rows }, () => _newRowState(d));
          const rowMax = new Uint32Array(rows).fill(0xff800000);
          const sums = new Uint32Array(rows * 4);
          const o = new Uint32Array(rows * d);
          // Scales from tiny to huge, so that exp2 arguments fall below -126 and overflow too.
          const scales = Array.from({ length: rows }, () => 2 ** ((next() % 300) - 150));
          const scaleLog2 = [0x3fb8aa3b, 0x3e3a0000, 0x4f000000, 0x00000010][trial % 4]!;
          for (let step = 0; step < 3; step++) {
            const scores = new Uint32Array(rows * blockN);
            for (let r = 0; r < rows; r++) {
              for (let c = 0; c < blockN; c++) scores[r * blockN + c] = score(next, scales[r]!);
            }
            const limits = Int32Array.from(
              { length: rows },
              () => (next() % (blockN + 8)) - 4,
            );
            // Between tiles, O as a P·V product left it (ordinary values and specials).
            if (step > 0) {
              for (let r = 0; r < rows; r++) {
                for (let j = 0; j < d; j++) {
                  const v = next() % 10 === 0 ? SPECIAL[next() % SPECIAL.length]! : score(next, 8);
                  states[r]!.o[j] = v;
                  o[r * d + j] = v;
                }
              }
            }
            // Later tiles with and without Check_inf (rows whose every column is masked keep a
            // -inf max: 0 with it, NaN without).
            const checkInf = (trial + step) % 2 === 0;
            const label = `${build.id} flags ${
              fa2SoftmaxFlags(build)
            } blockN ${blockN} d ${d} trial ${trial} step ${step}`;
            _assertStepAgrees(fast, { arith, states, rowMax, sums, o, d }, {
              scores,
              limits,
              blockN,
              scaleLog2,
              first: step === 0,
              checkInf,
            }, label);
          }
        }
      }
    }
  }
}

Deno.test("GemmEngine.fa2TileSoftmax() equals the TypeScript tile step on adversarial tiles, both builds", () => {
  assertAdversarialTiles([8, 64, 128], [16]);
});

Deno.test("GemmEngine.fa2TileSoftmax() equals the TypeScript tile step at the tile widths and head dims of hdim 64, 96, 256 launches", () => {
  // Split kernel tiles of 256 (hdim 64) and 64 keys (hdim 256), standard 128 x 128 (hdim 64);
  // O rows of 64, 96 and 256 entries.
  assertAdversarialTiles([32, 64, 128, 256], [64, 96, 256]);
});

Deno.test("GemmEngine.fa2TileSoftmax() equals the TypeScript tile step for every combination of the four build choices", () => {
  // The kernel runs its own copies for the two builds' flag sets and a general copy for the rest.
  const builds: Fa2Build[] = [];
  for (let flags = 0; flags < 16; flags++) {
    builds.push({
      ...FA2_DAO_FASTMATH,
      ftz: (flags & 1) !== 0,
      exp2Argument: (flags & 2) !== 0 ? "ffma" : "fmul-fadd",
      exp2: (flags & 4) !== 0 ? "mufu-ftz" : "ex2-approx",
      rowSumRescale: (flags & 8) !== 0 ? "ffma" : "fmul-fadd",
    });
    assert.equal(fa2SoftmaxFlags(builds[flags]!), flags);
  }
  assertAdversarialTiles([8, 64], [16], builds);
});

Deno.test("GemmEngine.fa2TileSoftmax() is offered only for the table-model and ieee SFUs and known build choices", () => {
  const ieee = createSfu({ mode: "ieee" });
  assert.equal(typeof ENGINE.fa2TileSoftmax(FA2_DAO_FASTMATH, ieee), "function");
  assert.equal(ENGINE.fa2TileSoftmax(FA2_DAO_FASTMATH, { ...ieee }), undefined); // a copy
  assert.equal(ENGINE.fa2TileSoftmax(FA2_DAO_FASTMATH, { ...TESLA }), undefined); // a copy
  const odd = { ...FA2_DAO_FASTMATH, exp2: "something-else" } as unknown as typeof FA2_DAO_FASTMATH;
  assert.equal(fa2SoftmaxFlags(odd), undefined);
  assert.equal(ENGINE.fa2TileSoftmax(odd, TESLA), undefined);
});

Deno.test("GemmEngine.fa2TileSoftmax() refuses a head dimension that is not a multiple of 4 (its O rescale runs four lanes at a time and would reach into the next row)", () => {
  const fast = ENGINE.fa2TileSoftmax(FA2_DAO_FASTMATH, TESLA)!;
  const tile = (d: number) => ({
    rows: 2,
    blockN: 8,
    d,
    scores: new Uint32Array(16),
    limits: Int32Array.of(8, 8),
    rowMax: new Uint32Array(2),
    sums: new Uint32Array(8),
    o: new Uint32Array(2 * d).fill(0x3f800000),
    pb: new Uint16Array(16),
    first: false,
    checkInf: true,
    scaleLog2: 0x3f800000,
  });
  for (const d of [1, 5, 6, 7, 130]) {
    assert.throws(() => fast(tile(d)), RangeError, `d ${d}`);
  }
  fast(tile(8));
});

Deno.test("FA2 launches give the same bits with the kernel's tile softmax (standard and split-KV)", async () => {
  for (const gpu of ["a100", "h100-sxm"]) {
    for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
      for (const [sq, heads, kvHeads] of [[200, 4, 2], [1, 8, 2], [300, 2, 1]]) {
        const x = qkv(`tsm-${gpu}-${build.id}-${sq}`, {
          sq: sq!,
          sk: sq === 1 ? 700 : sq!,
          heads: heads!,
          kvHeads: kvHeads!,
        });
        const base = fa2Options({
          profile: profile(gpu),
          multiProcessorCount: gpu === "a100" ? 108 : 132,
          build,
          heads: heads!,
          kvHeads: kvHeads!,
          kWalk: ENGINE.kWalkAuto,
          returnLse: true,
        });
        const plain = await flashAttentionForward(x, base);
        const fast = await flashAttentionForward(x, {
          ...base,
          tileSoftmax: ENGINE.fa2TileSoftmax(build, TESLA)!,
        });
        const label = `${gpu} ${build.id} sq ${sq}`;
        assert.deepEqual(fast.out, plain.out, label);
        assert.deepEqual(fast.lse, plain.lse, label);
        assert.equal(fast.splits, plain.splits, label);
      }
    }
  }
});

Deno.test("FA2 launches on the ieee SFU give the same bits with the kernel's tile softmax, FTZ off and on", async () => {
  for (const ftz of [false, true]) {
    const mufu = createSfu({ mode: "ieee", ftz });
    for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
      for (const [sq, heads, kvHeads] of [[200, 4, 2], [1, 8, 2]]) {
        const x = qkv(`tsm-ieee-${ftz}-${build.id}-${sq}`, {
          sq: sq!,
          sk: sq === 1 ? 700 : sq!,
          heads: heads!,
          kvHeads: kvHeads!,
        });
        const base = fa2Options({
          build,
          mufu,
          heads: heads!,
          kvHeads: kvHeads!,
          kWalk: ENGINE.kWalkAuto,
          returnLse: true,
        });
        const tileSoftmax = ENGINE.fa2TileSoftmax(build, mufu);
        const label = `ieee ftz ${ftz} ${build.id} sq ${sq}`;
        assert.ok(tileSoftmax !== undefined, `no wasm softmax: ${label}`);
        const plain = await flashAttentionForward(x, base);
        const fast = await flashAttentionForward(x, { ...base, tileSoftmax });
        assert.deepEqual(fast.out, plain.out, label);
        assert.deepEqual(fast.lse, plain.lse, label);
      }
    }
  }
});

Deno.test("GemmEngine.fa2TileSoftmax(): exp2 arguments whose exact FFMA lies 2^-53 above an FP32 midpoint (double rounding through binary64 would miss them)", () => {
  // scale_log2 = 1 - 2^-15 and a score s = 2^-24 (1 + 2^-15): s * k = 2^-24 - 2^-54 exactly.
  // With the row maximum M, max_scaled = A = fl32(M k) in [1, 2) with an odd significand, and
  // FFMA(s, k, -A) = -(A - 2^-24 + 2^-54): just above the midpoint under A in magnitude, so the
  // correct result is -A, where rounding first to binary64 lands on the midpoint and then on the
  // even neighbour.
  const k = 0x3f7ffe00;
  const s = 0x33800100;
  const rowsM: number[] = [];
  for (let j = 0; rowsM.length < 8 && j < 256; j++) {
    const m = bitsFromF32(1.5 + j * 2 ** -23);
    const a = bitsFromF32(Math.fround((1.5 + j * 2 ** -23) * (1 - 2 ** -15)));
    if ((a & 1) === 1 && (a >>> 23) === 127) rowsM.push(m);
  }
  assert.ok(rowsM.length === 8);
  const build = FA2_DAO_FASTMATH; // FFMA argument
  const fast = ENGINE.fa2TileSoftmax(build, TESLA)!;
  const arith = _fa2Arith(build, TESLA);
  const blockN = 8;
  const rows = rowsM.length;
  const scores = new Uint32Array(rows * blockN).fill(s);
  rowsM.forEach((m, r) => (scores[r * blockN] = m));
  const limits = new Int32Array(rows).fill(blockN);
  const states = Array.from({ length: rows }, () => _newRowState(4));
  const pbTs = new Uint16Array(rows * blockN);
  _fa2TileSoftmax(states, {
    scores,
    limits,
    blockN,
    lanes: _laneColumns(blockN),
    arith,
    scaleLog2: k,
    first: true,
    checkInf: true,
  }, pbTs);
  const rowMax = new Uint32Array(rows).fill(0xff800000);
  const sums = new Uint32Array(rows * 4);
  const pb = new Uint16Array(rows * blockN);
  fast({
    rows,
    blockN,
    d: 4,
    scores,
    limits,
    rowMax,
    sums,
    o: new Uint32Array(rows * 4),
    pb,
    first: true,
    checkInf: true,
    scaleLog2: k,
  });
  // The correct argument is exactly -A: EX2(-A) per column; the lane sums see every one.
  states.forEach((st, r) => {
    const a = arith.mul(rowsM[r]!, k);
    assert.equal(arith.exp2Arg(s, k, a), (a ^ 0x80000000) >>> 0, "the TypeScript FFMA");
    assert.deepEqual(sums.subarray(r * 4, r * 4 + 4), st.laneSums, `row ${r}`);
  });
  assert.deepEqual(pb, pbTs);
});

Deno.test("GemmEngine.fa2TileSoftmax(): exp2 arguments below -126 (ex2.approx squares them) and O rescaled into subnormals (FTZ flushes them)", () => {
  const blockN = 16;
  const d = 8;
  const k = 0x3fb8aa3b; // log2 e
  for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
    const fast = ENGINE.fa2TileSoftmax(build, TESLA)!;
    const arith = _fa2Arith(build, TESLA);
    const rows = 4;
    const states = Array.from({ length: rows }, () => _newRowState(d));
    const rowMax = new Uint32Array(rows).fill(0xff800000);
    const sums = new Uint32Array(rows * 4);
    const o = new Uint32Array(rows * d);
    // Tile 1: a zero maximum, the rest spread over s k in [-155, -80] (arguments below -126).
    // Tile 2: a maximum of 6, so every row rescales O by about 2^-8.7 (tiny normals become
    // subnormal).
    for (const [step, top] of [[0, 0], [1, 6]] as const) {
      const scores = new Uint32Array(rows * blockN);
      for (let r = 0; r < rows; r++) {
        scores[r * blockN] = bitsFromF32(top);
        for (let c = 1; c < blockN; c++) {
          scores[r * blockN + c] = bitsFromF32(-(55 + ((r * blockN + c) * 1.37) % 53));
        }
      }
      if (step === 1) {
        for (let r = 0; r < rows; r++) {
          for (let j = 0; j < d; j++) {
            const v = 0x00800000 + ((r * d + j) * 0x1234f) % 0x800000; // smallest normals
            o[r * d + j] = v;
            states[r]!.o[j] = v;
          }
        }
      }
      const limits = new Int32Array(rows).fill(blockN);
      const tile = { scores, limits, blockN, scaleLog2: k, first: step === 0, checkInf: true };
      _assertStepAgrees(
        fast,
        { arith, states, rowMax, sums, o, d },
        tile,
        `${build.id} step ${step}`,
      );
    }
    // The cases are there: some exp2 results came from the squared path, some O entries are
    // subnormal in the build that keeps them (and zero in the one that flushes).
    const sub = states.some((s) => [...s.o].some((v) => v !== 0 && (v & 0x7f800000) === 0));
    assert.equal(sub, !build.ftz, `${build.id}: subnormal O entries`);
  }
});

/**
 * Runs one tile step through the TypeScript walk (`states`) and the wasm kernel (`rowMax`,
 * `sums`, `o`, which hold the same rows), and asserts the same P, row maxima, lane sums and O.
 */
function _assertStepAgrees(
  fast: NonNullable<ReturnType<typeof ENGINE.fa2TileSoftmax>>,
  run: {
    arith: ReturnType<typeof _fa2Arith>;
    states: ReturnType<typeof _newRowState>[];
    rowMax: Uint32Array;
    sums: Uint32Array;
    o: Uint32Array;
    d: number;
  },
  tile: {
    scores: Uint32Array;
    limits: Int32Array;
    blockN: number;
    scaleLog2: number;
    first: boolean;
    checkInf: boolean;
  },
  label: string,
): void {
  const { states, rowMax, sums, o, d } = run;
  const rows = states.length;
  const pbTs = new Uint16Array(rows * tile.blockN);
  _fa2TileSoftmax(states, { ...tile, arith: run.arith, lanes: _laneColumns(tile.blockN) }, pbTs);
  const pb = new Uint16Array(rows * tile.blockN);
  fast({ ...tile, rows, d, rowMax, sums, o, pb });
  assert.deepEqual(pb, pbTs, `${label}: P`);
  states.forEach((s, r) => {
    assert.equal(rowMax[r], s.rowMax, `${label}: row ${r} max`);
    assert.deepEqual(sums.subarray(r * 4, r * 4 + 4), s.laneSums, `${label}: row ${r} sums`);
    assert.deepEqual(o.subarray(r * d, (r + 1) * d), s.o, `${label}: row ${r} O`);
  });
}
