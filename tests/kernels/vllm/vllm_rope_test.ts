import assert from "node:assert/strict";
import {
  vllmCosSinCache,
  vllmRopeInvFreq,
  vllmRotaryEmbedding,
} from "../../../src/kernels/vllm/mod.ts";
import { applyRope, ropeInvFreq, ropeTables } from "../../../src/kernels/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";
import { bf16Row, bf16Value, f32Value } from "./_inputs.ts";

const mufu = teslaSfu();
const QWEN3 = { base: 1_000_000, mufu };

Deno.test("`vllmRopeInvFreq()` stays within 2^-22 (relative) of the float64 base^-t of its FP32 exponent", () => {
  // t = fl32(2i * fl32(1/d)) is exact for a power-of-two d (not for d = 80).
  for (const [base, d] of [[1e6, 128], [1e4, 64], [5e5, 128], [1e4, 80]] as const) {
    const inv = vllmRopeInvFreq(d, { base, mufu });
    inv.forEach((bits, i) => {
      const ref = Math.pow(base, -Math.fround(2 * i * Math.fround(1 / d)));
      assert.ok(Math.abs(f32Value(bits) - ref) <= 2 ** -22 * ref, `base ${base} d ${d} i ${i}`);
    });
  }
});

Deno.test("`vllmRopeInvFreq()` differs from HF's host `inv_freq` in the last bit for Qwen3 (GPU powf)", () => {
  // HF computes powf on the CPU (SLEEF's vectorised powf); vLLM with CUDA's powf on the GPU.
  // Entry 37, where SLEEF is one ulp off the correctly rounded powf, agrees with CUDA's.
  const gpu = vllmRopeInvFreq(128, QWEN3);
  const host = ropeInvFreq(128, { theta: 1_000_000 });
  const differ = [...gpu.keys()].filter((i) => gpu[i] !== host[i]);
  assert.deepEqual(differ, [18, 50]);
  assert.deepEqual([gpu[18], host[18]], [0x3ca8398a, 0x3ca8398b]);
  assert.deepEqual([gpu[37], host[37]], [0x39b229fb, 0x39b229fb]);
});

Deno.test("`vllmCosSinCache()` equals HF's `ropeTables()` given the same `inv_freq`", () => {
  // Same FP32 product p * inv_freq, libdevice cosf/sinf and BF16 cast: must agree.
  const inv = vllmRopeInvFreq(128, QWEN3);
  const positions = [0, 1, 2, 7, 459, 1000, 4095, 32767, 40959];
  const cache = vllmCosSinCache(inv, positions);
  const hf = ropeTables(inv, positions);
  positions.forEach((_, r) => {
    for (let i = 0; i < 64; i++) {
      assert.equal(cache.data[128 * r + i], hf.cos[128 * r + i], `cos row ${r} i ${i}`);
      assert.equal(cache.data[128 * r + 64 + i], hf.sin[128 * r + i], `sin row ${r} i ${i}`);
    }
  });
});

Deno.test("`vllmCosSinCache()` differs from HF's tables at position 459 for Qwen3 (through inv_freq[18])", () => {
  const cache = vllmCosSinCache(vllmRopeInvFreq(128, QWEN3), [459]);
  const hf = ropeTables(ropeInvFreq(128, { theta: 1_000_000 }), [459]);
  assert.deepEqual([cache.data[64 + 18], hf.sin[18]], [0xba6c, 0xba6d]);
});

Deno.test("`vllmCosSinCache()` stays within half a BF16 ulp of the float64 cos/sin of the FP32 angle", () => {
  const inv = vllmRopeInvFreq(64, { base: 10000, mufu });
  const positions = [0, 3, 100, 2048, 65535, 1_000_000];
  const cache = vllmCosSinCache(inv, positions);
  positions.forEach((p, r) => {
    for (let i = 0; i < 32; i++) {
      const angle = Math.fround(p * f32Value(inv[i]!));
      // |v| <= 1: a BF16 rounding moves it by at most 2^-9; libdevice adds ~2^-24.
      const c = Math.abs(bf16Value(cache.data[64 * r + i]!) - Math.cos(angle));
      const s = Math.abs(bf16Value(cache.data[64 * r + 32 + i]!) - Math.sin(angle));
      assert.ok(c <= 2 ** -9 + 2 ** -22 && s <= 2 ** -9 + 2 ** -22, `p ${p} i ${i}: ${c} ${s}`);
    }
  });
});

Deno.test("`vllmRotaryEmbedding()` (neox) equals HF's rotate-half `applyRope()` bit for bit", () => {
  const inv = vllmRopeInvFreq(128, QWEN3);
  const positions = [0, 5, 459, 3000];
  const cache = vllmCosSinCache(inv, positions);
  const q = bf16Row(1, positions.length * 4 * 128, 8);
  const ours = vllmRotaryEmbedding(q, { cache, heads: 4, headSize: 128 });
  assert.deepEqual(ours, applyRope(q, { tables: ropeTables(inv, positions), heads: 4 }));
});

