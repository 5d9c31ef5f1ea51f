import assert from "node:assert/strict";
import fc from "fast-check";
import { F32_RN } from "../../../src/hardware/mod.ts";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import {
  executePlan,
  pytorchReducePlan,
  REDUCE_STACK_CUDA_LEGACY,
  REDUCE_STACK_CUDA_RECENT,
  REDUCE_STACK_ROCM_RECENT,
  type ReduceStack,
  validatePlan,
} from "../../../src/kernels/reduce/mod.ts";
import { simulateReduceKernel } from "./_simulate_reduce_kernel.ts";

const recent = REDUCE_STACK_CUDA_RECENT;
const ONE = 0x3f800000;
const ULP_HALF = 0x33800000; // 2^-24: half an ulp of 1.0

const SHAPES: [number, number][] = [
  [1, 1],
  [3, 7],
  [64, 8],
  [1, 40],
  [2, 127],
  [1, 128],
  [8, 128],
  [40, 128],
  [1, 129],
  [5, 130],
  [16, 131],
  [1, 1000],
  [1, 2560],
  [3, 2560],
  [7, 2560],
  [12, 2560],
  [100, 2560],
  [16, 8192],
  [1, 9728],
  [2, 5000],
];
const STACKS: ReduceStack[] = [
  recent,
  REDUCE_STACK_CUDA_LEGACY,
  REDUCE_STACK_ROCM_RECENT,
  { ...recent, blockOrder: "y-then-x" },
];

Deno.test("`pytorchReducePlan()` covers each input exactly once in one tree for every shape", () => {
  for (const stack of STACKS) {
    for (const [outputs, length] of SHAPES) {
      const base = pytorchReducePlan({ outputs, length }, { stack });
      const shifts = base.config.vectorize ? [0, 1, 2, 3] : [0];
      for (const shift of shifts) {
        validatePlan(pytorchReducePlan({ outputs, length }, { stack, shift }));
      }
    }
  }
});

Deno.test("`pytorchReducePlan()` matches a literal simulation of reduce_kernel bit for bit", () => {
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (const stack of STACKS) {
    for (const [outputs, length] of SHAPES) {
      const x = Float32Array.from(
        { length },
        () => Math.fround((rnd() - 0.3) * 2 ** (rnd() * 40 - 20)),
      );
      const bits = new Uint32Array(x.buffer);
      const base = pytorchReducePlan({ outputs, length }, { stack });
      for (const shift of base.config.vectorize ? [0, 1, 3] : [0]) {
        const plan = pytorchReducePlan({ outputs, length }, { stack, shift });
        const want = bitsFromF32(simulateReduceKernel(x, plan.config, stack, shift));
        assert.equal(executePlan(plan, bits), want, `${outputs}x${length} shift ${shift}`);
      }
    }
  }
});

Deno.test("`pytorchReducePlan()` matches the literal simulation on narrow-range rows of tail shapes", () => {
  // Values in [1, 2): every partial sum rounds, so where the vectorised tail lands (accumulator
  // 0, Reduce.cuh's input_vectorized_thread_reduce_impl) decides bits on some rows.
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const tails: [number, number][] = [[1, 129], [1, 131], [16, 2561], [4, 515], [1, 1001]];
  for (const stack of [recent, REDUCE_STACK_CUDA_LEGACY]) {
    for (const [outputs, length] of tails) {
      const base = pytorchReducePlan({ outputs, length }, { stack });
      for (const shift of base.config.vectorize ? [0, 1, 3] : [0]) {
        const plan = pytorchReducePlan({ outputs, length }, { stack, shift });
        for (let trial = 0; trial < 50; trial++) {
          const x = Float32Array.from({ length }, () => Math.fround(1 + rnd()));
          const want = bitsFromF32(simulateReduceKernel(x, plan.config, stack, shift));
          const got = executePlan(plan, new Uint32Array(x.buffer));
          assert.equal(got, want, `${outputs}x${length} shift ${shift} trial ${trial}`);
        }
      }
    }
  }
});

