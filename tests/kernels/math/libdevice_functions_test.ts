import assert from "node:assert/strict";
import {
  cudaCosf,
  cudaExp2f,
  cudaExpf,
  cudaLogf,
  cudaRsqrtf,
  cudaSinf,
  cudaTanhf,
  type Mufu,
  trigReduceF32,
} from "../../../src/kernels/math/mod.ts";
import { createSfu } from "../../../src/hardware/sfu/mod.ts";

const ieee: Mufu = createSfu({ mode: "ieee", ftz: true });
const f = new Float32Array(1);
const u = new Uint32Array(f.buffer);
const bits = (x: number) => (f[0] = x, u[0]!);
const val = (b: number) => (u[0] = b, f[0]!);

Deno.test("`cudaSinf()` and `cudaCosf()` give IEEE special values", () => {
  assert.equal(cudaSinf(0x80000000), 0x80000000);
  assert.equal(cudaSinf(0), 0);
  assert.equal(cudaCosf(0x80000000), 0x3f800000);
  for (const x of [0x7f800000, 0xff800000, 0x7fc00000]) {
    assert.equal(cudaSinf(x), 0x7fffffff);
    assert.equal(cudaCosf(x), 0x7fffffff);
  }
  assert.equal(cudaSinf(0x00000001), 0x00000001); // sin(tiny) = tiny
});

Deno.test("`cudaSinf()` stays within 2 ulp of Math.sin on both reduction paths", () => {
  for (let i = 0; i < 4000; i++) {
    const x = (Math.imul(i, 0x9e3779b1) >>> 0) & 0x7fffffff;
    if (x >= 0x7f800000) continue;
    const r = cudaSinf(x);
    const ulps = Math.abs((r | 0) - (bits(Math.sin(val(x))) | 0));
    assert.ok(ulps <= 2 || Math.abs(val(r)) < 1e-30, `x=0x${x.toString(16)}`);
  }
  assert.equal(trigReduceF32(0x7f7fffff).r === trigReduceF32(0x7f7fffff).r, true);
});

Deno.test("`cudaLogf()` gives IEEE special values", () => {
  assert.equal(cudaLogf(0x3f800000), 0);
  assert.equal(cudaLogf(0), 0xff800000);
  assert.equal(cudaLogf(0x7f800000), 0x7f800000);
  assert.equal(cudaLogf(0xff800000), 0x7fffffff);
  assert.equal(cudaLogf(0x7fc00000), 0x7fffffff);
  assert.equal(cudaLogf(0x00000001), bits(Math.fround(Math.log(2 ** -149))));
});

Deno.test("`cudaExpf()` is within 2 ulp of e^x with an IEEE MUFU and handles specials", () => {
  for (const x of [-87.5, -10, -1, -0.25, 0.5, 1, 3.75, 20, 88]) {
    const r = cudaExpf(bits(x), ieee);
    assert.ok(Math.abs(r - bits(Math.exp(Math.fround(x)))) <= 2, `expf(${x})`);
  }
  assert.equal(cudaExpf(0x7f800000, ieee), 0x7f800000);
  assert.equal(cudaExpf(0xff800000, ieee), 0);
  assert.equal(cudaExpf(0x7fc00000, ieee), 0x7fffffff);
  assert.equal(cudaExpf(bits(89), ieee), 0x7f800000);
});

Deno.test("`cudaTanhf()` follows both branches and keeps signs", () => {
  for (const x of [0.1, 0.59, 0.61, 1, 2.5, 9, 9.5]) {
    for (const s of [1, -1]) {
      const r = val(cudaTanhf(bits(s * x), ieee));
      assert.ok(Math.abs(r - Math.tanh(s * x)) <= 4e-7, `tanhf(${s * x})`);
    }
  }
  assert.equal(cudaTanhf(0x7f800000, ieee), 0x3f800000);
  assert.equal(cudaTanhf(0xff800000, ieee), 0xbf800000);
  assert.equal(cudaTanhf(0x7fc00000, ieee), 0x7fffffff);
});

Deno.test("`cudaExp2f()` and `cudaRsqrtf()` are the MUFU with subnormal handling", () => {
  assert.equal(cudaExp2f(bits(-149), ieee), 1); // 2^-149 through the squaring expansion
  assert.equal(cudaExp2f(bits(-130), ieee), bits(2 ** -130));
  assert.equal(cudaExp2f(bits(5), ieee), bits(32));
  assert.equal(cudaRsqrtf(0x00000001, ieee), bits(Math.fround(2 ** 74.5)));
  assert.equal(cudaRsqrtf(bits(0.25), ieee), bits(2));
});
