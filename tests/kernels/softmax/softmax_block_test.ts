import assert from "node:assert/strict";
import { createSfu, divF32 } from "../../../src/hardware/mod.ts";
import {
  cudaExpf,
  expfParts,
  type Mufu,
  softmaxBlock,
  type SoftmaxBlockLaunch,
} from "../../../src/kernels/mod.ts";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import { randomLogits, type SimLaunch, simulateBlockSoftmax } from "./_block_softmax_sim.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const ieee = createSfu({ mode: "ieee" });
const table = teslaSfu();

/** Runs `rows` rows through softmaxBlock and the simulation; returns the number of rows compared. */
function agree(
  dim: number,
  launch: SimLaunch,
  o: { rows: number; base: number; seed: number; mufu: Mufu },
) {
  const x = randomLogits(dim * o.rows, o.seed);
  const y = softmaxBlock(x, { dim, mufu: o.mufu, launch, baseOffset: o.base });
  for (let r = 0; r < o.rows; r++) {
    const row = x.subarray(r * dim, (r + 1) * dim);
    const want = simulateBlockSoftmax(row, launch, {
      mufu: o.mufu,
      misalign: (o.base + r * dim) % 4,
    });
    const got = y.subarray(r * dim, (r + 1) * dim);
    const i = want.findIndex((w, k) => w !== got[k]);
    assert.equal(
      i,
      -1,
      `${launch.kernel}/${launch.tree}/B${launch.blockSize} dim ${dim} row ${r}: index ${i}`,
    );
  }
}

// Deterministic sample of lengths: edges of the dispatch rules plus seeded odd and even sizes.
const DIMS = [1025, 1027, 1031, 1032, 2047, 2049, 2051, 3001, 4096, 5003, 8191, 9000];
for (let k = 0, a = 12345; k < 6; k++) DIMS.push(1025 + ((a = (a * 48271) % 2147483647) % 7976));

Deno.test("softmaxBlock() matches the thread-level simulation: cunn_SoftMaxForward, old tree", () => {
  for (const [n, dim] of DIMS.entries()) {
    let b = 1;
    while (b < Math.floor(Math.min(Math.floor(dim / 4), 1024) / 2)) b *= 2; // SoftMax_getBlockSize
    const launch = {
      kernel: "cunn_SoftMaxForward",
      blockSize: Math.max(b, 32),
      tree: "smem-serial",
    } as const;
    agree(dim, launch, { rows: 3, base: n % 4, seed: n, mufu: n % 3 === 0 ? table : ieee });
  }
});

Deno.test("softmaxBlock() matches the thread-level simulation: cunn_SoftMaxForward, shuffle tree", () => {
  for (const [n, dim] of DIMS.entries()) {
    const launch = { kernel: "cunn_SoftMaxForward", blockSize: 1024, tree: "shfl-down" } as const;
    agree(dim, launch, {
      rows: 3,
      base: (n + 1) % 4,
      seed: 100 + n,
      mufu: n % 3 === 1 ? table : ieee,
    });
  }
});

