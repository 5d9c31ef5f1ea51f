/**
 * FA2's `Check_inf` per iteration: the rescale takes a row max of -inf as 0 only on the main
 * loop's masking iterations (`fa2MaskingSteps`), so a row whose every score is -inf ends as NaN
 * when its walk goes past them, and as zeros when it does not. Expectations from the source
 * (Dao-AILab/flash-attention v2.8.3, `csrc/flash_attn/src/flash_fwd_kernel.h` :298-300, :343-344,
 * :371, :407 standard kernel; :849-851, :917-918, :930, :985 split kernel; the combine's
 * `tOrO += lse_scale * tOrOaccum` over every split, :1245-1257; `softmax.h` :154-157, :179-180;
 * `flash_fwd_launch_template.h` :65, :79, :108, :120 for `Is_even_MN`). Derived from source
 * only: no GPU output is bundled. Every case runs on the TypeScript step with the reference K-walk
 * and on the wasm K-walk and tile softmax, which must agree.
 */
import assert from "node:assert/strict";
import {
  type AttentionInputs,
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  fa2KvCache,
  fa2MaskingSteps,
  fa2SplitTiles,
  fa2Tiles,
  flashAttentionBatch,
  flashAttentionForward,
  type FlashAttentionOptions,
  type FlashAttentionResult,
  planFa2,
} from "../../../src/kernels/mod.ts";
import { D, ENGINE, fa2Options, qkv, TESLA } from "./_fa2_fixture.ts";

const NEG_INF_BF16 = 0xff80, ONE = 0x3f80, NAN_BF16 = 0x7fff;

/**
 * Q with -inf in column 0 of every row, K with 1 there (and zeros elsewhere), V all ones: every
 * score is -inf, so every row's max stays -inf on every tile.
 */
function negInfScores(o: { sq: number; sk: number; heads: number; kvHeads: number }) {
  const q = new Uint16Array(o.sq * o.heads * D);
  const k = new Uint16Array(o.sk * o.kvHeads * D);
  const v = new Uint16Array(o.sk * o.kvHeads * D).fill(ONE);
  for (let i = 0; i < o.sq * o.heads; i++) q[i * D] = NEG_INF_BF16;
  for (let j = 0; j < o.sk * o.kvHeads; j++) k[j * D] = ONE;
  return { q, k, v };
}

/** The launch on the TypeScript step (reference K-walk) and on the wasm engine: equal bits. */
function bothPaths(x: AttentionInputs, o: FlashAttentionOptions): FlashAttentionResult {
  const ts = flashAttentionForward(x, o);
  const wasm = flashAttentionForward(x, {
    ...o,
    kWalk: ENGINE.kWalkAuto,
    tileSoftmax: ENGINE.fa2TileSoftmax(o.build, TESLA)!,
  });
  assert.deepEqual(wasm.out, ts.out, "the wasm engine and the TypeScript step agree");
  assert.deepEqual(wasm.lse, ts.lse, "the wasm engine and the TypeScript step agree (LSE)");
  return ts;
}

/** Each query row (heads outer) as "nan" (every entry 0x7FFF), "zero" (+0) or "other". */
function rowKinds(out: Uint16Array, rows: number): string[] {
  return Array.from({ length: rows }, (_, r) => {
    const row = out.subarray(r * D, (r + 1) * D);
    return row.every((x) => x === NAN_BF16) ? "nan" : row.every((x) => x === 0) ? "zero" : "other";
  });
}

/** `n` rows of `a` then `m` rows of `b`. */
const rows = (a: string, n: number, b = "", m = 0) => [
  ...Array(n).fill(a),
  ...Array(m).fill(b),
];

