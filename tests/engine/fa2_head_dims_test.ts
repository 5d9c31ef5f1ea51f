/**
 * The engine's fast paths at FA2 head dimensions 64, 96 and 256 (issue 26), bit for bit: the
 * wasm K-walk and the wasm tile softmax against the TypeScript reference walk and step, and the
 * thread pool (query heads and stacked KV heads on workers) against the one-thread forward.
 * Launches cover the standard kernel (both tile branches), split-KV prefill and decode.
 */
import assert from "node:assert/strict";
import { kWalkReference } from "../../src/hardware/mod.ts";
import { createFa2Pool } from "../../src/engine/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  flashAttentionForward,
  type FlashAttentionOptions,
} from "../../src/kernels/mod.ts";
import { ENGINE, fa2Options, profile, qkv, TESLA } from "../kernels/attention/_fa2_fixture.ts";

const H100 = { profile: profile("h100-sxm"), multiProcessorCount: 132 };
const L4 = { profile: profile("l4"), multiProcessorCount: 58 };

/** Launch kinds (label, options, sq, sk, least splits) for head dimension d. */
function cases(d: number): [string, Partial<FlashAttentionOptions>, number, number, number][] {
  // Split prefill: S_k past one key block of the split kernel (256, 128 or 64 keys).
  const sk = d === 64 ? 300 : d === 96 ? 200 : 100;
  return [
    ["standard, GQA, sm_80", { heads: 4, kvHeads: 2 }, 70, 70, 1],
    ["standard, sm8x branch", { ...L4, heads: 2, kvHeads: 1, causal: true }, 40, 40, 1],
    ["split-KV prefill", { ...H100, heads: 1, kvHeads: 1, causal: false }, 2, sk, 2],
    ["decode (GQA swap)", { ...H100, heads: 4, kvHeads: 1 }, 1, 400, 2],
  ];
}

Deno.test("flashAttentionForward() gives the TypeScript reference's bits with the wasm K-walk and tile softmax at head dims 64, 96, 256", () => {
  // The reference K-walk is slow: each case runs one build, the builds alternating over the
  // cases and head dims (each head dim and each launch kind sees both builds).
  const builds = [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED];
  for (const [i, d] of [64, 96, 256].entries()) {
    for (const [j, [label, over, sq, sk, minSplits]] of cases(d).entries()) {
      const build = builds[(i + j) % 2]!;
      const heads = over.heads ?? 1, kvHeads = over.kvHeads ?? 1;
      const x = qkv(`wasm${d}-${label}`, { sq, sk, heads, kvHeads, d });
      const o = fa2Options({ headDim: d, build, returnLse: true, returnFp32: true, ...over });
      const ref = flashAttentionForward(x, { ...o, kWalk: kWalkReference });
      const fast = flashAttentionForward(x, {
        ...o,
        kWalk: ENGINE.kWalkAuto,
        tileSoftmax: ENGINE.fa2TileSoftmax(build, TESLA)!,
      });
      const tag = `hdim ${d} ${build.id} ${label}`;
      assert.ok(ref.splits >= minSplits, `${tag}: ${ref.splits} splits`);
      assert.deepEqual(fast.out, ref.out, tag);
      assert.deepEqual(fast.outF32, ref.outF32, tag);
      assert.deepEqual(fast.lse, ref.lse, tag);
    }
  }
});

Deno.test("Fa2Pool.forward() equals flashAttentionForward() at head dims 64, 96, 256 (by query head and by KV head)", async () => {
  for (const workers of [2, 3]) {
    const pool = createFa2Pool(ENGINE, { workers, inlineBelow: 0 });
    try {
      for (const d of [64, 96, 256]) {
        const all: [string, Partial<FlashAttentionOptions>, number, number, number][] = [
          ...cases(d),
          [
            "varlen",
            { heads: 4, kvHeads: 4, cuSeqlensQ: [0, 40, 97], cuSeqlensK: [0, 40, 97] },
            97,
            97,
            1,
          ],
        ];
        for (const [label, over, sq, sk, minSplits] of all) {
          const o = fa2Options({
            headDim: d,
            returnLse: true,
            returnFp32: true,
            kWalk: ENGINE.kWalkAuto,
            build: d === 96 ? FA2_PYTORCH_BUNDLED : FA2_DAO_FASTMATH,
            ...over,
          });
          const x = qkv(`pool${d}-${label}`, { sq, sk, heads: o.heads, kvHeads: o.kvHeads, d });
          const ref = flashAttentionForward(x, o);
          const got = await pool.forward(x, o);
          const tag = `${workers} workers hdim ${d} ${label}`;
          assert.ok(ref.splits >= minSplits, `${tag}: ${ref.splits} splits`);
          assert.deepEqual(got.out, ref.out, tag);
          assert.deepEqual(got.outF32, ref.outF32, tag);
          assert.deepEqual(got.lse, ref.lse, tag);
          assert.equal(got.splits, ref.splits, tag);
        }
      }
    } finally {
      pool.close();
    }
  }
});