Deno.test("softmaxBlock() matches the thread-level simulation: Reg and Smem kernels", () => {
  for (const [n, dim] of DIMS.entries()) {
    const reg = { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" } as const;
    agree(dim, reg, { rows: 2, base: n % 4, seed: 200 + n, mufu: n % 2 === 0 ? table : ieee });
    const even = dim - (dim % 4);
    const smem = { kernel: "cunn_SoftMaxForwardSmem", blockSize: 1024, tree: "shfl-down" } as const;
    agree(even, smem, { rows: 2, base: 0, seed: 300 + n, mufu: ieee });
  }
});

Deno.test("softmaxBlock() gives 1/dim for equal logits whatever the kernel", () => {
  // Every e_i = expf(0) = 1 and every partial sum is an integer < 2^24: exact in any order.
  const want = divF32(0x3f800000, bitsFromF32(3000));
  assert.equal(want, bitsFromF32(Math.fround(1 / 3000)));
  const launches: SoftmaxBlockLaunch[] = [
    { kernel: "cunn_SoftMaxForward", blockSize: 256, tree: "smem-serial" },
    { kernel: "cunn_SoftMaxForward", blockSize: 1024, tree: "shfl-down" },
    { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" },
  ];
  for (const launch of launches) {
    const y = softmaxBlock(new Uint32Array(6000).fill(0x40400000), {
      dim: 3000,
      mufu: table,
      launch,
    });
    assert.ok(y.every((v) => v === want), launch.kernel);
  }
});

Deno.test("softmaxBlock() old and new trees give different bits on some rows", () => {
  const old = { kernel: "cunn_SoftMaxForward", blockSize: 512, tree: "smem-serial" } as const;
  const neu = { ...old, tree: "shfl-down" } as const;
  let differ = 0;
  for (let seed = 0; seed < 8; seed++) {
    const x = randomLogits(3000, 900 + seed, 2);
    const a = softmaxBlock(x, { dim: 3000, mufu: table, launch: old });
    const b = softmaxBlock(x, { dim: 3000, mufu: table, launch: neu });
    if (a.some((v, i) => v !== b[i])) differ++;
  }
  assert.ok(differ > 0, "the block tree must be observable in the output bits");
});

Deno.test("softmaxBlock() is within a few ulps of the real softmax", () => {
  const launch = { kernel: "cunn_SoftMaxForward", blockSize: 1024, tree: "shfl-down" } as const;
  const x = randomLogits(4099, 7);
  const y = softmaxBlock(x, { dim: 4099, mufu: ieee, launch });
  const v = Array.from(x, f32FromBits);
  const m = Math.max(...v);
  const z = v.reduce((s, t) => s + Math.exp(t - m), 0);
  v.forEach((t, i) => {
    const want = Math.exp(t - m) / z;
    assert.ok(Math.abs(f32FromBits(y[i]!) - want) <= want * 2 ** -19, `index ${i}`);
  });
});

Deno.test("softmaxBlock() gives NaN rows for NaN, +inf or fully masked rows, 0 for -inf", () => {
  const launch = { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" } as const;
  const x = new Uint32Array(4 * 2100).fill(0xff800000); // row 0: all -inf
  x.fill(0, 2100, 4200).fill(0, 4200, 6300).fill(0, 6300);
  x[2100 + 5] = 0x7fc00000; // row 1: a NaN
  x[4200 + 7] = 0x7f800000; // row 2: +inf
  x[6300 + 9] = 0xff800000; // row 3: one -inf
  const y = softmaxBlock(x, { dim: 2100, mufu: table, launch });
  for (const r of [0, 1, 2]) {
    assert.ok(y.subarray(r * 2100, (r + 1) * 2100).every((v) => v === 0x7fffffff));
  }
  assert.equal(y[6300 + 9], 0);
  assert.equal(y[6300], divF32(0x3f800000, bitsFromF32(2099)));
});

Deno.test("softmaxBlock() refuses a row whose bits depend on the unpinned FFMA contraction", () => {
  // A stand-in EX2 (real ones give expf(0) = 1, which keeps the sum >= 1 and hides any
  // difference) makes thread 0's terms 3 * 2^-149 (x = 0, scale 1) and 0.5 * 2^-149 (x = -1,
  // EX2 = 2^-150 / scale). FMUL + FADD: fl(0.5 units) = 0 (tie to even), sum 3 units, out[0] = 1.
  // FFMA: fl(3 + 0.5 units) = 4 (tie to even), out[0] = 3/4. Everything else is -inf (0).
  const ys: number[] = [];
  const spy: Mufu = { ...ieee, ex2: (b: number) => (ys.push(b), 0) };
  const { scale } = expfParts(0xbf800000, spy);
  expfParts(0, spy);
  const [y1, y0] = ys;
  const fake: Mufu = {
    ...ieee,
    ex2: (b: number) =>
      b === y0 ? 3 : b === y1 ? bitsFromF32(2 ** -150 / f32FromBits(scale)) : ieee.ex2(b),
  };
  const launch = { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" } as const;
  const x = new Uint32Array(2100).fill(0xff800000);
  x[0] = 0;
  x[1024] = 0xbf800000; // -1, thread 0's second term
  assert.throws(() => softmaxBlock(x, { dim: 2100, mufu: fake, launch }), RangeError);
  const separate = softmaxBlock(x, { dim: 2100, mufu: fake, launch, expfAccumulate: "fmul-fadd" });
  const fused = softmaxBlock(x, { dim: 2100, mufu: fake, launch, expfAccumulate: "ffma" });
  assert.equal(separate[0], 0x3f800000);
  assert.equal(fused[0], 0x3f400000);
  assert.equal(separate[1024], 0);
  assert.deepEqual(separate, simulateBlockSoftmax(x, launch, { mufu: fake, misalign: 0 }));
});

Deno.test("softmaxBlock() refuses a zero maximum of unpinned sign only when expf(-0) != expf(+0)", () => {
  const launch = { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" } as const;
  const x = new Uint32Array(2100).fill(0xbf800000);
  x[3] = 0;
  x[1500] = 0x80000000;
  const y = softmaxBlock(x, { dim: 2100, mufu: ieee, launch });
  assert.equal(cudaExpf(0x80000000, ieee), cudaExpf(0, ieee));
  assert.equal(y[3], y[1500]);
  const skewed: Mufu = {
    ...ieee,
    ex2: (b: number) => (b === 0x80000000 ? 0x3f800001 : ieee.ex2(b)),
  };
  assert.throws(() => softmaxBlock(x, { dim: 2100, mufu: skewed, launch }), RangeError);
  x[3] = 0x80000000; // both zeros negative: the sign is pinned
  assert.equal(softmaxBlock(x, { dim: 2100, mufu: skewed, launch }).length, 2100);
});

Deno.test("softmaxBlock() refuses bad shapes", () => {
  const launch = { kernel: "cunn_SoftMaxForward", blockSize: 256, tree: "smem-serial" } as const;
  assert.throws(
    () => softmaxBlock(new Uint32Array(2049), { dim: 2048, mufu: ieee, launch }),
    RangeError,
  );
  assert.throws(
    () => softmaxBlock(new Uint32Array(2048), { dim: 0, mufu: ieee, launch }),
    RangeError,
  );
  assert.throws(
    () => softmaxBlock(new Uint32Array(2048), { dim: 2048, mufu: ieee, launch, baseOffset: -1 }),
    RangeError,
  );
});
