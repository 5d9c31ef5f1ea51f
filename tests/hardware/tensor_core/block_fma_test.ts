/**
 * blockFma() against the spec's stated vectors and the edge semantics of the Khattak & Mikaitis
 * model (spec tensor_core.md §5.1, tensor_core_khattak_mikaitis.md §8, §11, §14.1).
 */
import assert from "node:assert/strict";
import { BF16, E4M3, type FloatFormat, FP16, FP32 } from "../../../src/numerics/mod.ts";
import { blockFma, type Datapath, dotKWalk, mmaStep } from "../../../src/hardware/mod.ts";

function dp(over: Partial<Datapath> & { input: FloatFormat }): Datapath {
  return {
    family: "mma",
    output: FP32,
    k: 16,
    blockSize: 8,
    fracBits: 24,
    resultFormat: FP32,
    rounding: "rz",
    alignFloor: -132,
    chain: { kind: "contiguous" },
    accumulator: "early",
    ...over,
  };
}
const A100 = dp({ input: BF16 });
const H100 = dp({ input: BF16, blockSize: 16, fracBits: 25, alignFloor: -133 });
const ONE = 0x3f80;

Deno.test("blockFma() keeps unnormalised products (spec T2, T2')", () => {
  const tail = [0x3400, 0x3380, 0x3380];
  assert.equal(
    blockFma(A100, { c: 0, a: [0x3fc0, ...tail], b: [0x3fc0, ONE, ONE, ONE] }),
    0x40100001,
  );
  // 2.25 * 1.0 is a normalised product with exponent 1: the tail falls below the grid.
  assert.equal(blockFma(A100, { c: 0, a: [0x4010, ...tail], b: [ONE, ONE, ONE, ONE] }), 0x40100000);
});

Deno.test("blockFma() keeps F = 25 fraction bits on Hopper and 24 on Ampere (spec T3)", () => {
  const op = { c: 0, a: [0x3fc0, 0x3460, 0x3300], b: [0x3fc0, ONE, ONE] };
  assert.equal(blockFma(H100, op), 0x40100001);
  assert.equal(blockFma(A100, op), 0x40100000);
});

Deno.test("blockFma() sums a block before rounding (spec T1)", () => {
  // a = [1, 1e-7 x 7] in bf16 (1e-7 -> 0x33d7), b = 1: fused result vs sequential fp32.
  const a = [ONE, ...new Array(7).fill(0x33d7)];
  const b = new Array(8).fill(ONE);
  const d = blockFma(A100, { c: 0, a, b });
  assert.equal(d, 0x3f800003);
});

Deno.test("blockFma() lets a large accumulator absorb tiny products (spec T4, V100)", () => {
  const v100 = dp({ input: FP16, blockSize: 4, fracBits: 23, alignFloor: null });
  const c = 0x40100000; // 2.25
  const tiny = 0x0001; // fp16 2^-24
  assert.equal(blockFma(v100, { c, a: [0, 0x3400, 0x3400], b: [0x3c00, tiny, tiny] }), c);
});

Deno.test("blockFma() returns +0 for exact cancellation and -0 when a negative sum truncates to zero", () => {
  assert.equal(blockFma(A100, { c: 0, a: [ONE, 0xbf80], b: [ONE, ONE] }), 0);
  // -2^-76 * 2^-76 = -2^-152: below the smallest fp32 subnormal, RZ gives -0.
  assert.equal(
    blockFma(A100, { c: 0, a: [0x99800000 >>> 16], b: [0x19800000 >>> 16] }),
    0x80000000,
  );
});

Deno.test("blockFma() produces fp32 subnormals and honours the alignment floor (spec §14.1)", () => {
  const a = new Array(4).fill(0x19c0); // 1.5 * 2^-76
  const b = new Array(4).fill(0x1a00); // 2^-75
  assert.equal(blockFma(A100, { c: 0, a, b }), 0x00000001);
  const h = new Array(16).fill(0x19c0);
  const hb = new Array(16).fill(0x1980); // 2^-76
  assert.equal(blockFma(H100, { c: 0, a: h, b: hb }), 0x00000003);
});

Deno.test("blockFma() overflows to infinity even when rounding toward zero (K&M case 1)", () => {
  const big = 0x7f00; // 2^127 in bf16
  assert.equal(blockFma(A100, { c: 0x7f000000, a: [big], b: [ONE] }), 0x7f800000);
  assert.equal(blockFma(A100, { c: 0xff000000, a: [big | 0x8000], b: [ONE] }), 0xff800000);
});

