/**
 * FA2 at head dimensions 64, 96 and 256 (issue 26), both builds: the emulated output against
 * float64 attention (prefill through `mha_varlen_fwd`, prefill and decode through `mha_fwd` with
 * split-KV), the softmax scale constants, and the split kernel against the standard kernel where
 * both walk one tile. Products run on the wasm K-walk (bit-equal to the reference walk: see
 * tests/engine/fa2_head_dims_test.ts).
 */
import assert from "node:assert/strict";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  fa2NumSplits,
  flashAttentionForward,
  type FlashAttentionOptions,
  planFa2,
} from "../../../src/kernels/attention/mod.ts";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import {
  assertNear,
  ENGINE,
  fa2Options,
  profile,
  qkv,
  referenceAttention,
} from "./_fa2_fixture.ts";

const DIMS = [64, 96, 256];
const BUILDS = [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED];
const H100 = { profile: profile("h100-sxm"), multiProcessorCount: 132 };

const opts = (d: number, over: Partial<FlashAttentionOptions>) =>
  fa2Options({ headDim: d, kWalk: ENGINE.kWalkAuto, ...over });

Deno.test("planFa2() rounds the softmax scale and scale_log2 of head dims 64, 96, 128, 256 as FA2's host code does", () => {
  // softmax_scale = fl32(d^-0.5); scale_softmax_log2 = fl32(double(softmax_scale) * M_LOG2E).
  const want: Record<number, [number, number]> = {
    64: [0x3e000000, 0x3e38aa3b],
    96: [0x3dd105ec, 0x3e16c740],
    128: [0x3db504f3, 0x3e0293ee], // ops.md §4.3
    256: [0x3d800000, 0x3db8aa3b],
  };
  for (const [d, [scale, log2]] of Object.entries(want).map(([k, v]) => [Number(k), v] as const)) {
    const x = qkv(`scale${d}`, { sq: 1, sk: 1, heads: 1, kvHeads: 1, d });
    const { plan } = planFa2(x, opts(d, {}));
    assert.equal(plan.softmaxScale, scale, `${d}`);
    assert.equal(plan.scaleLog2, log2, `${d}`);
    // The same patterns from C++'s 1.0 / sqrt(double(d)) (PyTorch's default scale), and from an
    // FP32 product: no rounding of either path is near a tie.
    const viaSqrt = planFa2(x, opts(d, { softmaxScale: 1 / Math.sqrt(d) })).plan;
    assert.equal(viaSqrt.softmaxScale, scale, `${d}`);
    const f = Math.fround;
    assert.equal(bitsFromF32(f(f32FromBits(scale) * f(Math.LOG2E))), log2, `${d}`);
  }
});

Deno.test("flashAttentionForward() varlen prefill at head dims 64, 96, 256 is within 2 bf16 ulps of float64 attention", () => {
  const cu = [0, 45, 150];
  const gpus = [["a100", FA2_DAO_FASTMATH], ["l4", FA2_PYTORCH_BUNDLED], [
    "h100-sxm",
    FA2_DAO_FASTMATH,
  ]] as const;
  for (const d of DIMS) {
    const x = qkv(`varlen${d}`, { sq: 150, sk: 150, heads: 4, kvHeads: 2, d });
    const part = (a: Uint16Array, t0: number, t1: number, nh: number) =>
      a.subarray(t0 * nh * d, t1 * nh * d);
    for (const causal of [true, false]) {
      const want = [0, 1].map((b) =>
        referenceAttention({
          q: part(x.q, cu[b]!, cu[b + 1]!, 4),
          k: part(x.k, cu[b]!, cu[b + 1]!, 2),
          v: part(x.v, cu[b]!, cu[b + 1]!, 2),
        }, { heads: 4, kvHeads: 2, causal, d }).out
      );
      for (const [gpu, build] of gpus) {
        for (const b of [build, build === FA2_DAO_FASTMATH ? FA2_PYTORCH_BUNDLED : build]) {
          const r = flashAttentionForward(
            x,
            opts(d, {
              build: b,
              profile: profile(gpu),
              heads: 4,
              kvHeads: 2,
              causal,
              cuSeqlensQ: cu,
              cuSeqlensK: cu,
            }),
          );
          const tag = `hdim ${d} ${gpu} ${b.id} causal ${causal}`;
          assert.equal(r.splits, 1, tag);
          assertNear(part(r.out, 0, 45, 4), want[0]!, `${tag} seq 0`);
          assertNear(part(r.out, 45, 150, 4), want[1]!, `${tag} seq 1`);
        }
      }
    }
  }
});