Deno.test("fa2MaskingSteps(): n_masking_steps of flash_fwd_kernel.h, with Is_even_MN of the launch template", () => {
  const std = fa2Tiles("sm_80", { headDim: 128, causal: true }); // 128 x 64
  const split = fa2SplitTiles(128); // 64 x 128
  const l = { causal: true, varlen: false, seqlenQ: 256, seqlenK: 256, headDim: 128 };
  assert.equal(fa2MaskingSteps(std, l), 2); // ceil_div(128, 64), Is_even_MN
  assert.equal(fa2MaskingSteps(std, { ...l, seqlenQ: 192 }), 3); // seqlen_q % kBlockM != 0
  assert.equal(fa2MaskingSteps(std, { ...l, seqlenK: 200 }), 3); // seqlen_k % kBlockN != 0
  assert.equal(fa2MaskingSteps(std, { ...l, varlen: true }), 3); // cu_seqlens given
  assert.equal(fa2MaskingSteps(std, { ...l, causal: false }), 1); // !Is_causal && !Is_local
  assert.equal(fa2MaskingSteps(split, { ...l, seqlenQ: 1024, seqlenK: 1024 }), 1);
  assert.equal(fa2MaskingSteps(split, { ...l, varlen: true }), 2);
  // kHeadDim > 128 never has Is_even_MN.
  const t256 = fa2Tiles("sm_80", { headDim: 256, causal: true });
  const even = { ...l, headDim: 256, seqlenQ: 4 * t256.blockM, seqlenK: 4 * t256.blockM };
  assert.equal(fa2MaskingSteps(t256, even), Math.ceil(t256.blockM / t256.blockN) + 1);
  // The plan fixes it for the kernel that runs.
  const plan = (sq: number, over: Partial<FlashAttentionOptions> = {}) =>
    planFa2(negInfScores({ sq, sk: sq, heads: 1, kvHeads: 1 }), fa2Options(over)).plan;
  assert.equal(plan(256, { multiProcessorCount: 2 }).maskingSteps, 2);
  assert.equal(plan(192, { multiProcessorCount: 2 }).maskingSteps, 3);
  assert.equal(plan(256, { multiProcessorCount: 2, causal: false }).maskingSteps, 1);
  assert.equal(plan(1024).maskingSteps, 1); // 8 splits: the split kernel's 64 x 128 tiles
  const varlen = { cuSeqlensQ: [0, 256], cuSeqlensK: [0, 256], multiProcessorCount: 2 };
  assert.equal(plan(256, varlen).maskingSteps, 3);
});

Deno.test("FA2 standard kernel: a row whose max is -inf at a non-masking iteration is NaN, one that only saw masking iterations is zero (both builds)", () => {
  for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
    const run = (s: number, over: Partial<FlashAttentionOptions> = {}) => {
      const x = negInfScores({ sq: s, sk: s, heads: 1, kvHeads: 1 });
      const r = bothPaths(x, fa2Options({ build, multiProcessorCount: 2, ...over }));
      assert.equal(r.splits, 1);
      return rowKinds(r.out, s);
    };
    // A100 hdim 128 causal: 128 x 64 tiles. S = 256 (Is_even_MN): 2 masking iterations. Rows
    // 0..127 walk n-blocks 1, 0 (both masking: zeros); rows 128..255 walk 3, 2 then 1, 0
    // without Check_inf: (-inf) - (-inf) = NaN reaches O and the row sum; inv_sum = 1; NaN.
    assert.deepEqual(run(256), rows("zero", 128, "nan", 128), `${build.id} S 256`);
    // S = 192: seqlen_q % 128 != 0, so 3 masking iterations cover rows 128..191's 3 n-blocks.
    assert.deepEqual(run(192), rows("zero", 192), `${build.id} S 192`);
    // Not causal: one masking iteration (the first, which has no rescale); every later
    // iteration without Check_inf.
    assert.deepEqual(run(256, { causal: false }), rows("nan", 256), `${build.id} not causal`);
    assert.deepEqual(run(64, { causal: false }), rows("zero", 64), `${build.id} one n-block`);
  }
});

Deno.test("FA2 split kernel and combine: a split that walks past its masking iterations with a -inf max makes the combined row NaN", () => {
  // Decode (reviewer's case): S_q = 1 drops causal, 8 query heads over 1 KV head (GQA swap),
  // 4,096 keys in 32 blocks of 128. 16 splits: 2 blocks each, the second without Check_inf.
  const x = negInfScores({ sq: 1, sk: 4096, heads: 8, kvHeads: 1 });
  const decode = fa2Options({ heads: 8, kvHeads: 1, multiProcessorCount: 8 });
  const r = bothPaths(x, decode);
  assert.equal(r.splits, 16);
  assert.deepEqual(rowKinds(r.out, 8), rows("nan", 8));
  // 8 splits of 1,024 keys: one block each, only first iterations: every O_s is 0 and every
  // LSE_s -inf, so the combined row is 0.
  const short = negInfScores({ sq: 1, sk: 1024, heads: 8, kvHeads: 1 });
  const one = bothPaths(short, { ...decode, numSplits: 8 });
  assert.deepEqual(rowKinds(one.out, 8), rows("zero", 8));
  // A causal prefill of 384 in 2 splits (64 x 128 tiles, Is_even_MN: 1 masking iteration per
  // split; n_blocks_per_split = 2). Split 0 walks n-block 0 alone for rows 0..127 (zeros) and
  // n-blocks 1, 0 for rows 128..383 (the second without Check_inf: NaN); split 1 walks n-block 2
  // alone or nothing.
  const p = negInfScores({ sq: 384, sk: 384, heads: 1, kvHeads: 1 });
  const prefill = bothPaths(p, fa2Options({ numSplits: 2 }));
  assert.deepEqual(rowKinds(prefill.out, 384), rows("zero", 128, "nan", 256));
});

