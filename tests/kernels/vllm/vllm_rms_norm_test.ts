import assert from "node:assert/strict";
import { vllmRmsNorm } from "../../../src/kernels/vllm/mod.ts";
import { REDUCE_STACK_CUDA_RECENT as stack, rmsNorm } from "../../../src/kernels/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";
import { bf16Row, bf16Value, exactSquaresRow } from "./_inputs.ts";

const sfu = teslaSfu();

/** float64 RMSNorm: x * w / sqrt(mean(x^2) + fl32(eps)). */
function reference(x: Uint16Array, w: Uint16Array, hidden: number, eps = 1e-6): number[] {
  const out: number[] = [];
  for (let r = 0; r < x.length / hidden; r++) {
    let s = 0;
    for (let i = 0; i < hidden; i++) s += bf16Value(x[r * hidden + i]!) ** 2;
    const scale = 1 / Math.sqrt(s / hidden + Math.fround(eps));
    for (let i = 0; i < hidden; i++) {
      out.push(bf16Value(x[r * hidden + i]!) * scale * bf16Value(w[i]!));
    }
  }
  return out;
}

Deno.test("`vllmRmsNorm()` stays within two BF16 roundings of the float64 RMSNorm", () => {
  // Two roundings to BF16 (2^-8 relative each) dominate; the FP32 sum, division and MUFU.RSQ add
  // a few 2^-23: |out - ref| <= 1.01 * 2^-7 |ref|.
  for (const hidden of [128, 2560]) {
    const x = bf16Row(3, 4 * hidden, 6);
    const w = bf16Row(4, hidden, 2);
    const got = vllmRmsNorm(x, { rows: 4, hidden, weight: w, mufu: sfu }).output;
    reference(x, w, hidden).forEach((ref, i) => {
      const err = Math.abs(bf16Value(got[i]!) - ref);
      assert.ok(err <= 1.01 * 2 ** -7 * Math.abs(ref), `hidden ${hidden} [${i}]: ${err}`);
    });
  }
});

Deno.test("`vllmRmsNorm()` launches min(hidden, 1024) threads", () => {
  const w = new Uint16Array(2048).fill(0x3f80);
  const one = (hidden: number) =>
    vllmRmsNorm(new Uint16Array(hidden), {
      rows: 1,
      hidden,
      weight: w.subarray(0, hidden),
      mufu: sfu,
    })
      .blockThreads;
  assert.deepEqual([one(100), one(1024), one(2048)], [100, 1024, 1024]);
});

Deno.test("`vllmRmsNorm()` equals HF's `rmsNorm()` bit for bit when the sums are exact and hidden is a power of two", () => {
  // Same BF16 casts and weight product; any tree gives the exact sum; sum / 4096 and
  // sum * fl32(1/4096) are the same exact scaling; MUFU.RSQ on a normal input either way.
  const hidden = 4096;
  const x = exactSquaresRow(11, 3 * hidden);
  const w = bf16Row(13, hidden, 1);
  const ours = vllmRmsNorm(x, { rows: 3, hidden, weight: w, mufu: sfu });
  const hf = rmsNorm(x, { rows: 3, hidden, weight: w, sfu, stack });
  assert.deepEqual(ours.sumsq, hf.sumsq);
  assert.deepEqual(ours.rstd, hf.rstd);
  assert.deepEqual(ours.output, hf.output);
});

Deno.test("`vllmRmsNorm()` differs from HF's `rmsNorm()` where sum / 2560 and sum * fl32(1/2560) differ", () => {
  // Witness (found by search): 3.5625, 656 twos, 3 ones, 3 halves, zeros; the sum of squares is
  // exact (0x45250710 = 2641.56...) in both. vLLM divides by 2560, HF multiplies by 0x39CCCCCD:
  // the scales differ by one ulp, and 3.5625 * scale rounds to different BF16 values.
  const hidden = 2560;
  const x = new Uint16Array(hidden);
  x[0] = 0x4064;
  x.fill(0x4000, 1, 657);
  x.fill(0x3f80, 657, 660);
  x.fill(0x3f00, 660, 663);
  const w = new Uint16Array(hidden).fill(0x3f80);
  const ours = vllmRmsNorm(x, { rows: 1, hidden, weight: w, mufu: sfu });
  const hf = rmsNorm(x, { rows: 1, hidden, weight: w, sfu, stack });
  assert.equal(ours.sumsq[0], 0x45250710);
  assert.equal(hf.sumsq[0], 0x45250710);
  assert.deepEqual([ours.rstd[0], hf.rstd[0]], [0x3f7c11f8, 0x3f7c11f7]);
  assert.deepEqual([ours.output[0], hf.output[0]], [0x4061, 0x4060]);
});