Deno.test("`pytorchReducePlan()` gives thread tx the elements 4(tx+32j)+i when H = 2560, M >= 16", () => {
  const p = pytorchReducePlan({ outputs: 16, length: 2560 }, { stack: recent });
  assert.equal(p.config.blockWidth, 32);
  assert.equal(p.registers.length, 32 * 4);
  for (const tx of [0, 5, 31]) {
    for (let i = 0; i < 4; i++) {
      const want = Array.from({ length: 20 }, (_, j) => 4 * (tx + 32 * j) + i);
      assert.deepEqual(Array.from(p.registers[tx * 4 + i]!), want);
    }
  }
  // Thread combination ((a0 + a1) + a2) + a3 comes first, then the decreasing warp tree.
  assert.deepEqual(p.steps.slice(0, 3), [[0, 1], [0, 2], [0, 3]]);
  const tree = p.steps.slice(32 * 3);
  assert.deepEqual(tree.slice(0, 2), [[0, 64], [4, 68]]); // lane 0 += lane 16, lane 1 += lane 17
  assert.deepEqual(tree.at(-1), [0, 4]); // s2[0] + s2[1]
});

Deno.test("`pytorchReducePlan()` decides the sum when the shuffle order changes the fp32 result", () => {
  // H = 128 (QK-norm): lane t holds x[4t..4t+3]. Lane 0 = 1, lanes 1 and 17 = 2^-24.
  const x = new Uint32Array(128);
  x[0] = ONE;
  x[4] = ULP_HALF;
  x[68] = ULP_HALF;
  const shape = { outputs: 8, length: 128 };
  // Decreasing: lanes 1 and 17 meet first (2^-23), then 1 + 2^-23 is exact: 0x3F800001.
  assert.equal(executePlan(pytorchReducePlan(shape, { stack: recent }), x), 0x3f800001);
  // Increasing: 1 + 2^-24 first (tie to even: 1), later 1 + 2^-24 again: 1.
  assert.equal(executePlan(pytorchReducePlan(shape, { stack: REDUCE_STACK_ROCM_RECENT }), x), ONE);
});

Deno.test("`pytorchReducePlan()` gives the spec's 8-lane MoE tree when H = 8", () => {
  const w = Uint32Array.from([1, 2, 3, 4, 5, 6, 7, 8], (k) => bitsFromF32(1 / (k + 0.37)));
  const p = pytorchReducePlan({ outputs: 5, length: 8 }, { stack: recent });
  assert.equal(p.config.vectorize, false);
  assert.equal(p.config.blockWidth, 8);
  const a = (i: number, j: number) => F32_RN.add(w[i]!, w[j]!);
  const want = F32_RN.add(F32_RN.add(a(0, 4), a(2, 6)), F32_RN.add(a(1, 5), a(3, 7)));
  assert.equal(executePlan(p, w), want);
});

Deno.test("`pytorchReducePlan()` sums exactly when every partial sum is representable", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 3000 }),
      fc.integer({ min: 1, max: 64 }),
      fc.integer({ min: -30, max: 30 }),
      fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      (length, outputs, k, seed) => {
        // Integers below 2^12 times 2^k: every partial sum is a multiple of 2^k below 2^24 * 2^k.
        let s = seed;
        const ints = Array.from({ length }, () => {
          s = (s * 1103515245 + 12345) >>> 0;
          return (s % 8191) - 4095;
        });
        const x = Uint32Array.from(ints, (n) => bitsFromF32(n * 2 ** k));
        const exact = ints.reduce((acc, n) => acc + BigInt(n), 0n);
        const plan = pytorchReducePlan({ outputs, length }, { stack: recent, shift: 0 });
        assert.equal(f32FromBits(executePlan(plan, x)), Number(exact) * 2 ** k);
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("`pytorchReducePlan()` throws on a shift outside the vector or for the strided path", () => {
  assert.throws(
    () => pytorchReducePlan({ outputs: 1, length: 256 }, { stack: recent, shift: 4 }),
    RangeError,
  );
  assert.throws(
    () => pytorchReducePlan({ outputs: 1, length: 64 }, { stack: recent, shift: 1 }),
    RangeError,
  );
});
