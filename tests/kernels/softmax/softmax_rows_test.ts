import assert from "node:assert/strict";
import {
  SOFTMAX_STACK_TORCH_2_1,
  SOFTMAX_STACK_TORCH_2_4,
  SOFTMAX_STACK_TORCH_2_7,
  softmaxLaunch,
  softmaxRows,
  softmaxStackForTorch,
  softmaxWarp,
} from "../../../src/kernels/mod.ts";
import { randomLogits, simulateBlockSoftmax } from "./_block_softmax_sim.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const table = teslaSfu();

/** `[dim, kernel, blockSize]` rows derived by hand from SoftMax.cu's host_softmax. */
type Row = [number, string, number];
const launchOf = (dim: number, stack = SOFTMAX_STACK_TORCH_2_1, baseOffset = 0): Row => {
  const l = softmaxLaunch(dim, { stack, baseOffset });
  return [dim, l.kernel, "blockSize" in l ? l.blockSize : 0];
};

Deno.test("softmaxLaunch() follows PyTorch 2.1-2.3's dispatch", () => {
  // SoftMax_getBlockSize(4, dim): next power of two >= min(dim / 4, 1024) / 2, at least 32.
  const want: Row[] = [
    [1024, "softmax_warp_forward", 0],
    [1025, "cunn_SoftMaxForward", 128], // 256 / 2 = 128
    [1031, "cunn_SoftMaxForward", 128], // 257 / 2 = 128
    [1032, "cunn_SoftMaxForward", 256], // 258 / 2 = 129 -> 256
    [2048, "cunn_SoftMaxForward", 256],
    [2064, "cunn_SoftMaxForward", 512],
    [9000, "cunn_SoftMaxForward", 512], // min(2250, 1024) / 2 = 512
    [100000, "cunn_SoftMaxForward", 512],
  ];
  for (const w of want) assert.deepEqual(launchOf(w[0]), w);
});

Deno.test("softmaxLaunch() follows PyTorch 2.4-2.6's dispatch", () => {
  const s = SOFTMAX_STACK_TORCH_2_4;
  assert.deepEqual(launchOf(1024, s), [1024, "softmax_warp_forward", 0]);
  assert.deepEqual(launchOf(1025, s), [1025, "cunn_SoftMaxForward", 1024]); // dim % 4 != 0
  assert.deepEqual(launchOf(1028, s), [1028, "cunn_SoftMaxForwardSmem", 1024]);
  assert.deepEqual(launchOf(1028, s, 2), [1028, "cunn_SoftMaxForward", 1024]); // misaligned base
  // (49152 - 32 * 4) / 4 = 12256 elements fit: dim < 12256.
  assert.deepEqual(launchOf(12252, s), [12252, "cunn_SoftMaxForwardSmem", 1024]);
  assert.deepEqual(launchOf(12256, s), [12256, "cunn_SoftMaxForward", 1024]);
});

Deno.test("softmaxLaunch() follows PyTorch 2.7-2.10's dispatch", () => {
  const s = SOFTMAX_STACK_TORCH_2_7;
  assert.deepEqual(launchOf(2048, s), [2048, "softmax_warp_forward", 0]);
  assert.deepEqual(launchOf(2049, s), [2049, "cunn_SoftMaxForwardReg", 1024]); // 3 per thread
  assert.deepEqual(launchOf(9216, s), [9216, "cunn_SoftMaxForwardReg", 1024]); // 9 per thread
  assert.deepEqual(launchOf(9217, s), [9217, "cunn_SoftMaxForward", 1024]); // 10, dim % 4 = 1
  assert.deepEqual(launchOf(9220, s), [9220, "cunn_SoftMaxForwardSmem", 1024]);
  assert.deepEqual(launchOf(9220, s, 1), [9220, "cunn_SoftMaxForward", 1024]);
  assert.deepEqual(launchOf(20000, s), [20000, "cunn_SoftMaxForward", 1024]);
  const big = softmaxLaunch(20000, { stack: s, sharedMemPerBlock: 101376 });
  assert.equal(big.kernel, "cunn_SoftMaxForwardSmem");
});