Deno.test("`vllmRmsNorm()` with `contract` fuses x * x + variance: it shows only in subnormal sums", () => {
  // hidden 3072: thread 0 sums x[0], x[1024], x[2048]; these squares are below 2^-126 and round
  // differently alone than fused into the running sum (GPU-only question which one nvcc emits).
  const hidden = 3072;
  const x = new Uint16Array(hidden);
  [x[0], x[1024], x[2048]] = [0x1b06, 0x1e7f, 0x1c94];
  const w = new Uint16Array(hidden).fill(0x3f80);
  const plain = vllmRmsNorm(x, { rows: 1, hidden, weight: w, mufu: sfu, eps: 0 });
  const fused = vllmRmsNorm(x, { rows: 1, hidden, weight: w, mufu: sfu, eps: 0, contract: true });
  assert.deepEqual([plain.sumsq[0], fused.sumsq[0]], [0x0001feb7, 0x0001feb8]);
  // With Qwen3's eps (1e-6) the scale, and so the output, cannot tell them apart.
  const a = vllmRmsNorm(x, { rows: 1, hidden, weight: w, mufu: sfu });
  const b = vllmRmsNorm(x, { rows: 1, hidden, weight: w, mufu: sfu, contract: true });
  assert.equal(a.rstd[0], b.rstd[0]);
  assert.deepEqual(a.output, b.output);
  // Normal squares are exact in FP32, so contraction changes nothing there.
  const y = bf16Row(21, 2 * hidden, 3);
  const c = vllmRmsNorm(y, { rows: 2, hidden, weight: w, mufu: sfu, contract: true });
  assert.deepEqual(c.output, vllmRmsNorm(y, { rows: 2, hidden, weight: w, mufu: sfu }).output);
});

Deno.test("`vllmRmsNorm()` keeps zero signs, subnormal inputs, and propagates NaN and infinity", () => {
  const hidden = 4;
  const w = Uint16Array.from([0x3f80, 0xbf80, 0x3f80, 0xbf80]);
  // Zeros: sum 0, scale rsqrt(eps); outputs are zeros with the sign of x * w.
  const z = vllmRmsNorm(Uint16Array.from([0x0000, 0x0000, 0x8000, 0x8000]), {
    rows: 1,
    hidden,
    weight: w,
    mufu: sfu,
  });
  assert.equal(z.sumsq[0], 0);
  assert.deepEqual(Array.from(z.output), [0x0000, 0x8000, 0x8000, 0x0000]);
  // A BF16 subnormal (2^-133) squares to 0 but is scaled by rsqrt(1e-6) ~ 1000, not flushed.
  const s = vllmRmsNorm(Uint16Array.from([0x0001, 0, 0, 0]), {
    rows: 1,
    hidden,
    weight: w,
    mufu: sfu,
  });
  const want = 2 ** -133 / Math.sqrt(Math.fround(1e-6));
  assert.ok(Math.abs(bf16Value(s.output[0]!) - want) <= 2 ** -7 * want, `${s.output[0]}`);
  // NaN anywhere in the row: every output is the BF16 NaN.
  const n = vllmRmsNorm(Uint16Array.from([0x3f80, 0x7fc0, 0, 0]), {
    rows: 1,
    hidden,
    weight: w,
    mufu: sfu,
  });
  assert.deepEqual(Array.from(n.output), [0x7fff, 0x7fff, 0x7fff, 0x7fff]);
  // +inf: the sum is inf, the scale rsqrt(inf) = +0; inf * 0 is NaN, finite * 0 a signed zero.
  const i = vllmRmsNorm(Uint16Array.from([0x7f80, 0x3f80, 0xbf80, 0]), {
    rows: 1,
    hidden,
    weight: w,
    mufu: sfu,
  });
  assert.deepEqual([i.sumsq[0], i.rstd[0]], [0x7f800000, 0]);
  assert.deepEqual(Array.from(i.output), [0x7fff, 0x8000, 0x8000, 0x8000]);
});

Deno.test("`vllmRmsNorm()` refuses wrong shapes", () => {
  const w = new Uint16Array(4);
  assert.throws(
    () => vllmRmsNorm(new Uint16Array(7), { rows: 2, hidden: 4, weight: w, mufu: sfu }),
    TypeError,
  );
  assert.throws(
    () =>
      vllmRmsNorm(new Uint16Array(8), {
        rows: 2,
        hidden: 4,
        weight: new Uint16Array(3),
        mufu: sfu,
      }),
    TypeError,
  );
  assert.throws(
    () => vllmRmsNorm(new Uint16Array(0), { rows: 0, hidden: 4, weight: w, mufu: sfu }),
    RangeError,
  );
});
