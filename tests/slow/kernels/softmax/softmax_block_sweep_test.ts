import assert from "node:assert/strict";
import { createSfu } from "../../../../src/hardware/mod.ts";
import { softmaxBlock, type SoftmaxBlockLaunch } from "../../../../src/kernels/mod.ts";
import { randomLogits, simulateBlockSoftmax } from "../../../kernels/softmax/_block_softmax_sim.ts";

const mufu = createSfu({ mode: "ieee" });

/** Every 7th row length from 1025 to 9000, every row alignment, every kernel and tree. */
Deno.test("softmaxBlock() matches the thread-level simulation on a sweep of row lengths", () => {
  for (let dim = 1025; dim <= 9000; dim += 7) {
    let b = 1;
    while (b < Math.floor(Math.min(Math.floor(dim / 4), 1024) / 2)) b *= 2;
    const launches: SoftmaxBlockLaunch[] = [
      { kernel: "cunn_SoftMaxForward", blockSize: Math.max(b, 32), tree: "smem-serial" },
      { kernel: "cunn_SoftMaxForward", blockSize: 1024, tree: "shfl-down" },
      { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" },
    ];
    for (const [k, launch] of launches.entries()) {
      const base = (dim + k) % 4;
      const x = randomLogits(4 * dim, dim * 3 + k);
      const y = softmaxBlock(x, { dim, mufu, launch, baseOffset: base });
      for (let r = 0; r < 4; r++) {
        const want = simulateBlockSoftmax(x.subarray(r * dim, (r + 1) * dim), launch, {
          mufu,
          misalign: (base + r * dim) % 4,
        });
        const got = y.subarray(r * dim, (r + 1) * dim);
        assert.equal(want.findIndex((w, i) => w !== got[i]), -1, `${launch.kernel} ${dim} ${r}`);
      }
    }
  }
});
