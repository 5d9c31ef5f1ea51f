import assert from "node:assert/strict";
import {
  executePlan,
  type SoftmaxBlockLaunch,
  softmaxBlockPlan,
  validatePlan,
} from "../../../src/kernels/mod.ts";

const general = (blockSize: number, tree: SoftmaxBlockLaunch["tree"]): SoftmaxBlockLaunch => ({
  kernel: "cunn_SoftMaxForward",
  blockSize,
  tree,
});

Deno.test("softmaxBlockPlan() gives ilpReduce's hand-derived folds for an aligned row", () => {
  // dim 1028, B 128: 4-vectors t and t + 128 (4v < 1028 - 1028 % 512 = 1024), then the tail
  // 1024 + t for t < 4.
  const p = softmaxBlockPlan(1028, { launch: general(128, "smem-serial") });
  assert.equal(p.registers[0]!.join(), "0,1,2,3,512,513,514,515,1024");
  assert.equal(p.registers[3]!.join(), "12,13,14,15,524,525,526,527,1027");
  assert.equal(p.registers[4]!.join(), "16,17,18,19,528,529,530,531");
});

Deno.test("softmaxBlockPlan() gives ilpReduce's hand-derived folds for a misaligned row", () => {
  // shift 1: threads 1..127 take elements 0..126; then from element 127 size = 1029 - 128 = 901,
  // last = 901 % 512 = 389: vector t (elements 127 + 4t ..), tail 512 + t + 128k < 901.
  const p = softmaxBlockPlan(1028, { launch: general(128, "smem-serial"), shift: 1 });
  assert.equal(p.registers[0]!.join(), "127,128,129,130,639,767,895,1023");
  assert.equal(p.registers[5]!.join(), "4,147,148,149,150,644,772,900");
});

Deno.test("softmaxBlockPlan() gives the Reg and Smem kernels' strided folds", () => {
  const reg = softmaxBlockPlan(2100, {
    launch: { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" },
  });
  assert.equal(reg.registers[51]!.join(), "51,1075,2099");
  assert.equal(reg.registers[52]!.join(), "52,1076");
  const smem = softmaxBlockPlan(8200, {
    launch: { kernel: "cunn_SoftMaxForwardSmem", blockSize: 1024, tree: "shfl-down" },
  });
  // Vectors t, t + 1024, t + 2048 while 4v < 8200: thread 1 gets three, thread 2 two.
  assert.equal(smem.registers[1]!.join(), "4,5,6,7,4100,4101,4102,4103,8196,8197,8198,8199");
  assert.equal(smem.registers[2]!.join(), "8,9,10,11,4104,4105,4106,4107");
});

Deno.test("softmaxBlockPlan() reads every element once in one tree for many shapes", () => {
  for (const dim of [1025, 1029, 2047, 3001, 4096, 5003, 9000, 12000]) {
    for (const tree of ["smem-serial", "shfl-down"] as const) {
      for (const blockSize of [128, 256, 512, 1024]) {
        for (let shift = 0; shift < 4; shift++) {
          validatePlan(softmaxBlockPlan(dim, { launch: general(blockSize, tree), shift }));
        }
      }
    }
    if (dim <= 9216) {
      validatePlan(softmaxBlockPlan(dim, {
        launch: { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" },
      }));
    }
    if (dim % 4 === 0) {
      validatePlan(softmaxBlockPlan(dim, {
        launch: { kernel: "cunn_SoftMaxForwardSmem", blockSize: 1024, tree: "shfl-down" },
      }));
    }
  }
});

Deno.test("softmaxBlockPlan() trees differ: serial lane sums lose what the shuffle tree keeps", () => {
  // One warp, thread 0 holds 1, threads 1..31 hold 2^-24. Serial: each 1 + 2^-24 ties back to 1.
  // Shuffle-down: the small terms pair up first (2^-23, 2^-22, ...) and survive:
  // 1 + (2^-23 + 2^-22 + 2^-21 + 2^-20) = 1 + 15 * 2^-23 = 0x3F80000F (the exact sum is 1 + 15.5 * 2^-23).
  const values = new Uint32Array(32).fill(0x33800000);
  values[0] = 0x3f800000;
  const plan = (tree: SoftmaxBlockLaunch["tree"]) =>
    softmaxBlockPlan(32, { launch: { kernel: "cunn_SoftMaxForwardReg", blockSize: 32, tree } });
  assert.equal(executePlan(plan("smem-serial"), values), 0x3f800000);
  assert.equal(executePlan(plan("shfl-down"), values), 0x3f80000f);
});

Deno.test("softmaxBlockPlan() refuses launches PyTorch does not make", () => {
  const reg = { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" } as const;
  assert.throws(() => softmaxBlockPlan(9217, { launch: reg }), RangeError); // reg_cnt 10
  const smem = { kernel: "cunn_SoftMaxForwardSmem", blockSize: 1024, tree: "shfl-down" } as const;
  assert.throws(() => softmaxBlockPlan(4098, { launch: smem }), RangeError); // dim % 4 != 0
  assert.throws(() => softmaxBlockPlan(4096, { launch: smem, shift: 2 }), RangeError);
  assert.throws(
    () => softmaxBlockPlan(100, { launch: general(128, "shfl-down"), shift: 1 }),
    RangeError,
  );
  assert.throws(() => softmaxBlockPlan(2000, { launch: general(100, "shfl-down") }), RangeError);
  assert.throws(
    () => softmaxBlockPlan(2000, { launch: general(128, "shfl-down"), shift: 4 }),
    RangeError,
  );
  assert.throws(() => softmaxBlockPlan(0, { launch: general(128, "shfl-down") }), RangeError);
});
