import assert from "node:assert/strict";
import { vllmFusedAddRmsNorm, vllmRmsNorm } from "../../../src/kernels/vllm/mod.ts";
import { addBf16, REDUCE_STACK_CUDA_RECENT as stack, rmsNorm } from "../../../src/kernels/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";
import { bf16Row, bf16Value, exactSquaresRow } from "./_inputs.ts";

const mufu = teslaSfu();
const ones = (n: number) => new Uint16Array(n).fill(0x3f80);

Deno.test("`vllmFusedAddRmsNorm()` writes back the BF16 residual sum that HF's residual add gives", () => {
  const hidden = 256;
  const x = bf16Row(1, 3 * hidden, 50);
  const residual = bf16Row(2, 3 * hidden, 50);
  const r = vllmFusedAddRmsNorm(x, { residual, rows: 3, hidden, weight: ones(hidden), mufu });
  assert.deepEqual(r.residual, addBf16(x, residual)); // __hadd2 = one rounding of the exact sum
  assert.equal(r.width, 8);
});

Deno.test("`vllmFusedAddRmsNorm()` stays within two BF16 roundings of the float64 norm of the rounded sum", () => {
  for (const hidden of [2560, 4096]) {
    const x = bf16Row(5, 2 * hidden, 4);
    const residual = bf16Row(6, 2 * hidden, 4);
    const w = bf16Row(7, hidden, 1);
    const r = vllmFusedAddRmsNorm(x, { residual, rows: 2, hidden, weight: w, mufu });
    for (let row = 0; row < 2; row++) {
      let s = 0;
      for (let i = 0; i < hidden; i++) s += bf16Value(r.residual[row * hidden + i]!) ** 2;
      const scale = 1 / Math.sqrt(s / hidden + Math.fround(1e-6));
      for (let i = 0; i < hidden; i++) {
        const ref = bf16Value(r.residual[row * hidden + i]!) * scale * bf16Value(w[i]!);
        const err = Math.abs(bf16Value(r.output[row * hidden + i]!) - ref);
        assert.ok(err <= 1.01 * 2 ** -7 * Math.abs(ref), `hidden ${hidden} [${row}, ${i}]`);
      }
    }
  }
});

Deno.test("`vllmFusedAddRmsNorm()` width 0 below 256 tokens equals `vllmRmsNorm()` of the rounded sum", () => {
  // Same strided scalar loop over min(hidden, 1024) threads, same reduction and epilogue.
  const hidden = 2560;
  const x = bf16Row(8, 2 * hidden, 3);
  const residual = bf16Row(9, 2 * hidden, 3);
  const w = bf16Row(10, hidden, 1);
  const fused = vllmFusedAddRmsNorm(x, { residual, rows: 2, hidden, weight: w, mufu, width: 0 });
  const plain = vllmRmsNorm(fused.residual, { rows: 2, hidden, weight: w, mufu });
  assert.deepEqual(fused.sumsq, plain.sumsq);
  assert.deepEqual(fused.output, plain.output);
});

Deno.test("`vllmFusedAddRmsNorm()` equals HF's residual add + `rmsNorm()` when the sums are exact and hidden is a power of two", () => {
  const hidden = 4096;
  const x = exactSquaresRow(11, 4 * hidden);
  const residual = exactSquaresRow(12, 4 * hidden);
  const w = bf16Row(13, hidden, 1);
  for (const numTokens of [4, 300]) {
    const ours = vllmFusedAddRmsNorm(x, { residual, rows: 4, hidden, weight: w, mufu, numTokens });
    const hf = rmsNorm(addBf16(x, residual), { rows: 4, hidden, weight: w, sfu: mufu, stack });
    assert.deepEqual(ours.sumsq, hf.sumsq);
    assert.deepEqual(ours.output, hf.output);
  }
});

Deno.test("`vllmFusedAddRmsNorm()` changes its reduction tree at 256 tokens (block 1024 -> 256)", () => {
  const hidden = 4096; // 512 vectors of 8: one per thread at 1024 threads, two at 256
  const x = new Uint16Array(hidden);
  x[0] = 0x4580; // 4096: square 2^24
  x[8 * 256] = 0x3f80; // vector 256
  x[8 * 257] = 0x3f80; // vector 257
  const o = { residual: new Uint16Array(hidden), rows: 1, hidden, weight: ones(hidden), mufu };
  const small = vllmFusedAddRmsNorm(x, { ...o, numTokens: 255 });
  const large = vllmFusedAddRmsNorm(x, { ...o, numTokens: 256 });
  assert.deepEqual([small.blockThreads, large.blockThreads], [1024, 256]);
  // 1024 threads: warp 8 pairs its two ones first (2), then 2^24 + 2. 256 threads: thread 0
  // holds 2^24 + 1 = 2^24 (tie to even), lane 1's one is lost the same way.
  assert.deepEqual([small.sumsq[0], large.sumsq[0]], [0x4b800001, 0x4b800000]);
  // The output too (witness found by search over seeded rows; element 318).
  const w = bf16Row(1, hidden, 1);
  const y = { residual: bf16Row(547, hidden, 4), rows: 1, hidden, weight: w, mufu };
  const a = vllmFusedAddRmsNorm(bf16Row(546, hidden, 4), { ...y, numTokens: 255 });
  const b = vllmFusedAddRmsNorm(bf16Row(546, hidden, 4), { ...y, numTokens: 256 });
  assert.deepEqual([a.sumsq[0], b.sumsq[0]], [0x4731f2fc, 0x4731f2fb]);
  assert.deepEqual([a.output[318], b.output[318]], [0xbebe, 0xbebf]);
});

