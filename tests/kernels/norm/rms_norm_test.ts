import assert from "node:assert/strict";
import { createSfu, decodeSfuTables, type Sfu } from "../../../src/hardware/mod.ts";
import { BF16, bitsFromF32, convert, f32FromBits, FP32 } from "../../../src/numerics/mod.ts";
import {
  executePlan,
  pytorchReducePlan,
  REDUCE_STACK_CUDA_RECENT as stack,
} from "../../../src/kernels/reduce/mod.ts";
import { rmsNorm } from "../../../src/kernels/norm/mod.ts";

const tables = decodeSfuTables(
  await Deno.readFile(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
);
const SFUS: Sfu[] = [createSfu({ mode: "tesla-table", tables }), createSfu({ mode: "ieee" })];

/** Deterministic BF16 activations of mixed magnitude. */
function activations(n: number, seed: number): Uint16Array {
  let s = seed;
  return Uint16Array.from({ length: n }, () => {
    s = (s * 1103515245 + 12345) >>> 0;
    const v = ((s >>> 8) / 2 ** 24 - 0.5) * 2 ** ((s & 7) - 2);
    return convert(FP32, BF16, bitsFromF32(v));
  });
}
const bf = (b: number) => f32FromBits(b << 16);

/** Checks every stage of rmsNorm against the spec's formulas through independent rounding. */
function checkReference(
  x: Uint16Array,
  weight: Uint16Array,
  o: { rows: number; hidden: number; sfu: Sfu },
): void {
  const { rows, hidden, sfu } = o;
  const eps = Math.fround(1e-6);
  const r = rmsNorm(x, { rows, hidden, weight, sfu, stack });
  assert.equal(r.rsqrtStatus, sfu.status.functions.rsqrt);
  const plan = pytorchReducePlan({ outputs: rows, length: hidden }, { stack });
  for (let m = 0; m < rows; m++) {
    const sq = Uint32Array.from(
      x.subarray(m * hidden, (m + 1) * hidden),
      (b) => bitsFromF32(bf(b) * bf(b)),
    );
    assert.equal(r.sumsq[m], executePlan(plan, sq));
    const v = Math.fround(f32FromBits(r.sumsq[m]!) * f32FromBits(r.factor));
    assert.equal(r.variance[m], bitsFromF32(v));
    assert.equal(r.rstd[m], sfu.rsqrt(bitsFromF32(v + eps)));
    for (let j = 0; j < hidden; j++) {
      // Generic (SoftFloat-layer) rounding as the independent path: n -> bf16, w * nb -> bf16.
      const nb = convert(
        FP32,
        BF16,
        bitsFromF32(bf(x[m * hidden + j]!) * f32FromBits(r.rstd[m]!)),
      );
      const want = convert(FP32, BF16, bitsFromF32(bf(weight[j]!) * bf(nb)));
      assert.equal(r.output[m * hidden + j], want, `row ${m} column ${j}`);
    }
  }
}

Deno.test("`rmsNorm()` follows the spec's cast points in both SFU modes (H = 2560)", () => {
  const rows = 3;
  const hidden = 2560;
  const x = activations(rows * hidden, 7);
  const weight = activations(hidden, 99);
  for (const sfu of SFUS) {
    assert.equal(rmsNorm(x, { rows, hidden, weight, sfu, stack }).factor, 0x39cccccd);
    checkReference(x, weight, { rows, hidden, sfu });
  }
  assert.equal(SFUS[0]!.status.functions.rsqrt.status, "histogram-matched");
  assert.equal(SFUS[1]!.status.functions.rsqrt.status, "ieee-exact");
});

Deno.test("`rmsNorm()` follows the spec's formulas on NaN, infinite, subnormal, huge and zero rows", () => {
  const hidden = 128;
  const special = [0x7fc0, 0x7f81, 0xffc1, 0x7f80, 0xff80, 0, 0x8000, 1, 0x8001, 0x007f, 0x7f7f];
  const rows: Uint16Array[] = [
    ...special.map((b, i) => {
      const row = activations(hidden, 11 + i);
      row[(i * 37) % hidden] = b; // one special element in an ordinary row
      return row;
    }),
    new Uint16Array(hidden), // all +0: variance 0, rstd of eps
    new Uint16Array(hidden).fill(0x8000), // all -0
    new Uint16Array(hidden).fill(0x7f7f), // squares overflow to infinity
    new Uint16Array(hidden).fill(0x0001), // subnormal bf16 everywhere
    Uint16Array.from({ length: hidden }, (_, j) => (j % 2 ? 0x7f80 : 0xff80)), // inf - inf
  ];
  const x = new Uint16Array(rows.length * hidden);
  rows.forEach((r, i) => x.set(r, i * hidden));
  const weight = activations(hidden, 5);
  weight[3] = 0x7fc0; // a NaN weight
  weight[4] = 0; // a zero weight (times infinity: NaN)
  for (const sfu of SFUS) checkReference(x, weight, { rows: rows.length, hidden, sfu });
});

Deno.test("`rmsNorm()` takes torch.rsqrt's subnormal path: an epsilon below 2^-126 leaves a zero row zero (the FTZ MUFU gave NaN)", () => {
  const hidden = 4;
  const weight = new Uint16Array(hidden).fill(0x3f80);
  for (const sfu of SFUS) {
    // var = 0, t = fl32(1e-40), subnormal: rsqrt.approx.f32 scales it by 2^24, runs MUFU.RSQ and
    // scales the result by 2^12 (finite), where rsqrt.approx.ftz.f32 flushes t to 0 (infinity).
    const zero = rmsNorm(new Uint16Array(hidden), {
      rows: 1,
      hidden,
      weight,
      sfu,
      stack,
      eps: 1e-40,
    });
    const t = bitsFromF32(Math.fround(1e-40));
    assert.ok(t > 0 && t < 0x00800000);
    const want = bitsFromF32(
      Math.fround(f32FromBits(sfu.rsqrt(bitsFromF32(f32FromBits(t) * 2 ** 24))) * 4096),
    );
    assert.equal(zero.rstd[0], want);
    assert.ok(Number.isFinite(f32FromBits(zero.rstd[0]!)));
    assert.deepEqual([...zero.output], [0, 0, 0, 0]);
    // An epsilon that rounds to 0 in FP32 on a row of tiny values: a subnormal variance, scaled.
    const tiny = Uint16Array.from([0x1d80, 0x1d80, 0x9d80, 0x1d80]);
    const r = rmsNorm(tiny, { rows: 1, hidden, weight, sfu, stack, eps: 1e-50 });
    assert.deepEqual([...r.output], [0x3f80, 0x3f80, 0xbf80, 0x3f80]);
  }
});

Deno.test("`rmsNorm()` gives var = 1 and bf16(r) for a row of ones (H = 2560, hand-derived)", () => {
  // sumsq = 2560 exactly; 2560 * 0x39CCCCCD = (2^26 + 1) * 2^-26 rounds to 1.0; t = 1 + fl32(1e-6).
  const x = new Uint16Array(2560).fill(0x3f80);
  const weight = new Uint16Array(2560).fill(0x3f80);
  for (const sfu of SFUS) {
    const r = rmsNorm(x, { rows: 1, hidden: 2560, weight, sfu, stack });
    assert.equal(r.sumsq[0], bitsFromF32(2560));
    assert.equal(r.variance[0], 0x3f800000);
    assert.equal(r.rstd[0], sfu.rsqrt(bitsFromF32(1 + Math.fround(1e-6))));
    assert.equal(r.output[0], convert(FP32, BF16, r.rstd[0]!));
  }
});

Deno.test("`rmsNorm()` tesla-table and ieee modes differ on some rows", () => {
  const rows = 64;
  const x = activations(rows * 128, 3);
  const weight = new Uint16Array(128).fill(0x3f80);
  const [a, b] = SFUS.map((sfu) => rmsNorm(x, { rows, hidden: 128, weight, sfu, stack }));
  assert.deepEqual(a!.sumsq, b!.sumsq);
  assert.ok(a!.rstd.some((v, i) => v !== b!.rstd[i]));
});

Deno.test("`rmsNorm()` throws TypeError on mismatched shapes", () => {
  const sfu = SFUS[1]!;
  const w = new Uint16Array(4);
  assert.throws(
    () => rmsNorm(new Uint16Array(7), { rows: 2, hidden: 4, weight: w, sfu, stack }),
    TypeError,
  );
  assert.throws(
    () =>
      rmsNorm(new Uint16Array(8), { rows: 2, hidden: 4, weight: new Uint16Array(3), sfu, stack }),
    TypeError,
  );
});
