import assert from "node:assert/strict";
import { cudaPowf } from "../../../src/kernels/vllm/mod.ts";
import { createSfu } from "../../../src/hardware/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";
import { f32Bits, f32Value, ulp32 } from "./_inputs.ts";

/** Produced by the `__nv_powf` CPU oracle; see fixtures/README.md. */
const F = JSON.parse(
  Deno.readTextFileSync(new URL("./fixtures/powf_oracle_sample.json", import.meta.url)),
) as { rope_pairs: number; pairs: string[]; powf: string[] };
const PAIRS = F.pairs.map((p) => p.split(" ").map((h) => parseInt(h, 16)) as [number, number]);
const mufu = teslaSfu();

Deno.test("`cudaPowf()` matches the libdevice oracle sample with the Tesla SFU model", () => {
  assert.equal(PAIRS.length, F.powf.length);
  PAIRS.forEach(([a, b], i) => {
    const want = parseInt(F.powf[i]!, 16);
    const got = cudaPowf(a, b, { mufu });
    if (got !== want) {
      assert.fail(`powf(0x${a.toString(16)}, 0x${b.toString(16)}) = ${got}, want ${want}`);
    }
  });
});

Deno.test("`cudaPowf()` gives RoPE's powers the same bits with the Tesla or the IEEE reciprocal", () => {
  // The inline rcp.approx.ftz of the log step is corrected by the following FMAs: on these inputs
  // the result does not rest on the MUFU.RCP model at all.
  const ieee = createSfu({ mode: "ieee", ftz: true });
  for (const [a, b] of PAIRS.slice(0, F.rope_pairs)) {
    assert.equal(cudaPowf(a, b, { mufu }), cudaPowf(a, b, { mufu: ieee }));
  }
});

Deno.test("`cudaPowf()` stays within one ulp of the float64 power", () => {
  // Measured maximum on 200,000 pseudo-random pairs: 0.85 ulp.
  let s = 3;
  const next = () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0);
  for (let i = 0; i < 20000; i++) {
    const a = ((100 + (next() % 55)) << 23 | (next() & 0x7fffff)) >>> 0;
    const b = (((next() & 1) << 31) | ((110 + (next() % 20)) << 23) | (next() & 0x7fffff)) >>> 0;
    const ref = Math.pow(f32Value(a), f32Value(b));
    if (!(Math.abs(ref) >= 2 ** -126 && Math.abs(ref) < 3e38)) continue;
    const err = Math.abs(f32Value(cudaPowf(a, b, { mufu })) - ref) / ulp32(ref);
    assert.ok(err <= 1, `powf(0x${a.toString(16)}, 0x${b.toString(16)}): ${err} ulp`);
  }
});

Deno.test("`cudaPowf()` follows C99 Annex F on special operands", () => {
  const p = (a: number, b: number) => cudaPowf(f32Bits(a), f32Bits(b), { mufu });
  const NAN = 0x7fffffff;
  const cases: [number, number, number][] = [
    [NaN, 0, 0x3f800000], // pow(x, +-0) = 1 for any x
    [1, NaN, 0x3f800000], // pow(+1, y) = 1 for any y
    [NaN, 2, NAN],
    [2, NaN, NAN],
    [-1, Infinity, 0x3f800000],
    [-1, -Infinity, 0x3f800000],
    [0.5, Infinity, 0],
    [0.5, -Infinity, 0x7f800000],
    [2, -Infinity, 0],
    [-0, -3, 0xff800000], // odd negative power of -0: -inf
    [-0, -2, 0x7f800000],
    [0, -0.5, 0x7f800000],
    [-0, 3, 0x80000000],
    [-0, 2, 0],
    [-Infinity, 3, 0xff800000],
    [-Infinity, -3, 0x80000000],
    [-Infinity, 2, 0x7f800000],
    [Infinity, -1, 0],
    [-2, 3, 0xc1000000], // -8
    [-2, 0.5, NAN], // negative base, non-integer exponent
    [2, 128, 0x7f800000], // overflow
    [2, -149, 0x00000001], // the smallest subnormal, exactly
    [2, -150, 0], // underflow
    [1e6, 0.5, 0x447a0000], // 1000
  ];
  for (const [a, b, want] of cases) assert.equal(p(a, b), want, `powf(${a}, ${b})`);
  assert.equal(cudaPowf(0x00000001, 0x3f000000, { mufu }), f32Bits(2 ** -74.5)); // subnormal base
});

Deno.test("`cudaPowf()` with `contract` fuses the log step's f - 2f*r: a GPU must settle which nvcc emits", () => {
  // RoPE base 10,000, d = 128, i = 50: t = 100/128.
  const base = f32Bits(10000);
  const t = f32Bits(100 / 128);
  assert.equal(cudaPowf(base, t, { mufu }), 0x44a6b0af);
  assert.equal(cudaPowf(base, t, { mufu, contract: true }), 0x44a6b0b0);
  // Qwen3's base 1,000,000 with d = 128: both forms agree on all 64 exponents.
  for (let i = 0; i < 64; i++) {
    const e = f32Bits((2 * i) / 128);
    const b = f32Bits(1e6);
    assert.equal(cudaPowf(b, e, { mufu }), cudaPowf(b, e, { mufu, contract: true }), `i ${i}`);
  }
});
