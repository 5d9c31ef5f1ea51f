/**
 * vLLM's Triton `fused_moe_kernel` multiplies the FP32 accumulator of the down GEMM by the
 * routing weight before its one cast to BF16 (`if MUL_ROUTED_WEIGHT: accumulator = accumulator *
 * moe_weight[:, None]`, then `accumulator.to(compute_type)`; vLLM c3124680
 * `vllm/model_executor/layers/fused_moe/fused_moe.py`, lines 466-479). The experts here have
 * GEMMs with one or two non-zero terms per output (exact on any K-walk) and a down projection
 * whose FP32 sums are not BF16 values, so the test writes the expert path literally and the
 * weight applied to bf16(acc) gives other bits.
 */
import assert from "node:assert/strict";
import { addBf16, vllmSiluAndMul } from "../../../src/kernels/mod.ts";
import { bitsFromF32, f32FromBits, fp32ToBf16 } from "../../../src/numerics/mod.ts";
import { normRows } from "../../../src/model/decoder/mod.ts";
import { runFusedMoeBlock } from "../../../src/model/forward/fused_moe_block.ts";
import { H, M, moeLayer } from "./_moe_fixture.ts";

const E = 6, K = 2;
const bf = (v: number) => f32FromBits(((v & 0xffff) << 16) >>> 0); // BF16 pattern -> number
const toBf16 = (v: number) => fp32ToBf16(bitsFromF32(v)); // number (an FP32 value) -> BF16

Deno.test("runFusedMoeBlock(): the routing weight multiplies the down GEMM's FP32 accumulator before the one BF16 cast (Triton MUL_ROUTED_WEIGHT)", async () => {
  // Experts: gate picks h[j] * 2^(e % 3), up picks h[(j + e) % H] * 2^-(e % 2), down sums
  // a[j] + a[j + 1]. x at 2^-20 (the norm scales it back up; eps below its mean square).
  const { x, layer } = moeLayer("fused-moe", {
    experts: E,
    topK: K,
    shape: { upPeriod: 2, downPair: true },
  });
  const rt = layer.runtime;
  const launchRows = new Int32Array(M).fill(M);
  const o = { ...layer, normKernel: "vllm-fused-add-rms-norm" as const, launchRows };
  const got = await runFusedMoeBlock(x, o);
  const { experts, weights } = got.routing;
  const h = normRows(x, {
    width: H,
    perRow: 1,
    weight: o.norm,
    runtime: rt,
    stack: o.reduceStack,
    eps: o.eps,
    launchRows,
    kernel: o.normKernel,
  });
  for (const b of h) assert.ok(((b >> 7) & 0xff) > 8 && ((b >> 7) & 0xff) < 240);
  // Literal per (token, slot): g|u exact, a = silu_and_mul(g|u), acc = a[j] + a[j+1] (exact in
  // FP32), o = bf16(fl32(acc * w)); moe_sum (top-2): y = bf16(fl32(o0 + o1)); x' = bf16(x + y).
  const literal = (weightOfAcc: (acc: number) => number) => {
    const y = new Uint16Array(M * H);
    let exactAccNotBf16 = 0;
    for (let t = 0; t < M; t++) {
      const outs: Uint16Array[] = [];
      for (let s = 0; s < K; s++) {
        const e = experts[t * K + s]!;
        const gu = new Uint16Array(2 * H);
        for (let j = 0; j < H; j++) {
          gu[j] = h[t * H + j]! + ((e % 3) << 7);
          gu[H + j] = h[t * H + ((j + e) % H)]! - ((e % 2) << 7);
        }
        const a = vllmSiluAndMul(gu, { d: H, mufu: rt.sfu });
        const w = f32FromBits(weights[t * K + s]!);
        outs.push(Uint16Array.from({ length: H }, (_, j) => {
          const acc = bf(a[j]!) + bf(a[(j + 1) % H]!);
          assert.equal(Math.fround(acc), acc, "the down GEMM's sum is exact");
          if (bf(toBf16(acc)) !== acc) exactAccNotBf16++;
          return toBf16(Math.fround(weightOfAcc(acc) * w));
        }));
      }
      for (let j = 0; j < H; j++) {
        y[t * H + j] = toBf16(Math.fround(bf(toBf16(0 + bf(outs[0]![j]!))) + bf(outs[1]![j]!)));
      }
    }
    assert.ok(exactAccNotBf16 > 0);
    return Array.from(addBf16(x, y));
  };
  const want = literal((acc) => acc);
  // The data tell the two orders apart: the weight times bf16(acc) gives other bits.
  assert.notDeepEqual(literal((acc) => bf(toBf16(acc))), want);
  assert.deepEqual(Array.from(got.out), want);
});
