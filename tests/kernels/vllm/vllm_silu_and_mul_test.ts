import assert from "node:assert/strict";
import { vllmSiluAndMul } from "../../../src/kernels/vllm/mod.ts";
import { cudaExpf, mulBf16, siluBf16 } from "../../../src/kernels/mod.ts";
import { addF32, divF32, mulF32 } from "../../../src/hardware/mod.ts";
import { fp32ToBf16 } from "../../../src/numerics/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";
import { bf16Row, bf16Value } from "./_inputs.ts";

const mufu = teslaSfu();

/** [tokens, 2d] rows from separate gate and up halves. */
function interleave(gate: Uint16Array, up: Uint16Array, d: number): Uint16Array {
  const out = new Uint16Array(2 * gate.length);
  for (let t = 0; t < gate.length / d; t++) {
    out.set(gate.subarray(t * d, (t + 1) * d), 2 * d * t);
    out.set(up.subarray(t * d, (t + 1) * d), 2 * d * t + d);
  }
  return out;
}

Deno.test("`vllmSiluAndMul()` computes the kernel's expression, and PyTorch's SiLU * up, on every gate pattern", () => {
  // activation_kernels.cu:37 and :16 written out with the FP32 unit: the negation, libdevice expf
  // (its final multiply not fused with the 1.0f +), IEEE add and division, the BF16 cast, then
  // c10's BF16 product (FP32 multiply, BF16 cast).
  const d = 256;
  const gate = Uint16Array.from({ length: 1 << 16 }, (_, i) => i);
  const up = bf16Row(1, 1 << 16, 8);
  const got = vllmSiluAndMul(interleave(gate, up, d), { d, mufu });
  gate.forEach((g, i) => {
    const x = (g << 16) >>> 0;
    const silu = fp32ToBf16(divF32(x, addF32(0x3f800000, cudaExpf((x ^ 0x80000000) >>> 0, mufu))));
    const want = fp32ToBf16(mulF32((silu << 16) >>> 0, (up[i]! << 16) >>> 0));
    if (got[i] !== want) assert.fail(`gate 0x${g.toString(16)}: ${got[i]} vs ${want}`);
  });
  // The same bits as HF's eager MLP on the PyTorch side (`F.silu(gate) * up`): must agree.
  assert.deepEqual(got, mulBf16(siluBf16(gate, { mufu }), up));
});

Deno.test("`vllmSiluAndMul()` stays within two BF16 roundings of the float64 silu(x) * y", () => {
  const d = 512;
  const gate = bf16Row(2, 4 * d, 12);
  const up = bf16Row(3, 4 * d, 4);
  const got = vllmSiluAndMul(interleave(gate, up, d), { d, mufu });
  for (let i = 0; i < gate.length; i++) {
    const x = bf16Value(gate[i]!);
    const ref = (x / (1 + Math.exp(-x))) * bf16Value(up[i]!);
    const err = Math.abs(bf16Value(got[i]!) - ref);
    assert.ok(err <= 1.01 * 2 ** -7 * Math.abs(ref) + 2 ** -133, `[${i}] ${err}`);
  }
});

Deno.test("`vllmSiluAndMul()` handles zeros, subnormals, infinities and NaN as the kernel computes them", () => {
  const one = 0x3f80;
  const cases: [number, number, number][] = [
    [0x0000, one, 0x0000], // 0 / 2 = 0
    [0x8000, one, 0x8000], // -0 / 2 = -0
    [0x0003, one, 0x0002], // 3 * 2^-133 / 2 = 1.5 * 2^-133: a tie, to the even 2 * 2^-133
    [0x7f80, one, 0x7f80], // inf / (1 + 0) = inf
    [0xff80, one, 0x7fff], // -inf / (1 + inf) = NaN
    [0xc2c8, one, 0x8000], // -100: expf(100) = inf, -100 / inf = -0
    [0x7fc0, one, 0x7fff], // NaN
    [0x3f80, 0x7f80, 0x7f80], // silu(1) * inf
    [0x0000, 0x7f80, 0x7fff], // 0 * inf = NaN
  ];
  const input = new Uint16Array(cases.flatMap(([g, u]) => [g, u]));
  const got = vllmSiluAndMul(input, { d: 1, mufu });
  cases.forEach(([g, u, want], i) => {
    assert.equal(got[i], want, `silu(0x${g.toString(16)}) * 0x${u.toString(16)}`);
  });
});

Deno.test("`vllmSiluAndMul()` refuses an input that is not whole rows of 2d", () => {
  assert.throws(() => vllmSiluAndMul(new Uint16Array(6), { d: 2, mufu }), RangeError);
  assert.throws(() => vllmSiluAndMul(new Uint16Array(4), { d: 0, mufu }), RangeError);
  assert.equal(vllmSiluAndMul(new Uint16Array(0), { d: 3, mufu }).length, 0);
});