Deno.test("FA2 combine: one split's NaN partial reaches the combined row even when the other splits are finite", () => {
  // One query row whose scores are -inf for the keys of split 0 only (K of -inf there, q = 1):
  // split 0 walks its 2 blocks with a -inf max (O_s NaN, LSE_s -inf), the others are finite.
  // The combine adds lse_scale * O_s for every split: exp(-inf - LSE) = 0 times NaN is NaN.
  const sk = 4096;
  const q = new Uint16Array(D);
  q[0] = ONE;
  const k = new Uint16Array(sk * D), v = new Uint16Array(sk * D).fill(ONE);
  for (let j = 0; j < sk; j++) k[j * D] = j < 256 ? NEG_INF_BF16 : ONE;
  const o = fa2Options({ causal: false, numSplits: 16, returnLse: true });
  const r = bothPaths({ q, k, v }, o);
  assert.deepEqual(rowKinds(r.out, 1), ["nan"]);
  // With split 0 on one block (32 splits), its O_s is 0 and the row is the others' average.
  const finite = bothPaths({ q, k, v }, { ...o, numSplits: 32 });
  assert.ok(finite.out.every((b) => b === ONE), "softmax over V = 1 is 1");
});

Deno.test("FA2 paged KV (split kernel, one split, varlen): Is_even_MN is false, so 2 masking iterations of 64 x 128 tiles", () => {
  // 300 query rows over 300 keys, causal: m-blocks 0..3 (rows 0..255) walk at most 2 n-blocks,
  // all masking (zeros); m-block 4 (rows 256..299) walks 3, the last without Check_inf (NaN).
  const x = negInfScores({ sq: 300, sk: 300, heads: 1, kvHeads: 1 });
  const o = fa2Options({ pagedKv: true, cuSeqlensQ: [0, 300], cuSeqlensK: [0, 300] });
  const r = bothPaths(x, o);
  assert.equal(r.splits, 1);
  assert.deepEqual(rowKinds(r.out, 300), rows("zero", 256, "nan", 44));
});

Deno.test("flashAttentionBatch(): walks on their first, a masking and a later iteration share tiles, each with its own Check_inf", () => {
  // Decode steps (not causal: 1 masking iteration) and a causal chunk of 40 rows over 300 keys
  // (Is_even_MN false: 3 masking iterations of 5) over one cache, one split each (the standard
  // kernel's 64-key tiles, so at n-block 2 the chunk is on a masking iteration, the 192-key step on its first
  // and the others past theirs); query heads 0 and 3 have a -inf score everywhere.
  const heads = 4, kvHeads = 2, keys = 300;
  const y = qkv("check-inf-batch", { sq: 40, sk: keys, heads, kvHeads });
  for (let i = 0; i < 40 * heads; i++) {
    if (i % heads === 0 || i % heads === 3) y.q[i * D] = NEG_INF_BF16;
  }
  for (let j = 0; j < keys * kvHeads; j++) y.k[j * D] = ONE;
  const o = fa2Options({
    heads,
    kvHeads,
    returnLse: true,
    kWalk: ENGINE.kWalkAuto,
    numSplits: 1,
  });
  const kvw = kvHeads * D;
  const launches = [[260, 1], [300, 40], [192, 1], [300, 1]].map(([sk, sq]) => ({
    inputs: {
      q: y.q.subarray(0, sq! * heads * D),
      k: y.k.subarray(0, sk! * kvw),
      v: y.v.subarray(0, sk! * kvw),
    },
    options: o,
  }));
  const want = launches.map((l) => flashAttentionForward(l.inputs, l.options));
  const cache = fa2KvCache();
  const got = flashAttentionBatch(
    launches.map((l) => ({ ...l, options: { ...l.options, kvCache: cache } })),
  );
  got.forEach((g, i) => {
    assert.equal(g.splits, 1);
    assert.deepEqual(g.out, want[i]!.out, `launch ${i}`);
    assert.deepEqual(g.lse, want[i]!.lse, `launch ${i}`);
  });
  // The -inf heads are NaN (every walk here goes past its masking iterations), the others not.
  want.forEach((w, i) => {
    const kinds = rowKinds(w.out, w.out.length / D);
    kinds.forEach((kind, r) => {
      const infHead = r % heads === 0 || r % heads === 3;
      assert.equal(kind === "nan", infHead, `launch ${i} row ${r >> 2} head ${r % heads}`);
    });
  });
});
