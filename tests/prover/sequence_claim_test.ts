/**
 * The real prover's sequence records: `sequenceClaim()` builds, from the facts a prover keeps of
 * a served sequence (history blob, tokens, fingerprint, layer chain), the record the simulated
 * prover writes, field for field; it verifies PASS (a flipped fingerprint FAILs), and facts that
 * contradict each other are refused with a code per kind of fault.
 */
import assert from "node:assert/strict";
import { checkpointDir, openAssetStore, sha256Hex } from "../../src/assets/mod.ts";
import {
  type ClaimLog,
  type ClaimRecord,
  encodeServingHistory,
  formatClaimLog,
  type HistoryPass,
  longestNeighbour,
  parseClaimLog,
  parseServingHistory,
  type SequenceWorkload,
  SERVING_HISTORY_SCHEMA,
} from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { openDecoderCheckpoint } from "../../src/model/mod.ts";
import {
  makeClaims,
  nextLogPosition,
  parseScenario,
  sequenceClaim,
  type SequenceFacts,
} from "../../src/prover/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import {
  SERVED_CHECKPOINT,
  type ServedFacts,
  servedFacts,
  servedScenario,
  SERVING_CATALOG,
  SERVING_STACK,
} from "./_served_fixture.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const store = await openAssetStore();
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });
const out = await makeClaims(parseScenario(servedScenario()), {
  store,
  walker: engineWalker,
  attention,
});
const served = await servedFacts(out.records, (d) => Promise.resolve(out.blobs.get(d)!));
/** A pass of one request's chunk of `query` positions after `cached` (one logits row: it samples). */
/** Why `claims append` refuses pass 2 recomputing a 20-token prompt decoded once, on HF. */
const HF_RECOMPUTES =
  /^Cannot append claim: the serving history contradicts itself: pass 2 says \d+ cached tokens, the earlier passes computed 21: it computes positions again \(a request preempted and recomputed\), and HF's continuous batching in Transformers 4\.57 never preempts \(a request its scheduler cannot give cache blocks waits\)$/;
const pass = (query: number, cached: number, logitsRows = 1): HistoryPass => ({
  entries: [{ query, cached }],
  self: 0,
  rows: query,
  logitsRows,
});
const dense = await opened(SERVED_CHECKPOINT);
const moe = await opened("tables/models/qwen3-tiny-moe");

/** A bundled checkpoint opened from its folder, with each weight file's digest. */
async function opened(dir: string): Promise<SequenceFacts["checkpoint"]> {
  using source = await checkpointDir(`${ROOT}${dir}`);
  const ckpt = await openDecoderCheckpoint(source);
  const digests: Record<string, string> = {};
  for (const f of ckpt.files) digests[f] = sha256Hex(await Deno.readFile(`${ROOT}${dir}/${f}`));
  return { ckpt, digests };
}

function facts(s: ServedFacts, over: Partial<SequenceFacts> = {}): SequenceFacts {
  return {
    position: nextLogPosition(null, { logId: "t" }),
    checkpoint: dense,
    history: s.history,
    tokens: s.tokens,
    stack: SERVING_STACK,
    profile: "a100",
    multiProcessorCount: 108,
    kernel: { catalog: SERVING_CATALOG },
    fingerprint: s.fingerprint,
    layerChain: s.layerChain,
    ...over,
  };
}

/** Appends records built from facts to a new log, in order. */
async function logOf(all: readonly SequenceFacts[]): Promise<ClaimLog> {
  const records: ClaimRecord[] = [];
  for (const f of all) {
    const log = records.length === 0 ? null : parseClaimLog(formatClaimLog(records));
    records.push(
      await sequenceClaim({ ...f, position: nextLogPosition(log, { logId: "t" }) }, {
        store,
      }),
    );
  }
  return parseClaimLog(formatClaimLog(records));
}

const ctx = {
  store,
  walker: engineWalker,
  attention,
  blobs: { dir: "memory", get: (d: string) => Promise.resolve(out.blobs.get(d) ?? null) },
};

function edited(s: ServedFacts, edit: (p: HistoryPass, i: number) => HistoryPass): Uint8Array {
  return encodeServingHistory(parseServingHistory(s.history).map(edit));
}

