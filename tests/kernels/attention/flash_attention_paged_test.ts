/**
 * Paged KV (`pagedKv`, vllm-flash-attn's `mha_varlen_fwd` with a block table): the split kernel
 * runs even with one split (`Split = false`): 64-row query tiles and 128-key KV tiles at head
 * dimension 128, O written to BF16 directly.
 */
import assert from "node:assert/strict";
import {
  fa2SplitTiles,
  fa2Tiles,
  flashAttentionForward,
} from "../../../src/kernels/attention/mod.ts";
import { bf, D, ENGINE, fa2Options, profile, qkv, referenceAttention } from "./_fa2_fixture.ts";

const varlen = (sq: number, sk: number) => ({
  cuSeqlensQ: [0, sq],
  cuSeqlensK: [0, sk],
  kWalk: ENGINE.kWalkAuto,
});

Deno.test("paged KV: one split of the split kernel, not the standard kernel's tiles; both near float64", () => {
  // Causal prefill of 160 tokens: the standard sm_80 kernel and the split kernel walk the keys
  // in blocks of different sizes, so the online-softmax rescales fall elsewhere.
  const standard = fa2Tiles(profile("a100").architecture, { headDim: D, causal: true });
  assert.notEqual(standard.blockN, fa2SplitTiles(D).blockN);
  const x = qkv("paged", { sq: 160, sk: 160, heads: 1, kvHeads: 1 });
  const base = fa2Options(varlen(160, 160));
  const plain = flashAttentionForward(x, base);
  const paged = flashAttentionForward(x, { ...base, pagedKv: true });
  assert.equal(paged.splits, 1);
  assert.ok(plain.out.some((b, i) => b !== paged.out[i]), "the tiles must change some bits");
  const want = referenceAttention(x, { heads: 1, kvHeads: 1, causal: true }).out;
  for (const r of [plain, paged]) {
    r.out.forEach((b, i) => {
      const err = Math.abs(bf(b) - want[i]!);
      assert.ok(err <= 2 ** -7 * (Math.abs(want[i]!) + 2 ** -2), `${i}: ${bf(b)} vs ${want[i]}`);
    });
  }
});

Deno.test("paged KV: within one KV block of both kernels the bits are the standard kernel's", () => {
  const x = qkv("paged-short", { sq: 40, sk: 40, heads: 1, kvHeads: 1 });
  const base = fa2Options(varlen(40, 40));
  const a = flashAttentionForward(x, base);
  const b = flashAttentionForward(x, { ...base, pagedKv: true });
  assert.deepEqual(Array.from(b.out), Array.from(a.out));
});

Deno.test("paged KV decode: the GQA swap's split heuristic still decides (several splits combine)", () => {
  // One query token over 2,000 keys, 8 heads on 1 KV head: the swapped launch splits.
  const x = qkv("paged-decode", { sq: 1, sk: 2000, heads: 8, kvHeads: 1 });
  const base = fa2Options({ heads: 8, kvHeads: 1, ...varlen(1, 2000) });
  const plain = flashAttentionForward(x, base);
  const paged = flashAttentionForward(x, { ...base, pagedKv: true });
  assert.ok(plain.splits > 1);
  assert.equal(paged.splits, plain.splits);
  assert.deepEqual(Array.from(paged.out), Array.from(plain.out));
});