Deno.test("`vllmRotaryEmbedding()` stays within the BF16 rounding bound of the float64 rotation", () => {
  const cache = vllmCosSinCache(vllmRopeInvFreq(64, { base: 10000, mufu }), [17, 1234]);
  const x = bf16Row(2, 2 * 3 * 64, 4);
  const out = vllmRotaryEmbedding(x, { cache, heads: 3, headSize: 64 });
  for (let t = 0; t < 2; t++) {
    for (let h = 0; h < 3; h++) {
      const base = (t * 3 + h) * 64;
      for (let r = 0; r < 32; r++) {
        const c = bf16Value(cache.data[64 * t + r]!);
        const s = bf16Value(cache.data[64 * t + 32 + r]!);
        const a = bf16Value(x[base + r]!);
        const b = bf16Value(x[base + 32 + r]!);
        // Each product rounded to BF16 (2^-8 relative), then the sum: |err| <= 2^-8 (|ac| + |bs|)
        // + 2^-8 |result| (with a little slack).
        for (
          const [got, ref, mag] of [
            [out[base + r]!, a * c - b * s, Math.abs(a * c) + Math.abs(b * s)],
            [out[base + 32 + r]!, b * c + a * s, Math.abs(b * c) + Math.abs(a * s)],
          ] as const
        ) {
          const err = Math.abs(bf16Value(got) - ref);
          assert.ok(err <= 1.01 * 2 ** -8 * (mag + Math.abs(ref)), `t ${t} h ${h} r ${r}`);
        }
      }
    }
  }
});

Deno.test("`vllmRotaryEmbedding()` GPT-J pairs are neox pairs of the interleaved layout; dims past rotary_dim stay", () => {
  const cache = vllmCosSinCache(vllmRopeInvFreq(32, { base: 10000, mufu }), [9, 300]);
  const headSize = 40; // rotary_dim 32 < head_size: the last 8 values pass through
  const x = bf16Row(3, 2 * 2 * headSize, 4);
  // GPT-J rotates (2r, 2r+1); neox rotates (r, 16 + r). Permute each head so they coincide.
  const perm = [
    ...Array.from({ length: 16 }, (_, r) => 2 * r),
    ...Array.from({ length: 16 }, (_, r) => 2 * r + 1),
  ];
  const permuted = x.slice();
  for (let h = 0; h < 4; h++) {
    perm.forEach((p, j) => (permuted[h * headSize + j] = x[h * headSize + p]!));
  }
  const gptj = vllmRotaryEmbedding(x, { cache, heads: 2, headSize, neox: false });
  const neox = vllmRotaryEmbedding(permuted, { cache, heads: 2, headSize });
  for (let h = 0; h < 4; h++) {
    perm.forEach((p, j) => assert.equal(gptj[h * headSize + p], neox[h * headSize + j]));
    for (let j = 32; j < headSize; j++) assert.equal(gptj[h * headSize + j], x[h * headSize + j]);
  }
});

Deno.test("`vllmRotaryEmbedding()` keeps the kernel's zero signs and NaN pairs", () => {
  const cache = vllmCosSinCache(new Uint32Array([0x3f800000]), [0, 2]); // cos 1, sin +0 at row 0
  // Row 0: x = -0, y = -1: x*1 - (-1)*(+0) = -0 - (-0) = +0; y*1 + x*0 = -1 + -0 = -1.
  const z = vllmRotaryEmbedding(new Uint16Array([0x8000, 0xbf80]), {
    cache,
    heads: 1,
    headSize: 2,
  });
  assert.deepEqual(Array.from(z), [0x0000, 0xbf80]);
  // A NaN spreads to its pair partner only; other heads keep their values.
  const n = vllmRotaryEmbedding(new Uint16Array([0x7fc0, 0x3f80, 0x3f80, 0x3f80]), {
    cache,
    heads: 2,
    headSize: 2,
    rows: [1],
  });
  assert.deepEqual([n[0], n[1]], [0x7fff, 0x7fff]);
  assert.ok(n[2] !== 0x7fff && n[3] !== 0x7fff);
});

Deno.test("`vllmRopeInvFreq()`, `vllmCosSinCache()` and `vllmRotaryEmbedding()` refuse bad shapes", () => {
  assert.throws(() => vllmRopeInvFreq(127, QWEN3), RangeError);
  assert.throws(() => vllmRopeInvFreq(128, { base: -1, mufu }), RangeError);
  assert.throws(() => vllmCosSinCache(new Uint32Array(2), [-1]), RangeError);
  const cache = vllmCosSinCache(new Uint32Array(2), [0]);
  assert.throws(
    () => vllmRotaryEmbedding(new Uint16Array(8), { cache, heads: 1, headSize: 2 }),
    RangeError,
  );
  assert.throws(
    () => vllmRotaryEmbedding(new Uint16Array(16), { cache, heads: 2, headSize: 4 }),
    RangeError,
  ); // token 1: no row 1
  assert.throws(
    () => vllmRotaryEmbedding(new Uint16Array(8), { cache, heads: 2, headSize: 4, rows: [1] }),
    RangeError,
  );
});