Deno.test("sequenceClaim() builds the simulated prover's record from a served sequence's facts, and it verifies PASS", async () => {
  assert.equal(served.length, 2);
  const log = await logOf(served.map((s) => facts(s)));
  for (const [i, s] of served.entries()) {
    const p = log.records[i]!.predicate;
    const sim = s.record.predicate;
    assert.deepEqual(p.workload, sim.workload);
    assert.deepEqual([p.batch, p.fingerprint, p.hardware], [
      sim.batch,
      sim.fingerprint,
      sim.hardware,
    ]);
    assert.equal(p.software.components.transformers, "4.57.x", "the stack's components are kept");
    const r = await verifyRecord(ctx, { log, index: i });
    assert.equal(r.status, "PASS", `${i}: ${r.reason}`);
    assert.ok(r.steps.some((x) => x.step === "tokens" && x.ok), `${i}: greedy tokens checked`);
  }
  const fp = served[0]!.fingerprint;
  const flipped = fp.slice(0, 63) + (fp[63] === "0" ? "1" : "0");
  const bad = await logOf([facts(served[0]!, { fingerprint: flipped })]);
  assert.equal((await verifyRecord(ctx, { log: bad, index: 0 })).status, "FAIL");
});

Deno.test("sequenceClaim() records the sampler of sampled decoding and chosen positions", async () => {
  const s = served[1]!;
  const { prompt, generated } = s.tokens as { prompt: number[]; generated: number[] };
  const last = prompt.length + generated.length - 2; // the last computed position
  const r = await sequenceClaim(
    facts(s, { sampler: "top-p 0.9, seed 7", positions: [0, last] }),
    { store },
  );
  const w = r.predicate.workload as SequenceWorkload;
  assert.deepEqual([w.decoding, w.sampler, w.positions], [
    "sampled",
    "top-p 0.9, seed 7",
    [0, last],
  ]);
  assert.deepEqual(r.predicate.fingerprint.shape, [2, dense.ckpt.config.hidden]);
});

Deno.test("sequenceClaim() refuses a malformed or self-contradicting history with HISTORY_INVALID", async () => {
  const s = served[1]!;
  const text = new TextDecoder().decode(s.history);
  const histories = [
    new TextEncoder().encode("{}"),
    new TextEncoder().encode(JSON.stringify(JSON.parse(text), null, 2)), // not canonical
    new TextEncoder().encode(`{"passes":[],"schema":"${SERVING_HISTORY_SCHEMA}"}`),
    edited(s, (p, i) => (i === 1 ? { ...p, rows: p.rows + 1 } : p)), // rows not the flattened sum
    edited(
      s,
      (p, i) =>
        i === 2
          ? { ...p, entries: p.entries.map((e, j) => (j === p.self ? { ...e, cached: 0 } : e)) }
          : p,
    ), // cached length that does not follow the earlier passes
  ];
  for (const history of histories) {
    await assertRejectsCode(
      () => sequenceClaim(facts(s, { history }), { store }),
      InputError,
      "HISTORY_INVALID",
    );
  }
});

Deno.test("sequenceClaim() refuses tokens the checkpoint or the history cannot hold with TOKENS_INVALID", async () => {
  const s = served[0]!;
  const { prompt, generated } = s.tokens;
  const vocab = dense.ckpt.config.vocab;
  for (
    const tokens of [
      { prompt, generated: generated.slice(1) }, // one token fewer than the passes compute
      { prompt, generated: [...generated, 1] },
      { prompt: prompt.slice(1), generated: [prompt[0]!, ...generated] }, // a pass across both
      { prompt: [vocab, ...prompt.slice(1)], generated },
      { prompt: [], generated },
      { prompt, generated, extra: 1 },
      [prompt, generated],
    ]
  ) {
    await assertRejectsCode(
      () => sequenceClaim(facts(s, { tokens }), { store }),
      InputError,
      "TOKENS_INVALID",
    );
  }
});

