/**
 * Which key blocks each split walks (`fa2BlocksPerSplit`, `splitRange`): Dao's flash-attn takes
 * `n_blocks_per_split` from the launch's `params.seqlen_k` (the longest key length), vLLM's
 * vllm-flash-attn from each sequence's own `binfo.actual_seqlen_k`. They differ only in a split
 * launch over sequences of different key lengths: a decode pass of a vLLM server.
 */
import assert from "node:assert/strict";
import {
  fa2BlocksPerSplit,
  fa2NumSplits,
  flashAttentionForward,
  type FlashAttentionOptions,
  planFa2,
} from "../../../src/kernels/attention/mod.ts";
import {
  assertNear,
  D,
  diffCount,
  ENGINE,
  fa2Options,
  qkv,
  referenceAttention,
} from "./_fa2_fixture.ts";

Deno.test("fa2BlocksPerSplit(): ceil(ceil(seqlen_k / kBlockN) / splits) of the launch's or the sequence's seqlen_k", () => {
  const o = { launchSeqlenK: 1000, seqlenK: 300, blockN: 128, splits: 4 };
  assert.equal(fa2BlocksPerSplit("launch", o), 2); // 8 blocks in 4 splits: [0, 1], [2], [], []
  assert.equal(fa2BlocksPerSplit("sequence", o), 1); // 3 blocks in 4 splits: [0], [1], [2], []
  // The longest sequence of the launch, or one of equal length: both rules agree.
  for (const seqlenK of [1000, 897]) {
    const same = { ...o, seqlenK };
    assert.equal(fa2BlocksPerSplit("sequence", same), fa2BlocksPerSplit("launch", same));
  }
  // kBlockN 256 (head dim 64): 5 and 2 blocks in 2 splits.
  const wide = { launchSeqlenK: 1200, seqlenK: 400, blockN: 256, splits: 2 };
  assert.equal(fa2BlocksPerSplit("launch", wide), 3);
  assert.equal(fa2BlocksPerSplit("sequence", wide), 1);
  // A sequence without keys has no block in any split.
  assert.equal(fa2BlocksPerSplit("sequence", { ...o, seqlenK: 0 }), 0);
});

Deno.test("flashAttentionForward(): a split decode batch of unequal key lengths spreads each sequence's blocks by its own length under 'sequence', by the longest under 'launch'", () => {
  // Qwen3-0.6B's attention (16 query heads on 8 KV heads, d 128) on an A100 (108 SMs): a vLLM
  // decode pass of 4 requests, the longest with 1,000 keys, splits in 4 (8 blocks: 2 per split
  // by the launch). Two of its sequences are computed: 300 keys and the longest.
  const heads = 16, kvHeads = 8, short = 300, long = 1000;
  const a = qkv("range-a", { sq: 1, sk: short, heads, kvHeads });
  const b = qkv("range-b", { sq: 1, sk: long, heads, kvHeads });
  const cat = (x: Uint16Array, y: Uint16Array) => Uint16Array.from([...x, ...y]);
  const x = { q: cat(a.q, b.q), k: cat(a.k, b.k), v: cat(a.v, b.v) };
  const base = (over: Partial<FlashAttentionOptions>) =>
    fa2Options({ heads, kvHeads, pagedKv: true, kWalk: ENGINE.kWalkAuto, ...over });
  const batch = (splitRange: "launch" | "sequence") =>
    flashAttentionForward(
      x,
      base({
        cuSeqlensQ: [0, 1, 2],
        cuSeqlensK: [0, short, short + long],
        launch: { batch: 4, maxSeqlenQ: 1, maxSeqlenK: long },
        splitRange,
      }),
    );
  const splits = fa2NumSplits({
    batch: 4,
    heads,
    kvHeads,
    seqlenQ: 1,
    seqlenK: long,
    headDim: D,
    multiProcessorCount: 108,
  });
  assert.equal(splits, 4);
  // Each sequence launched alone with the batch's split count: its blocks spread by its own
  // length (the two rules agree on a launch of one sequence).
  const alone = (y: typeof a, sk: number) =>
    flashAttentionForward(y, base({ cuSeqlensQ: [0, 1], cuSeqlensK: [0, sk], numSplits: splits }));
  const ownA = alone(a, short).out, ownB = alone(b, long).out;
  const n = heads * D;
  const bySequence = batch("sequence"), byLaunch = batch("launch");
  assert.equal(bySequence.splits, splits);
  assert.equal(byLaunch.splits, splits);
  assert.deepEqual(bySequence.out.subarray(0, n), ownA, "300 keys: 3 splits of one block");
  assert.deepEqual(bySequence.out.subarray(n), ownB);
  assert.deepEqual(byLaunch.out.subarray(n), ownB, "the longest sequence: the same blocks");
  assert.ok(
    diffCount(byLaunch.out.subarray(0, n), ownA) > 0,
    "300 keys by the launch: 2 + 1 blocks in 2 splits",
  );
  const want = referenceAttention(a, { heads, kvHeads, causal: false }).out;
  assertNear(bySequence.out.subarray(0, n), want, "sequence");
  assertNear(byLaunch.out.subarray(0, n), want, "launch");
});

Deno.test("planFa2() refuses a split range it does not model", () => {
  const x = qkv("range-bad", { sq: 1, sk: 8, heads: 1, kvHeads: 1 });
  assert.throws(
    () => planFa2(x, fa2Options({ splitRange: "per-cta" as never })),
    /Cannot run FA2: splitRange 'per-cta' is not one of launch, sequence/,
  );
});