Deno.test("softmaxStackForTorch() maps releases to stacks and refuses unknown ones", () => {
  assert.equal(softmaxStackForTorch("2.1.0"), SOFTMAX_STACK_TORCH_2_1);
  assert.equal(softmaxStackForTorch("2.3.1+cu121"), SOFTMAX_STACK_TORCH_2_1);
  assert.equal(softmaxStackForTorch("2.4.0"), SOFTMAX_STACK_TORCH_2_4);
  assert.equal(softmaxStackForTorch("2.6.0+cu124"), SOFTMAX_STACK_TORCH_2_4);
  assert.equal(softmaxStackForTorch("2.7.1"), SOFTMAX_STACK_TORCH_2_7);
  assert.equal(softmaxStackForTorch("2.10.0"), SOFTMAX_STACK_TORCH_2_7);
  for (const v of ["1.13.1", "2.0.1", "2.11.0", "3.0.0"]) {
    assert.throws(() => softmaxStackForTorch(v), RangeError, v);
  }
  assert.throws(() => softmaxStackForTorch("nightly"), SyntaxError);
  assert.throws(() => softmaxStackForTorch("2.9.0", { platform: "rocm" }), RangeError);
});

Deno.test("softmaxRows() runs the warp kernel up to the release's limit", () => {
  const x = randomLogits(3 * 1500, 11);
  const y = softmaxRows(x, { dim: 1500, torchVersion: "2.9.1+cu128", mufu: table });
  assert.deepEqual(y, softmaxWarp(x, { dim: 1500, mufu: table, maxDim: 2048 }));
  const x2 = randomLogits(1024, 12);
  const y2 = softmaxRows(x2, { dim: 1024, torchVersion: "2.2.0", mufu: table });
  assert.deepEqual(y2, softmaxWarp(x2, { dim: 1024, mufu: table }));
});

Deno.test("softmaxRows() runs each release's block kernel bit for bit", () => {
  const cases: [string, number, number][] = [
    ["2.3.0", 3001, 1], // cunn_SoftMaxForward, B 512, old tree, misaligned rows
    ["2.5.1", 3000, 0], // cunn_SoftMaxForwardSmem
    ["2.5.1", 3001, 0], // cunn_SoftMaxForward, B 1024, shuffle tree
    ["2.8.0", 3001, 3], // cunn_SoftMaxForwardReg
  ];
  for (const [torchVersion, dim, baseOffset] of cases) {
    const x = randomLogits(2 * dim, dim + baseOffset);
    const y = softmaxRows(x, { dim, torchVersion, mufu: table, baseOffset });
    const launch = softmaxLaunch(dim, { stack: softmaxStackForTorch(torchVersion), baseOffset });
    assert.ok("blockSize" in launch);
    for (let r = 0; r < 2; r++) {
      const want = simulateBlockSoftmax(x.subarray(r * dim, (r + 1) * dim), launch, {
        mufu: table,
        misalign: (baseOffset + r * dim) % 4,
      });
      assert.deepEqual(y.subarray(r * dim, (r + 1) * dim), want, `${torchVersion} ${dim} row ${r}`);
    }
  }
});

Deno.test("softmaxRows() output bits depend on the recorded release", () => {
  let differ = 0;
  for (let seed = 0; seed < 6; seed++) {
    const x = randomLogits(1500, 40 + seed, 3);
    const old = softmaxRows(x, { dim: 1500, torchVersion: "2.3.1", mufu: table });
    const mid = softmaxRows(x, { dim: 1500, torchVersion: "2.5.0", mufu: table });
    const neu = softmaxRows(x, { dim: 1500, torchVersion: "2.9.0", mufu: table });
    if (old.some((v, i) => v !== mid[i]) || mid.some((v, i) => v !== neu[i])) differ++;
  }
  assert.ok(differ > 0, "block and warp kernels must be distinguishable");
});

Deno.test("softmaxRows() refuses unknown releases and ROCm builds", () => {
  const x = new Uint32Array(4096);
  assert.throws(
    () => softmaxRows(x, { dim: 4096, torchVersion: "2.0.1", mufu: table }),
    RangeError,
  );
  assert.throws(
    () => softmaxRows(x, { dim: 4096, torchVersion: "2.12.0", mufu: table }),
    RangeError,
  );
  assert.throws(
    () => softmaxRows(x, { dim: 4096, torchVersion: "2.9.0", mufu: table, platform: "rocm" }),
    RangeError,
  );
});
