/**
 * Sequence records end to end: the simulated prover's continuous-batching engine serves seeded
 * requests (chunked prefill, decode steps, mixed passes) on the bundled dense and MoE
 * checkpoints, pass by pass on every entry; the verifier replays each record's sequence alone
 * from its history: honest records PASS (hidden states and greedy tokens), every serving
 * falsification FAILs.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  encodeServingHistory,
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
  parseServingHistory,
  type SequenceWorkload,
  sha256Hex,
} from "../../src/claims/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { servingScenario } from "./_serving_fixture.ts";

const store = await openAssetStore();
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

const scenario = parseScenario(servingScenario());
const out = await makeClaims(scenario, { store, walker, attention });
const blobs: BlobStore = { dir: "memory", get: (d) => Promise.resolve(out.blobs.get(d) ?? null) };
const ctx = { store, blobs, walker, attention };
const log = parseClaimLog(formatClaimLog(out.records));

Deno.test("sequence records: honest histories (chunked prefill, decode, mixed passes) PASS for dense and MoE", async () => {
  assert.equal(log.records.length, 11);
  let chunked = 0, mixed = 0, decode = 0, split = 0;
  for (let i = 1; i < log.records.length; i++) {
    const w = log.records[i]!.predicate.workload as SequenceWorkload;
    assert.equal(w.kind, "sequence");
    const passes = parseServingHistory(out.blobs.get(w.history.sha256)!);
    const own = passes.map((p) => p.entries[p.self]!);
    if (own.filter((e) => e.cached < w.tokens.prompt.length && e.query > 1).length > 1) chunked++;
    if (
      passes.some((p) => p.entries.some((e) => e.query === 1) && p.entries.some((e) => e.query > 1))
    ) mixed++;
    decode += own.filter((e) => e.query === 1).length;
    const r = await verifyRecord(ctx, { log, index: i });
    assert.equal(r.status, "PASS", `${i}: ${r.reason}`);
    assert.ok(r.steps.some((s) => s.step === "tokens" && s.ok), `${i}: greedy tokens checked`);
    if (r.steps.some((s) => /up to [2-9] KV split/.test(s.detail))) split++;
  }
  assert.ok(
    chunked > 0 && mixed > 0 && decode > 0,
    `chunked ${chunked} mixed ${mixed} decode ${decode}`,
  );
  assert.ok(split > 0, "some decode steps ran split-KV attention and its combine");
});

Deno.test("sequence records: every serving falsification FAILs, naming what differs", async () => {
  const fakes = [
    // Request schedules (seed v3): dense 200+3, 7+5, 3+3, 200+1, 3+5; MoE 7+5, 3+3, 200+3,
    // 200+5, 3+3 (prompt + generated). Passes named here hold their record alone, except the
    // misreported one (40 rows reported as 16: another kernel class).
    { seq: 1, kind: "extra_sequence", pass: 9, extraLength: 10 },
    { seq: 2, kind: "pass_shape", pass: 0, claimedRows: 16 },
    { seq: 3, kind: "token_replaced", step: 1, token: 5 },
    { seq: 7, kind: "fingerprint", bit: 3 },
    { seq: 9, kind: "split_count", pass: 8, splits: 1 },
  ];
  const fout = await makeClaims(parseScenario(servingScenario(fakes)), {
    store,
    walker,
    attention,
  });
  const fblobs: BlobStore = {
    dir: "memory",
    get: (d) => Promise.resolve(fout.blobs.get(d) ?? null),
  };
  const flog = parseClaimLog(formatClaimLog(fout.records));
  const kinds = new Map(fout.falsified.map((f) => [f.seq, f.kind]));
  for (const f of fakes) assert.equal(kinds.get(f.seq), f.kind);
  for (let i = 1; i < flog.records.length; i++) {
    const r = await verifyRecord({ ...ctx, blobs: fblobs }, { log: flog, index: i });
    const kind = kinds.get(i);
    if (kind === undefined) {
      assert.equal(r.status, "PASS", `${i}: ${r.reason}`);
      continue;
    }
    assert.equal(r.status, "FAIL", `${i} (${kind}): ${r.reason}`);
    if (kind === "token_replaced") {
      assert.match(r.reason, /hidden states match but generated token 1 \(position 4\) is 5/);
    } else if (kind !== "fingerprint") {
      assert.ok(r.firstDivergence !== undefined, `${i}: first diverging layer`);
    }
  }
});

Deno.test("sequence records: a fingerprint that leaves out the last computed position is NOT_VERIFIED even when it matches", async () => {
  const honest = out.records[1]!;
  const only = (sha256: string) => {
    const p = structuredClone(honest.predicate) as unknown as Record<string, unknown>;
    p.log = { logId: "x", seq: 0, prev: GENESIS_PREV };
    p.workload = { ...(p.workload as object), positions: [0], layerChain: undefined };
    const fp = p.fingerprint as { shape: number[] };
    p.fingerprint = { ...fp, shape: [1, fp.shape[1]], sha256 };
    return parseClaimLog(formatClaimLog([makeClaimRecord(p as never)]));
  };
  const wrong = await verifyRecord(ctx, { log: only("ab".repeat(32)), index: 0 });
  assert.equal(wrong.status, "FAIL", wrong.reason);
  const right = await verifyRecord(ctx, { log: only(wrong.recomputed!), index: 0 });
  assert.equal(right.status, "NOT_VERIFIED", right.reason);
  assert.match(right.reason, /leaves out the last computed position \d+: the tokens after/);
});

Deno.test("sequence records: a served sequence at tp 2 of a checkpoint with one KV head FAILs (HF's tp_plan cannot split it), before tp > 1 on continuous batching is said to be unmodelled; at tp 1 it PASSes", async () => {
  const honest = out.records[1]!;
  const at = (tp: number) => {
    const p = structuredClone(honest.predicate);
    const record = makeClaimRecord({
      ...p,
      log: { logId: "x", seq: 0, prev: GENESIS_PREV },
      hardware: { ...p.hardware, count: Math.max(tp, p.hardware.count) },
      parallelism: { ...p.parallelism, tp },
    });
    return parseClaimLog(formatClaimLog([record]));
  };
  const one = await verifyRecord(ctx, { log: at(1), index: 0 });
  assert.equal(one.status, "PASS", one.reason);
  // The tiny dense checkpoint's one KV head of 128 cannot be split: each rank's k_proj block is
  // half a head. (Splits the plan can make are NOT_VERIFIED on continuous batching:
  // verify_tensor_parallel_test.ts.)
  const two = await verifyRecord(ctx, { log: at(2), index: 0 });
  assert.equal(two.status, "FAIL", two.reason);
  assert.match(
    two.reason,
    /^record contradicts its checkpoint: layout 'hf-tp-plan' cannot split 1 KV heads over 2 ranks/,
  );
});

Deno.test("sequence records: the cost bound counts the sequence's own rows, not its neighbours' (busy passes PASS)", async () => {
  const honest = out.records[1]!;
  const w = honest.predicate.workload as SequenceWorkload;
  // One long prefill chunk of another request beside every pass: its rows, logits row and
  // attention over 16.7 M cached positions are shapes the replay reads, never computes.
  const passes = parseServingHistory(out.blobs.get(w.history.sha256)!).map((p) => ({
    ...p,
    entries: [...p.entries, { query: 4000, cached: 16_700_000 }],
    rows: p.rows + 4000,
    logitsRows: p.logitsRows + 1,
  }));
  const bytes = encodeServingHistory(passes);
  const digest = sha256Hex(bytes);
  const busy: BlobStore = {
    dir: "memory",
    get: (d) => Promise.resolve(d === digest ? bytes : out.blobs.get(d) ?? null),
  };
  const at = (sha256: string) => {
    const p = structuredClone(honest.predicate);
    return parseClaimLog(formatClaimLog([makeClaimRecord({
      ...p,
      log: { logId: "x", seq: 0, prev: GENESIS_PREV },
      batch: { ...p.batch, size: Math.max(...passes.map((q) => q.entries.length)) },
      workload: { ...w, history: { ...w.history, sha256: digest }, layerChain: undefined },
      fingerprint: { ...p.fingerprint, sha256 },
    })]));
  };
  // The neighbours change the launches' shapes, so the first run FAILs on the old bits; the
  // record carrying the replay's own fingerprint PASSes.
  const first = await verifyRecord({ ...ctx, blobs: busy }, { log: at("ab".repeat(32)), index: 0 });
  assert.equal(first.status, "FAIL", first.reason);
  const r = await verifyRecord({ ...ctx, blobs: busy }, { log: at(first.recomputed!), index: 0 });
  assert.equal(r.status, "PASS", r.reason);
});

Deno.test("sequence records: a prefix-cache hit is NOT_VERIFIED, naming it, and a contradiction beside it still FAILs; on HF's continuous batching (Transformers 4.57 never preempts) a recomputation FAILs", async () => {
  const honest = out.records[1]!;
  const w = honest.predicate.workload as SequenceWorkload;
  const extra = new Map<string, Uint8Array>();
  const reblobs: BlobStore = {
    dir: "memory",
    get: (d) => Promise.resolve(extra.get(d) ?? out.blobs.get(d) ?? null),
  };
  const pass = (query: number, cached: number, logitsRows = 1) => ({
    entries: [{ query, cached }],
    self: 0,
    rows: query,
    logitsRows,
  });
  const verify = (
    passes: ReturnType<typeof pass>[],
    tokens: { prompt: number[]; generated: number[] },
  ) => {
    const bytes = encodeServingHistory(passes);
    const digest = sha256Hex(bytes);
    extra.set(digest, bytes);
    const p = structuredClone(honest.predicate);
    const last = passes.reduce(
      (m, q) => Math.max(m, q.entries[0]!.cached + q.entries[0]!.query),
      0,
    );
    const log = parseClaimLog(formatClaimLog([makeClaimRecord({
      ...p,
      log: { logId: "x", seq: 0, prev: GENESIS_PREV },
      batch: { ...p.batch, size: 1 },
      fingerprint: { ...p.fingerprint, shape: [1, p.fingerprint.shape[1]!] },
      workload: {
        ...w,
        tokens,
        history: { sha256: digest, passes: passes.length },
        positions: [last - 1],
        layerChain: undefined,
      },
    })]));
    return verifyRecord({ ...ctx, blobs: reblobs }, { log, index: 0 });
  };
  const prompt = Array.from({ length: 20 }, (_, i) => 10 + i);
  // vLLM V1 (prefix caching on by default): the first 16 prompt positions come from the cache.
  const hit = await verify([pass(4, 16), pass(1, 20)], { prompt, generated: [7, 7] });
  assert.equal(hit.status, "NOT_VERIFIED", hit.reason);
  assert.match(hit.reason, /^pass 0 starts after 16 cached positions \(a prefix-cache hit\)/);
  // The same history with two logits rows for one emitting entry contradicts itself.
  const bad = await verify([pass(4, 16, 2), pass(1, 20)], { prompt, generated: [7, 7] });
  assert.equal(bad.status, "FAIL", bad.reason);
  assert.match(bad.reason, /pass 0 says 2 logits rows for 1 entries/);
  // Preempted after two passes, then recomputed from position 0 over the tokens so far: HF's
  // continuous batching in Transformers 4.57 never preempts (its schedulers leave a request they
  // cannot give cache blocks waiting), so on this stack every recomputation contradicts the
  // history (it had been NOT_VERIFIED, whatever the fingerprint). On vLLM such a history stays
  // NOT_VERIFIED (tests/hostile/hf_recompute_test.ts, vllm_restarts_test.ts).
  const tokens = { prompt: [3, 4, 5], generated: [6, 7, 8, 9] };
  const three = { prompt: [3, 4, 5], generated: [6, 7, 8] };
  const never = (cached: number) =>
    new RegExp(
      `^record contradicts its history: pass 2 says ${cached} cached tokens, the earlier passes ` +
        "computed 4: it computes positions again \\(a request preempted and recomputed\\), and " +
        "HF's continuous batching in Transformers 4\\.57 never preempts",
    );
  const recomputed: [ReturnType<typeof pass>[], typeof tokens][] = [
    [[pass(3, 0), pass(1, 3), pass(5, 0), pass(1, 5)], tokens],
    // A chunk that stops before the 5 tokens the request had, sampling nothing.
    [[pass(3, 0), pass(1, 3), pass(4, 0, 0), pass(1, 4)], three],
    // docs/prover.md's example, whose history ends with the recomputation.
    [[pass(3, 0), pass(1, 3), pass(5, 0)], { prompt: [5, 6, 7], generated: [9, 9, 9] }],
    // Over a position whose token did not exist yet (the request had 5 tokens).
    [[pass(3, 0), pass(1, 3), pass(6, 0)], tokens],
    // From a later position.
    [[pass(3, 0), pass(1, 3), pass(2, 3), pass(1, 5)], tokens],
  ];
  for (const [passes, t] of recomputed) {
    const r = await verify(passes, t);
    assert.equal(r.status, "FAIL", r.reason);
    assert.match(r.reason, never(passes[2]!.entries[0]!.cached));
  }
  // A pass that says more is cached than the earlier passes computed contradicts its history.
  const ahead = await verify([pass(3, 0), pass(1, 4), pass(1, 5)], tokens);
  assert.equal(ahead.status, "FAIL", ahead.reason);
  assert.match(ahead.reason, /pass 1 says 4 cached tokens, the earlier passes computed 3/);
});
