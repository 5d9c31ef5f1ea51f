/**
 * vLLM 0.11 reuses cached keys and values only in whole KV blocks (16 positions on CUDA unless
 * the stack pins `--block-size`): a prefix-cache hit is whole blocks within `num_tokens - 1`
 * (`KVCacheManager.get_computed_blocks`), a preempted request restarts from 0 and then from such
 * a hit, and a cascade prefix is rounded down to whole blocks
 * (`GPUModelRunner._compute_cascade_attn_prefix_len`). A served sequence claiming reuse vLLM never
 * gives (a hit of 1 on a 12-token prompt, 17 or 299 on a 300-token prompt, any hit on a 3-token
 * prompt, a recomputation from position 299 or 17, a 257-token cascade prefix) had been NOT_VERIFIED,
 * as any reuse is, whatever its fingerprint: it FAILs; block-aligned reuse stays NOT_VERIFIED;
 * a record stating settings beyond its stack's (which may set another block size) is
 * NOT_VERIFIED, and a block size the stack gives in a form not read is not guessed.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate, HistoryPass } from "../../src/claims/mod.ts";
import { vllmKvBlock } from "../../src/kernels/mod.ts";
import { kvBlockFinding } from "../../src/model/mod.ts";
import { proverRun, verifyAlone } from "./_recompute_fixture.ts";
import { bentSequence, vllmServedScenario } from "./_vllm_served.ts";

/** One 300-token prompt and 3 generated tokens served on the eager vLLM stack. */
const run = await proverRun(
  vllmServedScenario({ logId: "vllm-blocks", seed: "vllm-blocks-v1" }, { prompt: 300 }),
);
const honest = run.records[1]!.predicate;
const blobs = new Map(run.blobs);

/** A pass of `cached` positions then `query` new ones beside requests holding `others`. */
function pass(query: number, cached: number, others: readonly number[] = []): HistoryPass {
  const entries = [{ query, cached }, ...others.map((c) => ({ query: 1, cached: c }))];
  return { entries, self: 0, rows: query + others.length, logitsRows: entries.length };
}

/**
 * The record with another history and prompt length (its own tokens, cut or repeated), its
 * fingerprint flipped: no replay could match it, so only NOT_VERIFIED or FAIL can come back.
 */
function bent(
  passes: readonly HistoryPass[],
  o: { prompt?: number; components?: Record<string, string> } = {},
): ClaimPredicate {
  return bentSequence(honest, { passes, blobs, ...o });
}

Deno.test("the honest 300-token record PASSes on the vLLM stack", async () => {
  const r = await verifyAlone(honest, blobs);
  assert.equal(r.status, "PASS", r.reason);
});