Deno.test("sequenceClaim() refuses on vLLM a sequence that passes max_model_len after its first generated token, which vLLM stops at", async () => {
  const s = served[0]!;
  const { prompt, generated } = s.tokens;
  assert.ok(generated.length >= 2);
  const total = prompt.length + generated.length;
  const limited = (maxPositionEmbeddings: number) => ({
    stack: "vllm-0.11-eager-fa2-lg2-model",
    checkpoint: {
      ...dense,
      ckpt: { ...dense.ckpt, config: { ...dense.ckpt.config, maxPositionEmbeddings } },
    },
  });
  await assert.rejects(
    () => sequenceClaim(facts(s, limited(total - 1)), { store }),
    (e: Error) => {
      assert.ok(e instanceof InputError && e.code === "TOKENS_INVALID", e.message);
      assert.match(
        e.message,
        new RegExp(`${total} tokens .* pass vLLM's max_model_len ${total - 1}`),
      );
      return true;
    },
  );
  // At the limit vLLM serves it (the refusal above is the limit's, nothing else's), once the
  // other requests of its batch fit the limit too (a later test refuses them).
  const fitting = edited(s, (q) => ({
    ...q,
    entries: q.entries.map((e, j) =>
      j === q.self ? e : { ...e, cached: Math.min(e.cached, total - e.query) }
    ),
  }));
  await sequenceClaim(facts(s, { ...limited(total), history: fitting }), { store });
  // HF's stack has no such limit.
  await sequenceClaim(facts(s, { checkpoint: limited(total - 1).checkpoint }), { store });
});

Deno.test("sequenceClaim() refuses a history of another checkpoint, and other contradictions, with CLAIM_INVALID", async () => {
  const s = served[0]!;
  const moeRows = (p: HistoryPass) => ({ ...p, expertRows: [[p.rows, p.rows, 0, 0, 0, 0, 0, 0]] });
  const h = "ab".repeat(32);
  for (
    const over of [
      { history: edited(s, moeRows) }, // expert rows for the dense checkpoint
      { checkpoint: moe, layerChain: undefined }, // shared passes without expert rows
      {
        checkpoint: moe,
        layerChain: undefined,
        history: edited(s, (p) => ({ ...p, expertRows: [[p.rows]] })),
      },
      {
        checkpoint: moe,
        layerChain: undefined,
        history: edited(s, (p) => ({ ...moeRows(p), expertRows: [[1, 0, 0, 0, 0, 0, 0, 0]] })),
      },
      { stack: "hf-qwen3-flash-attn-torch2.8" }, // pads batches: no served sequences
      { positions: [99] },
      { positions: [] },
      { positions: [0] }, // leaves out the last computed position
      { sampler: "" },
      { fingerprint: "x" },
      { layerChain: [{ attention: h, mlp: h }] }, // 1 entry, 2 layers
    ] satisfies Partial<SequenceFacts>[]
  ) {
    await assertRejectsCode(
      () => sequenceClaim(facts(s, over), { store }),
      InputError,
      "CLAIM_INVALID",
    );
  }
  const ok = await sequenceClaim(
    facts(s, { checkpoint: moe, layerChain: undefined, history: edited(s, moeRows) }),
    { store },
  );
  assert.equal(ok.predicate.workload.kind, "sequence", "a history whose expert rows fit is built");
  // vLLM's fused MoE computes a pass's rows at once: shared passes need no expert rows there.
  const fused = await sequenceClaim(
    facts(s, { checkpoint: moe, layerChain: undefined, stack: "vllm-0.11-eager-fa2" }),
    { store },
  );
  assert.equal(fused.predicate.software.stack, "vllm-0.11-eager-fa2");
});