Deno.test("`vllmFusedAddRmsNorm()` gives the same bits at 255 and 256 tokens when hidden is 2048", () => {
  // 256 vectors: at 1024 threads threads 256.. hold +0, so warps 0-7 and their fold are unchanged.
  const hidden = 2048;
  const x = bf16Row(30, 3 * hidden, 5);
  const o = {
    residual: bf16Row(31, 3 * hidden, 5),
    rows: 3,
    hidden,
    weight: bf16Row(32, hidden, 1),
    mufu,
  };
  const a = vllmFusedAddRmsNorm(x, { ...o, numTokens: 3 });
  const b = vllmFusedAddRmsNorm(x, { ...o, numTokens: 4000 });
  assert.deepEqual(a.sumsq, b.sumsq);
  assert.deepEqual(a.output, b.output);
});

Deno.test("`vllmFusedAddRmsNorm()` width 8 and width 0 sum the squares in different orders", () => {
  const hidden = 4096;
  const x = new Uint16Array(hidden);
  x[0] = 0x4580;
  x[8 * 256] = 0x3f80;
  x[8 * 257] = 0x3f80;
  const o = { residual: new Uint16Array(hidden), rows: 1, hidden, weight: ones(hidden), mufu };
  // Width 0: thread 0 holds x[0] and x[2048] (2^24 + 1 = 2^24), thread 8 holds x[2056]; lane 8
  // meets lane 0 in the shuffle tree: 2^24 + 1 = 2^24 again.
  assert.equal(vllmFusedAddRmsNorm(x, { ...o, width: 0 }).sumsq[0], 0x4b800000);
  assert.equal(vllmFusedAddRmsNorm(x, { ...o, width: 8 }).sumsq[0], 0x4b800001);
  const y = {
    residual: bf16Row(547, hidden, 4),
    rows: 1,
    hidden,
    weight: bf16Row(1, hidden, 1),
    mufu,
  };
  const a = vllmFusedAddRmsNorm(bf16Row(546, hidden, 4), { ...y, width: 8 });
  const b = vllmFusedAddRmsNorm(bf16Row(546, hidden, 4), { ...y, width: 0 });
  assert.deepEqual([a.sumsq[0], b.sumsq[0]], [0x4731f2fc, 0x4731f2f9]);
  assert.deepEqual([a.output[318], b.output[318]], [0xbebe, 0xbebf]);
});

Deno.test("`vllmFusedAddRmsNorm()` with `contract` fuses z.x*z.x + z.y*z.y: it shows only in subnormal sums", () => {
  const x = new Uint16Array(8);
  [x[0], x[1]] = [0x1c9c, 0x1ca5]; // squares below 2^-126
  const o = { residual: new Uint16Array(8), rows: 1, hidden: 8, weight: ones(8), mufu, eps: 0 };
  const plain = vllmFusedAddRmsNorm(x, o);
  const fused = vllmFusedAddRmsNorm(x, { ...o, contract: true });
  assert.deepEqual([plain.sumsq[0], fused.sumsq[0]], [0x64b, 0x64c]);
  const hidden = 2560;
  const y = bf16Row(40, 2 * hidden, 3);
  const p = { residual: bf16Row(41, 2 * hidden, 3), rows: 2, hidden, weight: ones(hidden), mufu };
  assert.deepEqual(
    vllmFusedAddRmsNorm(y, { ...p, contract: true }).output,
    vllmFusedAddRmsNorm(y, p).output,
  );
});

Deno.test("`vllmFusedAddRmsNorm()` propagates NaN and infinities through the residual", () => {
  const hidden = 8;
  const x = Uint16Array.from([0x7f80, 0x3f80, 0, 0, 0, 0, 0, 0]);
  const residual = Uint16Array.from([0xff80, 0x3f80, 0, 0, 0, 0, 0, 0]); // inf + -inf = NaN
  const r = vllmFusedAddRmsNorm(x, { residual, rows: 1, hidden, weight: ones(hidden), mufu });
  assert.equal(r.residual[0], 0x7fff);
  assert.equal(r.residual[1], 0x4000);
  assert.equal(r.sumsq[0], 0x7fffffff);
  assert.ok(r.output.every((v) => v === 0x7fff));
  // -0 + -0 stays -0 in the residual; +0 + -0 is +0.
  const z = vllmFusedAddRmsNorm(Uint16Array.from([0x8000, 0x8000, 0, 0, 0, 0, 0, 0]), {
    residual: Uint16Array.from([0x8000, 0, 0, 0, 0, 0, 0, 0]),
    rows: 1,
    hidden,
    weight: ones(hidden),
    mufu,
  });
  assert.deepEqual([z.residual[0], z.residual[1]], [0x8000, 0x0000]);
  assert.deepEqual([z.output[0], z.output[1]], [0x8000, 0x0000]);
});

Deno.test("`vllmFusedAddRmsNorm()` refuses a bad variant, launch size or residual", () => {
  const o = { residual: new Uint16Array(12), rows: 1, hidden: 12, weight: ones(12), mufu };
  assert.equal(vllmFusedAddRmsNorm(new Uint16Array(12), o).width, 0); // 12 % 8 != 0
  assert.throws(() => vllmFusedAddRmsNorm(new Uint16Array(12), { ...o, width: 8 }), RangeError);
  assert.throws(() => vllmFusedAddRmsNorm(new Uint16Array(12), { ...o, numTokens: 0 }), RangeError);
  assert.throws(
    () => vllmFusedAddRmsNorm(new Uint16Array(12), { ...o, residual: new Uint16Array(11) }),
    TypeError,
  );
});