Deno.test("a prefix-cache hit vLLM 0.11 never gives FAILs, naming the rule (whole KV blocks within num_tokens - 1, KVCacheManager.get_computed_blocks) and the block size", async () => {
  const cases: [string, ClaimPredicate, RegExp][] = [
    [
      "hit 1 on a 12-token prompt",
      bent([pass(11, 1), pass(1, 12)], { prompt: 12 }),
      /at most 0 of a request of 12 tokens/,
    ],
    [
      "hit 17 on a 300-token prompt",
      bent([pass(283, 17), pass(1, 300)]),
      /after 17 cached positions .* at most 288 of a request of 300 tokens/,
    ],
    [
      "hit 299 on a 300-token prompt",
      bent([pass(1, 299), pass(1, 300)]),
      /after 299 cached positions/,
    ],
    [
      "hit 1 on a 3-token prompt",
      bent([pass(2, 1), pass(1, 3)], { prompt: 3 }),
      /at most 0 of a request of 3 tokens/,
    ],
    [
      "hit 2 on a 3-token prompt",
      bent([pass(1, 2), pass(1, 3)], { prompt: 3 }),
      /after 2 cached positions/,
    ],
    // Beside a recomputation from 0 (whole blocks, not modelled): the hit off the blocks is
    // still the contradiction it is, not folded into the recomputation's NOT_VERIFIED.
    [
      "hit 17 on a 300-token prompt, then a recomputation from 0",
      bent([pass(283, 17), pass(1, 300), pass(302, 0)]),
      /after 17 cached positions .* at most 288 of a request of 300 tokens/,
    ],
    // Whole blocks, but the whole prompt: vLLM recomputes the last prompt token for its logits.
    [
      "hit 32 on a 32-token prompt",
      bent([pass(1, 32), pass(1, 33)], { prompt: 32 }),
      /after 32 cached positions .* at most 16 of a request of 32 tokens/,
    ],
  ];
  for (const [name, p, why] of cases) {
    const r = await verifyAlone(p, blobs);
    assert.equal(r.status, "FAIL", `${name}: ${r.reason}`);
    assert.match(
      r.reason,
      /^record contradicts its stack: pass 0 starts after \d+ cached positions \(a prefix-cache hit\): vLLM 0\.11 takes a prefix-cache hit in whole 16-position KV blocks/,
      name,
    );
    assert.match(
      r.reason,
      /\(KVCacheManager\.get_computed_blocks; block size 16: vLLM's default block size on CUDA, 16 \(platforms\/cuda\.py\)\)$/,
      name,
    );
    assert.match(r.reason, why, name);
  }
});

Deno.test("a recomputation after preemption starting off a block boundary, and a cascade prefix of 257 tokens, FAIL", async () => {
  const from299 = await verifyAlone(bent([pass(300, 0), pass(1, 300), pass(3, 299)]), blobs);
  assert.equal(from299.status, "FAIL", from299.reason);
  assert.match(
    from299.reason,
    /^record contradicts its stack: pass 2 recomputes from position 299 \(a request preempted and recomputed, which vLLM restarts from 0 and then from its prefix-cache hit\): .*at most 288 of a request of 302 tokens/,
  );
  const from12 = await verifyAlone(
    bent([pass(14, 0), pass(1, 14), pass(4, 12)], { prompt: 14 }),
    blobs,
  );
  assert.equal(from12.status, "FAIL", from12.reason);
  assert.match(from12.reason, /pass 2 recomputes from position 12 /);
  // Within num_tokens - 1 (288 of 302) but off the blocks: find_longest_cache_hit returns whole
  // blocks, so vLLM restarts from 16, never 17.
  const from17 = await verifyAlone(bent([pass(300, 0), pass(1, 300), pass(285, 17)]), blobs);
  assert.equal(from17.status, "FAIL", from17.reason);
  assert.match(
    from17.reason,
    /^record contradicts its stack: pass 2 recomputes from position 17 .*whole 16-position KV blocks, .*at most 288 of a request of 302 tokens/,
  );
  const eight = [300, 260, 270, 280, 290, 300, 257, 258];
  const cascade = await verifyAlone(
    bent([pass(300, 0), { ...pass(1, 300, eight.slice(1)), cascadePrefix: 257 }, pass(1, 301)]),
    blobs,
  );
  assert.equal(cascade.status, "FAIL", cascade.reason);
  assert.match(
    cascade.reason,
    /^record contradicts its stack: pass 1 claims vLLM's cascade attention over a 257-token prefix: vLLM 0\.11 rounds the common prefix down to whole 16-position KV blocks \(GPUModelRunner\._compute_cascade_attn_prefix_len; block size 16: /,
  );
});

Deno.test("block-aligned reuse stays NOT_VERIFIED, naming it: a hit of 16 or 288, recomputations from 0 (the docs' example) and 288, a 256-token cascade prefix", async () => {
  const eight = [300, 256, 270, 280, 290, 300, 256, 258];
  const cases: [ClaimPredicate, RegExp][] = [
    [
      bent([pass(284, 16), pass(1, 300)]),
      /^pass 0 starts after 16 cached positions \(a prefix-cache hit\)/,
    ],
    [bent([pass(12, 288), pass(1, 300)]), /^pass 0 starts after 288 cached positions/],
    [
      bent([pass(3, 0), pass(1, 3), pass(5, 0)], { prompt: 3 }),
      /^pass 2 computes positions 0\.\.4 again \(a request preempted/,
    ],
    [
      bent([pass(300, 0), pass(1, 300), pass(14, 288)]),
      /^pass 2 computes positions 288\.\.301 again/,
    ],
    [
      bent([pass(300, 0), { ...pass(1, 300, eight.slice(1)), cascadePrefix: 256 }, pass(1, 301)]),
      /^pass 1 ran vLLM's cascade attention/,
    ],
  ];
  for (const [p, why] of cases) {
    const r = await verifyAlone(p, blobs);
    assert.equal(r.status, "NOT_VERIFIED", r.reason);
    assert.match(r.reason, why);
  }
});

Deno.test("a record stating settings beyond its stack's (which may set another block size) is NOT_VERIFIED for a hit of 17 or a recomputation from 299, each named once, and a recomputation beside the hit names both; a contradiction beside the hit still FAILs first", async () => {
  const flags = "--enforce-eager --block-size 1";
  const beyond =
    /; the record states settings beyond stack 'vllm-0\.11-eager-fa2-lg2-model' .* which may set another block size/;
  const r = await verifyAlone(
    bent([pass(283, 17), pass(1, 300)], { components: { flags } }),
    blobs,
  );
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(
    r.reason,
    /^pass 0 starts after 17 cached positions \(a prefix-cache hit\): vLLM 0\.11 takes a prefix-cache hit in whole 16-position KV blocks, .*at most 288 of a request of 300 tokens/,
  );
  assert.match(r.reason, beyond);
  assert.equal(r.reason.split("starts after 17").length, 2, `the hit is named once: ${r.reason}`);
  const from299 = await verifyAlone(
    bent([pass(300, 0), pass(1, 300), pass(3, 299)], { components: { flags } }),
    blobs,
  );
  assert.equal(from299.status, "NOT_VERIFIED", from299.reason);
  assert.match(
    from299.reason,
    /^pass 2 recomputes from position 299 \(a request preempted and recomputed, which vLLM restarts from 0 and then from its prefix-cache hit\): .*at most 288 of a request of 302 tokens/,
  );
  assert.match(from299.reason, beyond);
  assert.equal(from299.reason.split("pass 2 ").length, 2, `named once: ${from299.reason}`);
  // A recomputation from 0 (whole blocks) beside the hit: the reason names the one the replay
  // does not model and the one off the blocks. It stops before the 302 tokens the request had, so
  // it samples nothing (no logits row).
  const beside = await verifyAlone(
    bent([pass(283, 17), pass(1, 300), { ...pass(301, 0), logitsRows: 0 }], {
      components: { flags },
    }),
    blobs,
  );
  assert.equal(beside.status, "NOT_VERIFIED", beside.reason);
  assert.match(
    beside.reason,
    /^pass 2 computes positions 0\.\.300 again \(a request preempted and recomputed\); .*; pass 0 starts after 17 cached positions \(a prefix-cache hit\): vLLM 0\.11 takes /,
  );
  assert.match(beside.reason, beyond);
  // Two logits rows for one emitting entry: the history contradicts itself, said first.
  const both = await verifyAlone(bent([{ ...pass(283, 17), logitsRows: 2 }, pass(1, 300)]), blobs);
  assert.equal(both.status, "FAIL", both.reason);
  assert.match(both.reason, /pass 0 says 2 logits rows for 1 entries/);
});

Deno.test("kvBlockFinding(): the stack's pinned --block-size is the unit; a block size not read, decode context parallelism or a KV connector is not guessed; other stacks are not held to it", () => {
  const one = (query: number, cached: number) => ({ entries: [{ query, cached }], self: 0 });
  const on = (flags: string, passes = [one(4, 16), one(1, 20)]) =>
    kvBlockFinding(passes, { stack: { components: { vllm: "0.11.0", flags } }, prompt: 20 });
  assert.equal(on("--enforce-eager"), null);
  assert.equal(on("--block-size 8 --block_size=16"), null);
  const pinned = on("--block-size 32");
  assert.equal(pinned?.kind, "contradiction");
  assert.deepEqual([pinned?.pass, pinned?.what], [0, "hit"], "the reuse it is about");
  assert.match(
    pinned!.reason,
    /whole 32-position KV blocks.*block size 32: --block-size 32 pinned by the stack/,
  );
  assert.equal(on("--block-size 32", [one(21, 0)]), null, "nothing reused: nothing to hold");
  for (
    const flags of [
      "--block-size auto",
      "--decode-context-parallel-size 2",
      '--kv-transfer-config \'{"kv_connector":"LMCacheConnectorV1"}\'',
    ]
  ) {
    assert.equal(on(flags)?.kind, "unmodelled", flags);
  }
  // Not derived: the finding is about the first reuse (a hit before a later cascade prefix).
  const later = [one(4, 16), { entries: [{ query: 1, cached: 20 }], self: 0, cascadePrefix: 17 }];
  const first = on("--block-size auto", later);
  assert.deepEqual([first?.kind, first?.pass, first?.what], ["unmodelled", 0, "hit"]);
  assert.match(first!.reason, /^whether pass 0's 16 reused positions are whole KV blocks/);
  assert.equal(
    kvBlockFinding([one(3, 17), one(1, 20)], {
      stack: { components: { transformers: "4.57.1" } },
      prompt: 20,
    }),
    null,
  );
  assert.equal(vllmKvBlock({ components: { transformers: "4.57.1" } }), null);
  const eager = vllmKvBlock({ components: { vllm: "0.11.0", flags: "--enforce-eager" } });
  assert.deepEqual(eager?.ok === true ? eager.tokens : eager, 16);
});