Deno.test("sequenceClaim() takes a prefix-cache hit and, on vLLM, a recomputation after preemption as run; refuses a recomputation on HF's continuous batching (Transformers 4.57 never preempts) and a speculative pass", async () => {
  const s = served[0]!;
  const history = (passes: HistoryPass[]) => encodeServingHistory(passes);
  const claim = (passes: HistoryPass[], tokens: SequenceFacts["tokens"], stack = SERVING_STACK) =>
    sequenceClaim(facts(s, { history: history(passes), tokens, layerChain: undefined, stack }), {
      store,
    });
  const prompt = Array.from({ length: 20 }, (_, i) => 10 + i);
  const hit = await claim([pass(4, 16), pass(1, 20)], { prompt, generated: [7, 7] });
  assert.deepEqual((hit.predicate.workload as SequenceWorkload).positions, [20]);
  const tokens = { prompt: [3, 4, 5], generated: [6, 7, 8, 9] };
  const recomputed = [pass(3, 0), pass(1, 3), pass(5, 0), pass(1, 5)];
  const again = await claim(recomputed, tokens, "vllm-0.11-eager-fa2-lg2-model");
  assert.deepEqual((again.predicate.workload as SequenceWorkload).positions, [5]);
  await assert.rejects(() => claim(recomputed, tokens), (e: Error) => {
    assert.ok(e instanceof InputError && e.code === "HISTORY_INVALID", e.message);
    assert.match(
      e.message,
      /^Cannot append claim: the serving history contradicts itself: pass 2 says 0 cached tokens, the earlier passes computed 4: it computes positions again \(a request preempted and recomputed\), and HF's continuous batching in Transformers 4\.57 never preempts/,
    );
    return true;
  });
  await assertRejectsCode(
    () => claim([pass(3, 0), pass(1, 3), pass(2, 4)], tokens),
    InputError,
    "TOKENS_INVALID",
  );
  await assertRejectsCode(
    () => claim([pass(3, 0), pass(1, 4), pass(1, 5)], tokens),
    InputError,
    "HISTORY_INVALID",
  );
});

Deno.test("sequenceClaim() refuses on vLLM a prompt chunk ended before the pass used a whole token budget (max_num_batched_tokens)", async () => {
  const s = served[0]!;
  const tokens = { prompt: Array.from({ length: 12 }, (_, i) => 10 + i), generated: [7, 8] };
  const claim = (passes: HistoryPass[], stack: string) =>
    sequenceClaim(
      facts(s, { history: encodeServingHistory(passes), tokens, layerChain: undefined, stack }),
      { store },
    );
  const halves = [pass(6, 0, 0), pass(6, 6), pass(1, 12)];
  await assert.rejects(
    () => claim(halves, "vllm-0.11-eager-fa2-lg2-model"),
    (e: Error) => {
      assert.ok(e instanceof InputError && e.code === "HISTORY_INVALID", e.message);
      assert.match(
        e.message,
        /pass 0 ends the prompt's chunk at 6 of its 12 tokens with 6 tokens scheduled, .*\(max_num_batched_tokens 2048 or 8192: /,
      );
      return true;
    },
  );
  await claim([pass(12, 0), pass(1, 12)], "vllm-0.11-eager-fa2-lg2-model");
  // HF's continuous batching has its own scheduler: not held to vLLM's budget.
  await claim(halves, SERVING_STACK);
});

Deno.test("sequenceClaim() refuses on vLLM a prefix-cache hit or a recomputation's start that is not whole KV blocks (16 positions), and takes block-aligned ones as run", async () => {
  const s = served[0]!;
  const prompt = Array.from({ length: 20 }, (_, i) => 10 + i);
  const claim = (passes: HistoryPass[], stack: string) =>
    sequenceClaim(
      facts(s, {
        history: encodeServingHistory(passes),
        tokens: { prompt, generated: [7, 7] },
        layerChain: undefined,
        stack,
      }),
      { store },
    );
  const vllm = "vllm-0.11-eager-fa2-lg2-model";
  for (
    const [passes, why] of [
      [[pass(3, 17), pass(1, 20)], /^Cannot append claim: pass 0 starts after 17 cached positions/],
      [
        [pass(20, 0), pass(2, 19)],
        /^Cannot append claim: pass 1 recomputes from position 19 .*whole 16-position KV blocks/,
      ],
    ] as const
  ) {
    await assert.rejects(() => claim([...passes], vllm), (e: Error) => {
      assert.ok(e instanceof InputError && e.code === "HISTORY_INVALID", e.message);
      assert.match(e.message, why);
      return true;
    });
  }
  await claim([pass(4, 16), pass(1, 20)], vllm);
  await claim([pass(20, 0), pass(5, 16)], vllm);
  // HF's continuous batching is not held to vLLM's blocks.
  await claim([pass(3, 17), pass(1, 20)], SERVING_STACK);
});