Deno.test("blockFma() propagates NaN and infinities as the MATLAB pre-check does (K&M cases 2, 3)", () => {
  const inf = 0x7f80;
  const ninf = 0xff80;
  assert.equal(blockFma(A100, { c: 0, a: [inf], b: [ninf] }), 0xff800000);
  assert.equal(blockFma(A100, { c: 0, a: [ninf, inf], b: [ONE, ONE] }), FP32.canonicalNan);
  assert.equal(blockFma(A100, { c: 0, a: [inf], b: [0] }), FP32.canonicalNan);
  assert.equal(blockFma(A100, { c: 0x7fc00000, a: [ONE], b: [ONE] }), FP32.canonicalNan);
  assert.equal(blockFma(A100, { c: 0xff800000, a: [ONE], b: [ONE] }), 0xff800000);
});

Deno.test("blockFma() rounds fp16 outputs to nearest-even and overflows to infinity (K&M cases 4, 5)", () => {
  const f16 = dp({
    input: FP16,
    output: FP16,
    resultFormat: FP16,
    rounding: "rne",
    alignFloor: -20,
  });
  assert.equal(blockFma(f16, { c: 0, a: [0x7bff, 0x7bff], b: [0x3c00, 0x3c00] }), 0x7c00);
  assert.equal(blockFma(f16, { c: 0, a: [0xfbff, 0xfbff], b: [0x3c00, 0x3c00] }), 0xfc00);
  assert.equal(blockFma(f16, { c: 0x3c00, a: [0x1400], b: [0x3c00] }), 0x3c01); // 1 + 2^-10
  assert.equal(blockFma(f16, { c: 0x3c00, a: [0x1000], b: [0x3c00] }), 0x3c00); // tie to even
});

Deno.test("blockFma() follows the fp16 alignment floor of the MATLAB model (spec §14.1)", () => {
  const f16 = dp({
    input: FP16,
    output: FP16,
    resultFormat: FP16,
    rounding: "rne",
    alignFloor: -20,
  });
  // 2^-13 * 2^-12 = 2^-25 (a tie at half the smallest fp16 subnormal) plus 2^-48: the floor
  // (grid 2^-44) drops the 2^-48 that would break the tie, so nearest-even gives +0.
  assert.equal(blockFma(f16, { c: 0, a: [0x0800, 0x0001], b: [0x0c00, 0x0001] }), 0x0000);
});

Deno.test("blockFma() treats subnormal inputs at the format's minimum exponent", () => {
  const e4m3dp = dp({ input: E4M3, k: 32, blockSize: 16, fracBits: 13, resultFormat: FP32 });
  // e4m3 0x01 = 2^-9; squared 2^-18 exactly.
  assert.equal(blockFma(e4m3dp, { c: 0, a: [0x01], b: [0x01] }), 0x36800000);
});

Deno.test("blockFma() refuses more products than the block holds", () => {
  assert.throws(
    () => blockFma(A100, { c: 0, a: new Array(9).fill(0), b: new Array(9).fill(0) }),
    RangeError,
  );
});

Deno.test("mmaStep() chains two blocks of 8 on Ampere and one of 16 on Hopper", () => {
  // 1 in block 1, then 2^-24 * 8 in block 2: A100 sees them separately.
  const a = [ONE, ...new Array(7).fill(0), ...new Array(8).fill(0x3380)];
  const b = new Array(16).fill(ONE);
  assert.equal(mmaStep(A100, { c: 0, a, b }), 0x3f800000 + 4); // 1 + 8*2^-24 = 1 + 2^-21
  assert.equal(mmaStep(H100, { c: 0, a, b }), 0x3f800000 + 4);
  const a2 = [ONE, ...new Array(7).fill(0), ...new Array(8).fill(0x3300)]; // 2^-25 each
  assert.equal(mmaStep(A100, { c: 0, a: a2, b }), 0x3f800000); // each block alone truncates
  assert.equal(mmaStep(H100, { c: 0, a: a2, b }), 0x3f800000 + 2); // one block keeps 8*2^-25
});

Deno.test("dotKWalk() equals padding K with zeros", () => {
  const a = [ONE, 0x4000, 0x3f00];
  const b = [0x3f00, ONE, 0x4040];
  const padded = [...a, ...new Array(13).fill(0)];
  assert.equal(
    dotKWalk(H100, { a, b }),
    mmaStep(H100, { c: 0, a: padded, b: [...b, ...new Array(13).fill(0)] }),
  );
});

Deno.test("dotKWalk(): a K tail runs the instruction's remaining blocks zero-filled, so -0 from a truncated negative sum becomes +0 on Ampere (an empty block gives +0) and stays -0 in Hopper's one block", () => {
  // -2^-75 * 2^-76 truncates to zero with its sign: blockFma keeps -0 ...
  const a = [0x9a00];
  const b = [0x1980];
  assert.equal(blockFma(A100, { c: 0, a, b }), 0x80000000);
  // ... the A100's second, all-zero block of the k16 instruction gives +0; the H100 has one block.
  assert.equal(dotKWalk(A100, { a, b }), 0x00000000);
  assert.equal(dotKWalk(H100, { a, b }), 0x80000000);
});
