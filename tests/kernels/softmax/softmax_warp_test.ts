import assert from "node:assert/strict";
import { createSfu, divF32, F32_RN } from "../../../src/hardware/mod.ts";
import { cudaExpf, softmaxWarp } from "../../../src/kernels/mod.ts";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const ieee = createSfu({ mode: "ieee" });
const table = teslaSfu();
const logits = (n: number, seed: string) =>
  Uint32Array.from(synthBf16(seed, { label: "x", count: n, span: 5 }), (b) => (b << 16) >>> 0);

Deno.test("softmaxWarp() is within a few fp32 ulps of the real softmax (ieee SFU)", () => {
  for (const dim of [1, 3, 32, 33, 100, 128, 1000, 1024]) {
    const x = logits(dim * 3, `d${dim}`);
    const y = softmaxWarp(x, { dim, mufu: ieee });
    for (let r = 0; r < 3; r++) {
      const row = Array.from(x.subarray(r * dim, (r + 1) * dim), f32FromBits);
      const m = Math.max(...row);
      const z = row.reduce((s, v) => s + Math.exp(v - m), 0);
      row.forEach((v, i) => {
        const want = Math.exp(v - m) / z;
        const got = f32FromBits(y[r * dim + i]!);
        assert.ok(
          Math.abs(got - want) <= want * 2 ** -19 + 2 ** -140,
          `dim ${dim} row ${r} i ${i}: ${got} vs ${want}`,
        );
      });
    }
  }
});

Deno.test("softmaxWarp() sums per lane, then by xor butterfly: not a left-to-right sum", () => {
  let differs = 0;
  for (let trial = 0; trial < 40; trial++) {
    const dim = 96;
    const x = logits(dim, `order${trial}`);
    const y = softmaxWarp(x, { dim, mufu: table });
    const m = Math.max(...Array.from(x, f32FromBits));
    const e = Array.from(x, (v) => cudaExpf(bitsFromF32(Math.fround(f32FromBits(v) - m)), table));
    const seq = e.reduce((s, v) => F32_RN.add(s, v), 0);
    if (e.some((v, i) => divF32(v, seq) !== y[i])) differs++;
  }
  assert.ok(differs > 0, "the kernel's summation tree must be observable");
});

Deno.test("softmaxWarp() gives 0 for masked -inf logits and NaN for a fully masked row", () => {
  const ninf = 0xff800000;
  const y = softmaxWarp(new Uint32Array([0x3f800000, ninf, 0x3f800000, ninf, ninf, ninf]), {
    dim: 3,
    mufu: table,
  });
  assert.equal(y[1], 0);
  assert.equal(y[0], y[2]);
  assert.equal(y[3], 0x7fffffff);
});

Deno.test("softmaxWarp() refuses rows longer than the version's warp-kernel limit", () => {
  assert.throws(() => softmaxWarp(new Uint32Array(1025), { dim: 1025, mufu: ieee }), RangeError);
  assert.equal(
    softmaxWarp(new Uint32Array(2048), { dim: 2048, mufu: ieee, maxDim: 2048 }).length,
    2048,
  );
});