Deno.test("sequenceClaim() refuses a recomputation past the tokens the request had, and on vLLM one ended short of them below the token budget; takes on vLLM a restart from a hit past the sequence's own positions; HF's continuous batching (Transformers 4.57 never preempts) refuses every recomputation", async () => {
  const s = served[0]!;
  const vllm = "vllm-0.11-eager-fa2-lg2-model";
  const claim = (passes: HistoryPass[], o: { prompt: number; stack: string }) => {
    const own = passes.at(-1)!.entries[passes.at(-1)!.self]!;
    const generated = own.cached + own.query + 1 - o.prompt;
    return sequenceClaim(
      facts(s, {
        history: encodeServingHistory(passes),
        tokens: {
          prompt: Array.from({ length: o.prompt }, (_, i) => 10 + i),
          generated: Array(generated).fill(7),
        },
        layerChain: undefined,
        stack: o.stack,
      }),
      { store },
    );
  };
  const refused = (passes: HistoryPass[], o: { prompt: number; stack: string }, why: RegExp) =>
    assert.rejects(() => claim(passes, o), (e: Error) => {
      assert.ok(e instanceof InputError && e.code === "HISTORY_INVALID", e.message);
      assert.match(e.message, why);
      return true;
    });
  // Preempted after one decode of a 20-token prompt: 22 tokens, so positions 0..21 at most.
  await refused(
    [pass(20, 0), pass(1, 20), pass(23, 0)],
    { prompt: 20, stack: vllm },
    /^Cannot append claim: the serving history contradicts itself: pass 2 computes positions 0\.\.22, but the request had 22 tokens then .*: position 22's token did not exist yet$/,
  );
  await claim([pass(20, 0), pass(1, 20), pass(22, 0)], { prompt: 20, stack: vllm });
  // HF's continuous batching in Transformers 4.57 never preempts: no recomputation is its run.
  for (
    const recomputed of [[pass(20, 0), pass(1, 20), pass(23, 0)], [
      pass(20, 0),
      pass(1, 20),
      pass(22, 0),
    ]]
  ) {
    await refused(recomputed, { prompt: 20, stack: SERVING_STACK }, HF_RECOMPUTES);
  }
  // Recomputed from its 16-position hit one position at a time, in passes of one token (the
  // first chunk stops before the 22 tokens the request had: it samples nothing).
  const short = [pass(20, 0), pass(1, 20), pass(1, 16, 0), pass(5, 17)];
  await refused(
    short,
    { prompt: 20, stack: vllm },
    /^Cannot append claim: pass 2 ends its recomputation's chunk at 17 of the 22 tokens the request had after its preemption, with 1 tokens scheduled/,
  );
  // HF's continuous batching, not held to vLLM's budget, never preempts either.
  await refused(short, { prompt: 20, stack: SERVING_STACK }, HF_RECOMPUTES);
  // A 20-position chunk cut by a whole 2048-token budget, restarted from 32 cached positions
  // another request computed: vLLM's prefix cache gives such a hit, HF has none.
  const cut = { ...pass(20, 0), entries: [{ query: 20, cached: 0 }, { query: 2028, cached: 0 }] };
  const hit = [{ ...cut, rows: 2048, logitsRows: 1 }, pass(8, 32), pass(1, 40)];
  await claim(hit, { prompt: 40, stack: vllm });
  await refused(
    hit,
    { prompt: 40, stack: SERVING_STACK },
    /^Cannot append claim: the serving history contradicts itself: pass 1 says 32 cached tokens, the earlier passes computed 20$/,
  );
});