Deno.test("flashAttentionForward() split-KV prefill (mha_fwd) at head dims 64, 96, 256 is within 2 bf16 ulps of float64", () => {
  // Long enough for two key blocks of the split kernel (256, 128 and 64 keys).
  const lengths: Record<number, number> = { 64: 300, 96: 200, 256: 150 };
  for (const d of DIMS) {
    const s = lengths[d]!;
    const x = qkv(`splitpre${d}`, { sq: s, sk: s, heads: 2, kvHeads: 1, d });
    for (const causal of [true, false]) {
      const want = referenceAttention(x, { heads: 2, kvHeads: 1, causal, d }).out;
      for (const build of BUILDS) {
        const o = opts(d, { ...H100, build, heads: 2, causal });
        const r = flashAttentionForward(x, o);
        const tag = `hdim ${d} ${build.id} causal ${causal}`;
        const shape = { batch: 1, heads: 2, kvHeads: 1, seqlenQ: s, seqlenK: s, headDim: d };
        assert.equal(r.splits, fa2NumSplits({ ...shape, multiProcessorCount: 132 }), tag);
        assert.ok(r.splits > 1, `${tag}: ${r.splits} splits`);
        assertNear(r.out, want, tag);
      }
    }
  }
});

Deno.test("flashAttentionForward() decodes with the GQA swap and split-KV at head dims 64, 96, 256", () => {
  for (const d of DIMS) {
    for (const [sk, build] of [[700, FA2_DAO_FASTMATH], [1300, FA2_PYTORCH_BUNDLED]] as const) {
      const x = qkv(`decode${d}-${sk}`, { sq: 1, sk, heads: 8, kvHeads: 2, d });
      const o = opts(d, { ...H100, build, heads: 8, kvHeads: 2, causal: true, returnLse: true });
      const r = flashAttentionForward(x, o);
      const tag = `hdim ${d} S_k ${sk} ${build.id}`;
      const shape = { batch: 1, heads: 8, kvHeads: 2, seqlenQ: 1, seqlenK: sk, headDim: d };
      assert.equal(r.splits, fa2NumSplits({ ...shape, multiProcessorCount: 132 }), tag);
      assert.ok(r.splits > 1, `${tag}: ${r.splits} splits`);
      const want = referenceAttention(x, { heads: 8, kvHeads: 2, causal: false, d });
      assertNear(r.out, want.out, tag);
      r.lse!.forEach((l, i) =>
        assert.ok(
          Math.abs(f32FromBits(l) - want.lse[i]!) < 1e-5 * (1 + Math.abs(want.lse[i]!)),
          tag,
        )
      );
      // The varlen entry point takes the same swap and split count for one sequence.
      const v = flashAttentionForward(x, { ...o, cuSeqlensQ: [0, 1], cuSeqlensK: [0, sk] });
      assert.equal(v.splits, r.splits, tag);
      assert.deepEqual(v.out, r.out, tag);
    }
  }
});

Deno.test("flashAttentionForward() split kernel equals the standard kernel on rows whose causal range is one tile (head dims 64, 96, 256)", () => {
  // Rows 0..63 (the split kernel's first m-block) see at most 64 keys: one tile in both kernels,
  // the wider tile's extra columns masked (P = 0 adds exactly nothing to the lane sums), and
  // the other splits empty (the combine is then the identity).
  const lengths: Record<number, number> = { 64: 300, 96: 200, 256: 150 };
  for (const d of DIMS) {
    const s = lengths[d]!;
    const x = qkv(`onetile${d}`, { sq: s, sk: s, heads: 1, kvHeads: 1, d });
    for (const build of BUILDS) {
      const o = opts(d, { ...H100, build, causal: true });
      const split = flashAttentionForward(x, o);
      const std = flashAttentionForward(x, { ...o, cuSeqlensQ: [0, s], cuSeqlensK: [0, s] });
      assert.ok(split.splits > 1 && std.splits === 1, `hdim ${d}`);
      assert.deepEqual(split.out.subarray(0, 64 * d), std.out.subarray(0, 64 * d), `hdim ${d}`);
    }
  }
});