Deno.test("sequenceClaim() refuses on vLLM a history whose other requests hold more positions than max_model_len, which vLLM serves to none", async () => {
  const s = served.find((x) => parseServingHistory(x.history).some((q) => q.entries.length > 1))!;
  const total = s.tokens.prompt.length + s.tokens.generated.length;
  const limit = Math.max(total, longestNeighbour(parseServingHistory(s.history))!.keys) + 8;
  const longer = edited(s, (q) => ({
    ...q,
    entries: q.entries.map((e, j) => j === q.self ? e : { ...e, cached: limit }),
  }));
  const vllm = {
    stack: "vllm-0.11-eager-fa2-lg2-model",
    checkpoint: {
      ...dense,
      ckpt: { ...dense.ckpt, config: { ...dense.ckpt.config, maxPositionEmbeddings: limit } },
    },
  };
  await assert.rejects(
    () => sequenceClaim(facts(s, { ...vllm, history: longer }), { store }),
    (e: Error) => {
      assert.ok(e instanceof InputError && e.code === "HISTORY_INVALID", e.message);
      assert.match(
        e.message,
        /another request of pass \d+: \d+ positions of one request are more than vLLM's max_model_len/,
      );
      return true;
    },
  );
  // The sequence itself fits: the honest history is accepted under the same limit.
  await sequenceClaim(facts(s, vllm), { store });
});

Deno.test("sequenceClaim() holds every history's logits rows to the entries that sample, restarts included: a recomputing chunk cut before the tokens the request had samples nothing", async () => {
  const s = served[0]!;
  const vllm = "vllm-0.11-eager-fa2-lg2-model";
  const tokens = { prompt: Array.from({ length: 40 }, (_, i) => 10 + i), generated: [7, 8, 9] };
  const claim = (passes: HistoryPass[], stack: string) =>
    sequenceClaim(
      facts(s, { history: encodeServingHistory(passes), tokens, layerChain: undefined, stack }),
      { store },
    );
  const refused = (passes: HistoryPass[], stack: string, why: RegExp) =>
    assert.rejects(() => claim(passes, stack), (e: Error) => {
      assert.ok(e instanceof InputError && e.code === "HISTORY_INVALID", e.message);
      assert.match(e.message, why);
      return true;
    });
  // No preemption: the pass that ends the prompt samples (review h168: appended, then FAILed).
  await refused(
    [pass(40, 0, 0), pass(1, 40), pass(1, 41)],
    vllm,
    /^Cannot append claim: the serving history contradicts itself: pass 0 records 0 logits rows, its computed entries emit 1 token\(s\)$/,
  );
  // Preempted after one decode (42 tokens), recomputed over positions 0..40 in a pass the
  // 2048-token budget cut: vLLM discards that partial prefill's token, so the request's own
  // entry samples nothing there and an honest prover writes 0 (or 1, another request sampling).
  const cut = (logitsRows: number): HistoryPass => ({
    entries: [{ query: 41, cached: 0 }, { query: 2007, cached: 0 }],
    self: 0,
    rows: 2048,
    logitsRows,
  });
  for (const logitsRows of [0, 1]) {
    await claim([pass(40, 0), pass(1, 40), cut(logitsRows), pass(1, 41)], vllm);
  }
  // HF's continuous batching holds no token budget, but in Transformers 4.57 it never preempts:
  // a recomputing chunk alone in its pass is refused whatever its logits rows.
  for (const logitsRows of [0, 1]) {
    await refused(
      [pass(40, 0), pass(1, 40), pass(41, 0, logitsRows), pass(1, 41)],
      SERVING_STACK,
      /^Cannot append claim: the serving history contradicts itself: pass 2 says 0 cached tokens, the earlier passes computed 41: it computes positions again /,
    );
  }
});

Deno.test("sequenceClaim() refuses fingerprinted positions that no pass of the history computes, with CLAIM_INVALID", async () => {
  const s = served[0]!;
  const prompt = Array.from({ length: 20 }, (_, i) => 10 + i);
  const claim = (positions: number[]) =>
    sequenceClaim(
      facts(s, {
        history: encodeServingHistory([pass(4, 16), pass(1, 20)]),
        tokens: { prompt, generated: [7, 7] },
        layerChain: undefined,
        positions,
      }),
      { store },
    );
  // Position 3 is one of the 16 a prefix-cache hit brought: computed in another request's passes.
  await assert.rejects(() => claim([3, 20]), (e: Error) => {
    assert.ok(e instanceof InputError && e.code === "CLAIM_INVALID", e.message);
    assert.match(e.message, /positions must be computed by the history's passes: position 3 /);
    return true;
  });
  await claim([16, 20]);
});
