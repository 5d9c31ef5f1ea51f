/**
 * vLLM records end to end: the simulated prover runs the bundled dense checkpoints on vLLM 0.11's
 * eager and piecewise-graph stacks (TP 1 and 2) and serves sequences on the eager stack; the
 * verifier recomputes them. Honest records PASS and say their vLLM components rest on
 * source-derived evidence; a pass that ran inside CUDA graphs while claiming the eager stack
 * FAILs; records on vLLM's default (Inductor) stack or FA3 are NOT_VERIFIED with the reason.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  type ClaimPredicate,
  encodeServingHistory,
  formatClaimLog,
  GENESIS_PREV,
  type HistoryPass,
  makeClaimRecord,
  type ModelForwardWorkload,
  parseClaimLog,
  parseServingHistory,
  type SequenceWorkload,
  sha256Hex,
} from "../../src/claims/mod.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { loadAsset, loadGpuProfile, STACK_PROFILES } from "../../src/resolve/mod.ts";
import { batchPaddingMismatch } from "../../src/model/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { forwardSection, oneGemmScenario, servedSection, withStacks } from "./_serving_fixture.ts";

const store = await openAssetStore();
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

const EAGER = { stack: "vllm-0.11-eager-fa2", components: { vllm: "0.11.0" } };
const PIECEWISE = { stack: "vllm-0.11-custom-ops-piecewise-fa2", components: { vllm: "0.11.0" } };
const served = servedSection(["tables/models/qwen3-tiny-dense", "tables/models/qwen3-tiny-tp"], {
  parallel: [{ tp: 1 }, { tp: 2 }],
});
const scenario = parseScenario(oneGemmScenario({ logId: "vllm-test", seed: "vllm-v1" }, {
  hardware: { profile: "a100", count: 8 },
  forward: {
    ...withStacks(
      forwardSection(["tables/models/qwen3-tiny-dense", "tables/models/qwen3-tiny-tp"], {
        records: 6,
      }),
      [EAGER, EAGER, PIECEWISE],
    ),
    parallel: [{ tp: 1 }, { tp: 2 }],
  },
  serving: withStacks(served.serving, [{ ...EAGER, stack: "vllm-0.11-eager-fa2-lg2-model" }]),
  falsify: [
    // Record 1 (dense, eager): the pass ran inside graphs captured at 64 tokens (M 64, not <= 16).
    { seq: 1, kind: "cuda_graphs", captureSizes: [64] },
    ...served.falsify.map((f) => ({ ...(f as object), seq: (f as { seq: number }).seq + 6 })),
  ],
}));
const out = await makeClaims(scenario, { store, walker, attention });
const blobs: BlobStore = { dir: "memory", get: (d) => Promise.resolve(out.blobs.get(d) ?? null) };
const log = parseClaimLog(formatClaimLog(out.records));

Deno.test("vLLM forward (eager, piecewise graphs; TP 1 and 2) and served records: honest PASS with source-derived vLLM evidence, misreported graphs FAIL", async () => {
  const falsified = new Set(out.falsified.map((f) => f.seq));
  assert.ok(falsified.has(1));
  const stacks = new Set<string>();
  for (let index = 1; index < log.records.length; index++) {
    const p = log.records[index]!.predicate;
    stacks.add(`${p.software.stack} tp=${p.parallelism.tp}`);
    const r = await verifyRecord({ store, blobs, walker, attention }, { log, index });
    assert.equal(r.status, falsified.has(index) ? "FAIL" : "PASS", `${index}: ${r.reason}`);
    if (r.status !== "PASS") continue;
    const levels = new Map(r.evidence!.map((e) => [e.component, e.level]));
    const kernels = [...levels].find(([c]) => c.startsWith("layer kernels vllm-custom-ops"));
    assert.equal(kernels?.[1], "derived-from-source", `${index}: ${[...levels.keys()]}`);
    const attn = [...levels].find(([c]) => c.startsWith("attention fa2-vllm-paged"));
    assert.equal(attn?.[1], "derived-from-source", `${index}`);
    const layer = [...levels].find(([c]) => c.startsWith("decoder layer (qwen3,"));
    assert.equal(layer?.[1], "derived-from-source");
  }
  for (
    const want of [
      "vllm-0.11-eager-fa2 tp=1",
      "vllm-0.11-eager-fa2 tp=2",
      "vllm-0.11-custom-ops-piecewise-fa2 tp=1",
      "vllm-0.11-eager-fa2-lg2-model tp=1",
      "vllm-0.11-eager-fa2-lg2-model tp=2",
    ]
  ) assert.ok(stacks.has(want), `${want} in ${[...stacks]}`);
});

Deno.test("the simulated prover's vLLM forward records are ones claims append accepts: no pad token on a stack that flattens the batch", async () => {
  let forward = 0;
  for (const { predicate: p } of log.records) {
    if (p.workload.kind !== "model_forward") continue;
    forward++;
    const stack = await loadAsset(store, { kind: STACK_PROFILES, id: p.software.stack });
    const why = batchPaddingMismatch(
      (p.workload as ModelForwardWorkload).tokens,
      stack.value.operators?.batching,
    );
    assert.equal(why, null, `${p.software.stack}: ${why}`);
  }
  assert.equal(forward, 6);
});

Deno.test("a vLLM forward record naming a pad token contradicts its stack, which flattens the batch: FAIL by claims append's rule", async () => {
  const index = log.records.findIndex((r, i) =>
    i > 1 && r.predicate.workload.kind === "model_forward" &&
    r.predicate.software.stack === EAGER.stack
  );
  const p = log.records[index]!.predicate;
  const w = p.workload as ModelForwardWorkload;
  const alone = async (tokens: ModelForwardWorkload["tokens"]) => {
    const record = makeClaimRecord({
      ...p,
      log: { logId: "vllm-pad", seq: 0, prev: GENESIS_PREV },
      workload: { ...w, tokens },
    });
    const l = parseClaimLog(formatClaimLog([record]));
    return await verifyRecord({ store, blobs, walker, attention }, { log: l, index: 0 });
  };
  assert.equal(w.tokens.padTokenId, undefined);
  const honest = await alone(w.tokens);
  assert.equal(honest.status, "PASS", honest.reason);
  const padded = { ...w.tokens, padTokenId: 0 };
  const r = await alone(padded);
  assert.equal(r.status, "FAIL", r.reason);
  assert.equal(r.finding, "contradiction");
  assert.equal(r.recomputed, null);
  // The same words `claims append` refuses the batch with.
  const why = batchPaddingMismatch(padded, "flatten")!;
  assert.equal(r.reason, `record contradicts its stack: stack '${EAGER.stack}' ${why}`);
});

Deno.test("records on vLLM's default compiled stack are NOT_VERIFIED with the reason; an A100 record on FA3's stack FAILs (FlashAttention-3 needs sm_90)", async () => {
  // The log's last record (a served sequence): editing it breaks no later link.
  const last = log.records.length - 1;
  const base: ClaimPredicate = log.records[last]!.predicate;
  for (
    const [stack, status, why] of [
      ["vllm-0.11-default-fa2", "NOT_VERIFIED", /Inductor-generated Triton kernels/],
      ["vllm-0.11-eager-fa3-hopper", "FAIL", /'fa3-vllm' cannot run on sm_80/],
    ] as const
  ) {
    const records = log.records.slice();
    records[last] = {
      ...records[last]!,
      predicate: { ...base, software: { ...base.software, stack } },
    };
    const edited = parseClaimLog(formatClaimLog(records));
    const r = await verifyRecord({ store, blobs, walker, attention }, { log: edited, index: last });
    assert.equal(r.status, status, `${stack}: ${r.reason}`);
    assert.match(r.reason, why);
  }
});

Deno.test("a setting the stack pins on one architecture (on sm_90 VLLM_FLASH_ATTN_VERSION=2) FAILs a record of that architecture that states another, and no other", async () => {
  const last = log.records.length - 1;
  const base: ClaimPredicate = log.records[last]!.predicate;
  const h100 = await loadGpuProfile(store, "h100-sxm");
  const verdict = async (profile: { id: string; sha256: string } | null, env: string) => {
    const records = log.records.slice();
    const hardware = profile === null
      ? base.hardware
      : { ...base.hardware, profile: profile.id, profileSha256: profile.sha256 };
    const components = { ...base.software.components, env };
    records[last] = {
      ...records[last]!,
      predicate: { ...base, hardware, software: { ...base.software, components } },
    };
    const edited = parseClaimLog(formatClaimLog(records));
    return await verifyRecord({ store, blobs, walker, attention }, { log: edited, index: last });
  };
  const fa3 = "VLLM_ATTENTION_BACKEND=FLASH_ATTN VLLM_FLASH_ATTN_VERSION=3";
  // The A100 record: the variable is not pinned on sm_80 (the stack sets it on Hopper only).
  const a100 = await verdict(null, fa3);
  assert.equal(a100.status, "PASS", a100.reason);
  // The same record on an H100 contradicts its stack before any tensor is computed.
  const r = await verdict({ id: h100.profile.id, sha256: h100.sha256 }, fa3);
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, /contradicts its stack .*VLLM_FLASH_ATTN_VERSION='?3'?.*=2 on sm_90/);
});

Deno.test("a vLLM record with data-parallel ranks is NOT_VERIFIED (they step together) after its own contradictions; a world above the GPU count and an SM count the GPU cannot have are refused", async () => {
  const last = log.records.length - 1;
  const base: ClaimPredicate = log.records[last]!.predicate;
  const edit = async (p: ClaimPredicate) => {
    const records = log.records.slice();
    records[last] = { ...records[last]!, predicate: p };
    const edited = parseClaimLog(formatClaimLog(records));
    return await verifyRecord({ store, blobs, walker, attention }, { log: edited, index: last });
  };
  const honest = await edit(base);
  assert.equal(honest.status, "PASS", honest.reason);
  // Pipeline stages copy activations: the same bits, and the result says what that rests on.
  const piped = await edit({ ...base, parallelism: { ...base.parallelism, pp: 2 } });
  assert.equal(piped.status, "PASS", piped.reason);
  assert.deepEqual(
    piped.evidence!.find((e) => e.component.startsWith("pipeline")),
    { component: "pipeline parallelism pp=2 (stage copies)", level: "derived-from-source" },
  );
  assert.ok(!honest.evidence!.some((e) => e.component.startsWith("pipeline")));
  const dp2 = await edit({ ...base, parallelism: { ...base.parallelism, dp: 2 } });
  assert.equal(dp2.status, "NOT_VERIFIED", dp2.reason);
  assert.match(dp2.reason, /dp=2 on vLLM: data-parallel ranks step together/);
  // The refusal waits for the record's own contradictions: with data-parallel ranks they FAIL.
  const dpLies = await edit({
    ...base,
    batch: { size: base.batch.size + 5 },
    parallelism: { ...base.parallelism, dp: 2 },
  });
  assert.equal(dpLies.status, "FAIL", dpLies.reason);
  assert.match(dpLies.reason, /contradicts its history: batch size/);
  const dpStages = await edit({
    ...base,
    hardware: { ...base.hardware, count: 256 },
    parallelism: { ...base.parallelism, dp: 2, pp: 64 },
  });
  assert.equal(dpStages.status, "FAIL", dpStages.reason);
  assert.match(
    dpStages.reason,
    /vLLM: pp=64 pipeline stages for \d+ layer\(s\) leave stage 0 without a layer .*KV cache/,
  );
  const crowded = await edit({
    ...base,
    hardware: { ...base.hardware, count: 1 },
    parallelism: { ...base.parallelism, dp: 4096 },
  });
  assert.equal(crowded.status, "FAIL", crowded.reason);
  assert.match(crowded.reason, /x dp=4096 ranks on 1 GPU/);
  // The SM count steers FA2's split heuristic: it must be the A100's 108.
  const w = base.workload as SequenceWorkload;
  const sms = (n: number) =>
    edit({ ...base, workload: { ...w, attention: { ...w.attention, multiProcessorCount: n } } });
  const many = await sms(4096);
  assert.equal(many.status, "FAIL", many.reason);
  assert.match(
    many.reason,
    /contradicts its GPU: multiProcessorCount 4096 on a 'a100', whose chip/,
  );
  const one = await sms(1);
  assert.equal(one.status, "NOT_VERIFIED", one.reason);
  assert.match(one.reason, /multiProcessorCount 1 below the 'a100' chip's 108 SMs/);
});

/** Verifies the log's last record (a served sequence) with another history and workload. */
async function bentSequence(
  passes: readonly HistoryPass[],
  o: {
    readonly tokens?: SequenceWorkload["tokens"];
    readonly positions?: readonly number[];
    readonly stack?: string;
  } = {},
) {
  const last = log.records.length - 1;
  const rec = log.records[last]!;
  const w = rec.predicate.workload as SequenceWorkload;
  const bent = encodeServingHistory(passes);
  const digest = sha256Hex(bent);
  const records = log.records.slice();
  records[last] = {
    ...rec,
    predicate: {
      ...rec.predicate,
      ...(o.stack === undefined ? {} : { software: { ...rec.predicate.software, stack: o.stack } }),
      batch: { size: Math.max(...passes.map((q) => q.entries.length)) },
      workload: {
        ...w,
        ...(o.tokens === undefined ? {} : { tokens: o.tokens }),
        ...(o.positions === undefined ? {} : { positions: o.positions }),
        history: { sha256: digest, passes: passes.length },
      },
    },
  };
  const store2: BlobStore = {
    dir: "memory",
    get: (d) => Promise.resolve(d === digest ? bent : out.blobs.get(d) ?? null),
  };
  return await verifyRecord({ store, blobs: store2, walker, attention }, {
    log: parseClaimLog(formatClaimLog(records)),
    index: last,
  });
}

Deno.test("a forward record on vLLM's default compiled stack is NOT_VERIFIED, and FAILs when a token is outside the vocabulary", async () => {
  const at = log.records.findIndex((r) =>
    r.predicate.workload.kind === "model_forward" && r.predicate.parallelism.tp === 1
  );
  const rec = log.records[at]!;
  const w = rec.predicate.workload as ModelForwardWorkload;
  const edit = (tokens: ModelForwardWorkload["tokens"]) => {
    // The edited record is the log's last: editing it breaks no later link.
    const records = log.records.slice(0, at + 1);
    records[at] = {
      ...rec,
      predicate: {
        ...rec.predicate,
        software: { ...rec.predicate.software, stack: "vllm-0.11-default-fa2" },
        workload: { ...w, tokens },
      },
    };
    return verifyRecord({ store, blobs, walker, attention }, {
      log: parseClaimLog(formatClaimLog(records)),
      index: at,
    });
  };
  const honest = await edit(w.tokens);
  assert.equal(honest.status, "NOT_VERIFIED", honest.reason);
  assert.match(honest.reason, /Inductor-generated Triton kernels/);
  const [first, ...rest] = w.tokens.sequences;
  const outside = await edit({ ...w.tokens, sequences: [[10 ** 6, ...first!.slice(1)], ...rest] });
  assert.equal(outside.status, "FAIL", outside.reason);
  assert.match(outside.reason, /token id 1000000 is outside 0\.\./);
});

Deno.test("a served sequence on a stack the replay does not model (Inductor kernels; decode steps in a full CUDA graph) is NOT_VERIFIED, and FAILs when its history or tokens contradict it", async () => {
  const w = log.records.at(-1)!.predicate.workload as SequenceWorkload;
  // The prompt in one pass, then a decode step (nothing is computed: the tokens need not be real).
  const prompt = w.tokens.prompt;
  const tokens = { prompt, generated: [5, 6] };
  const passes: HistoryPass[] = [
    { entries: [{ query: prompt.length, cached: 0 }], self: 0, rows: prompt.length, logitsRows: 1 },
    { entries: [{ query: 1, cached: prompt.length }], self: 0, rows: 1, logitsRows: 1 },
  ];
  const decode = 1;
  const outside = { prompt: [10 ** 6, ...prompt.slice(1)], generated: tokens.generated };
  const noLogits = passes.map((q, i) => i === decode ? { ...q, logitsRows: 0 } : q);
  const positions = [prompt.length];
  for (
    const [stack, why] of [
      ["vllm-0.11-default-fa2", /Inductor-generated Triton kernels/],
      ["vllm-0.11-custom-ops-fa2", /^pass \d+: .*CUDA graph/],
    ] as const
  ) {
    const honest = await bentSequence(passes, { stack, tokens, positions });
    assert.equal(honest.status, "NOT_VERIFIED", `${stack}: ${honest.reason}`);
    assert.match(honest.reason, why);
    const token = await bentSequence(passes, { stack, tokens: outside, positions });
    assert.equal(token.status, "FAIL", `${stack}: ${token.reason}`);
    assert.match(token.reason, /token id 1000000 is outside 0\.\./);
    const logits = await bentSequence(noLogits, { stack, tokens, positions });
    assert.equal(logits.status, "FAIL", `${stack}: ${logits.reason}`);
    assert.match(logits.reason, new RegExp(`pass ${decode} records 0 logits rows`));
  }
});

Deno.test("vLLM cascade attention: a claim vLLM 0.11 cannot make FAILs; one it can make is NOT_VERIFIED only when nothing else contradicts the record", async () => {
  const w = log.records.at(-1)!.predicate.workload as SequenceWorkload;
  const passes = parseServingHistory((await blobs.get(w.history.sha256))!);
  // Claims outside vLLM 0.11's use_cascade_attention (prefix >= 256, >= 8 requests).
  const short = await bentSequence(passes.map((q, i) => i === 0 ? { ...q, cascadePrefix: 2 } : q));
  assert.equal(short.status, "FAIL", short.reason);
  assert.match(short.reason, /pass 0 claims vLLM's cascade attention over a 2-token prefix/);
  const few = await bentSequence(passes.map((q, i) => i === 0 ? { ...q, cascadePrefix: 256 } : q));
  assert.equal(few.status, "FAIL", few.reason);
  assert.match(few.reason, /with \d request\(s\); vLLM 0\.11 uses it only for 8 or more/);
  // A 300-token prompt, then a decode step beside 7 other requests sharing a 256-token prefix.
  const prompt = Array.from(
    { length: 300 },
    (_, i) => w.tokens.prompt[i % w.tokens.prompt.length]!,
  );
  const tokens = { prompt, generated: [5, 6] };
  const decode = (cached: readonly number[], more: Partial<HistoryPass> = {}): HistoryPass => ({
    entries: cached.map((c) => ({ query: 1, cached: c })),
    self: 0,
    rows: cached.length,
    logitsRows: cached.length,
    cascadePrefix: 256,
    ...more,
  });
  const cascade = (p: HistoryPass, o: { tokens?: SequenceWorkload["tokens"] } = {}) =>
    bentSequence([{ entries: [{ query: 300, cached: 0 }], self: 0, rows: 300, logitsRows: 1 }, p], {
      tokens: o.tokens ?? tokens,
      positions: [300],
    });
  const eight = [300, 256, 256, 260, 270, 280, 290, 300];
  const named = await cascade(decode(eight));
  assert.equal(named.status, "NOT_VERIFIED", named.reason);
  assert.match(named.reason, /pass 1 ran vLLM's cascade attention .* 256 tokens/);
  // use_cascade_attention's bounds (flash_attn.py: `common_prefix_len < 256` and `num_reqs < 8`
  // return False), each just past an otherwise admissible claim: 240 is whole 16-position
  // blocks, and a later pass is held to them as the first is.
  const beyond: [HistoryPass[], RegExp, SequenceWorkload["tokens"]?][] = [
    [
      [decode(eight, { cascadePrefix: 240 })],
      /pass 1 claims vLLM's cascade attention over a 240-token prefix, which vLLM 0\.11 uses only for a common prefix of 256 tokens or more$/,
    ],
    [
      [decode(eight.slice(0, 7))],
      /pass 1 claims vLLM's cascade attention over a 256-token prefix, with 7 request\(s\); vLLM 0\.11 uses it only for 8 or more$/,
    ],
    [
      [decode(eight), decode(eight.map((c) => c + 1), { cascadePrefix: 240 })],
      /pass 2 claims vLLM's cascade attention over a 240-token prefix, which vLLM 0\.11 uses/,
      { prompt, generated: [5, 6, 7] },
    ],
  ];
  for (const [later, reason, t] of beyond) {
    const r = await bentSequence(
      [{ entries: [{ query: 300, cached: 0 }], self: 0, rows: 300, logitsRows: 1 }, ...later],
      { tokens: t ?? tokens, positions: [300] },
    );
    assert.equal(r.status, "FAIL", `${reason}: ${r.reason}`);
    assert.match(r.reason, reason);
  }
  // Every contradiction the verifier can establish still FAILs beside the named cascade.
  const cases: [HistoryPass, RegExp, SequenceWorkload["tokens"]?][] = [
    [
      decode(eight.map((c, i) => (i === 3 ? 255 : c))),
      /longer than the 255 cached tokens of entry 3/,
    ],
    [decode(eight, { logitsRows: 0 }), /records 0 logits rows/],
    [decode(eight, { rows: 9 }), /says 9 GEMM rows, its entries flatten to 8/],
    // Read as computing position 299 again (a recomputation), it ends one position short of the
    // 301 tokens the request had, in a pass of 8 tokens: vLLM would have recomputed both, and the
    // passes compute one position fewer than the sequence's tokens need.
    [
      decode(eight.map((c, i) => (i === 0 ? 299 : c))),
      /the passes compute 300 positions, the prompt and generated tokens need 301/,
    ],
    [decode(eight), /the passes compute 301 positions/, { prompt, generated: [5, 6, 7] }],
  ];
  for (const [p, reason, t] of cases) {
    const r = await cascade(p, t === undefined ? {} : { tokens: t });
    assert.equal(r.status, "FAIL", `${reason}: ${r.reason}`);
    assert.match(r.reason, reason);
  }
});

Deno.test("vLLM expert-parallel records (ep = tp = 2, MoE): honest PASS; a pass that split the experts' width while claiming ep FAILs", async () => {
  const sc = parseScenario(oneGemmScenario({ logId: "vllm-ep-test", seed: "vllm-ep-v1" }, {
    hardware: { profile: "a100", count: 8 },
    forward: {
      ...forwardSection(["tables/models/qwen3-tiny-moe-tp"], { records: 2 }),
      stack: EAGER.stack,
      components: EAGER.components,
      parallel: [{ tp: 2, ep: 2 }],
    },
    falsify: [{ seq: 2, kind: "parallelism", tp: 2 }],
  }));
  const made = await makeClaims(sc, { store, walker, attention });
  const b: BlobStore = { dir: "memory", get: (d) => Promise.resolve(made.blobs.get(d) ?? null) };
  const l = parseClaimLog(formatClaimLog(made.records));
  for (const index of [1, 2]) {
    assert.equal(l.records[index]!.predicate.parallelism.ep, 2);
    const r = await verifyRecord({ store, blobs: b, walker, attention }, { log: l, index });
    assert.equal(r.status, index === 2 ? "FAIL" : "PASS", `${index}: ${r.reason}`);
  }
});

Deno.test("TP 8 on vLLM's layout (KV heads replicated): dense and MoE forward records and served sequences PASS; a pass claiming TP 8 that ran TP 4 FAILs", async () => {
  // Eight A100 SXM4 modules on an NVSwitch board (DGX A100): the `a100` profile also stands for
  // PCIe cards, so the records state their interconnect.
  const dgx = { tp: 8, allReduce: { kind: "vllm-custom-1stage" }, interconnect: "nvswitch" };
  const served8 = servedSection(["tables/models/qwen3-tiny-tp"], {
    catalog: "demo-qwen3-tiny-tp-a100",
    parallel: [dgx],
  });
  const sc = parseScenario(oneGemmScenario({ logId: "vllm-tp8-test", seed: "vllm-tp8-v1" }, {
    hardware: { profile: "a100", count: 8 },
    forward: {
      ...forwardSection(["tables/models/qwen3-tiny-tp", "tables/models/qwen3-tiny-moe-tp"], {
        records: 4,
        catalog: "demo-qwen3-tiny-tp-a100",
      }),
      stack: EAGER.stack,
      components: EAGER.components,
      // vLLM's dispatch runs its one-stage custom all-reduce for these small messages.
      parallel: [dgx],
    },
    serving: {
      ...served8.serving,
      stack: "vllm-0.11-eager-fa2-lg2-model",
      components: EAGER.components,
    },
    falsify: [
      {
        seq: 3,
        kind: "parallelism",
        tp: 4,
        allReduce: {
          kind: "nccl-ring",
          protocol: "simple",
          chunkBytes: 2097152,
          rings: [[0, 1, 2, 3]],
        },
      },
      // The first served falsification (a flipped fingerprint) on the one engine run's records.
      { ...(served8.falsify[0] as object), seq: 6 },
    ],
  }));
  const made = await makeClaims(sc, { store, walker, attention });
  const b: BlobStore = { dir: "memory", get: (d) => Promise.resolve(made.blobs.get(d) ?? null) };
  const l = parseClaimLog(formatClaimLog(made.records));
  const falsified = new Set(made.falsified.map((f) => f.seq));
  const kinds = new Set<string>();
  for (let index = 1; index < l.records.length; index++) {
    const p = l.records[index]!.predicate;
    kinds.add(`${p.workload.kind} tp=${p.parallelism.tp}`);
    const r = await verifyRecord({ store, blobs: b, walker, attention }, { log: l, index });
    assert.equal(r.status, falsified.has(index) ? "FAIL" : "PASS", `${index}: ${r.reason}`);
  }
  assert.deepEqual([...kinds].sort(), ["model_forward tp=8", "sequence tp=8"]);
});

Deno.test("a vLLM record naming an all-reduce its stack's dispatch does not take FAILs with the path and the rule, before any tensor is computed", async () => {
  const ring4 = {
    kind: "nccl-ring",
    protocol: "simple",
    chunkBytes: 2097152,
    rings: [[0, 1, 2, 3]],
  };
  const sc = parseScenario(oneGemmScenario({ logId: "vllm-ar-test", seed: "vllm-ar-v1" }, {
    hardware: { profile: "a100", count: 8 },
    forward: {
      ...forwardSection(["tables/models/qwen3-tiny-tp"], {
        records: 2,
        catalog: "demo-qwen3-tiny-tp-a100",
      }),
      stack: EAGER.stack,
      components: EAGER.components,
      // The first record names the ring (the prover computed it with the ring), the second the
      // one-stage custom all-reduce vLLM's dispatch takes for these small messages on four
      // NVLink-connected A100s.
      parallel: [
        { tp: 4, allReduce: ring4, interconnect: "nvlink" },
        { tp: 4, allReduce: { kind: "vllm-custom-1stage" }, interconnect: "nvlink" },
      ],
    },
    falsify: [],
  }));
  const made = await makeClaims(sc, { store, walker, attention });
  const b: BlobStore = { dir: "memory", get: (d) => Promise.resolve(made.blobs.get(d) ?? null) };
  const l = parseClaimLog(formatClaimLog(made.records));
  const ring = await verifyRecord({ store, blobs: b, walker, attention }, { log: l, index: 1 });
  assert.equal(ring.status, "FAIL", ring.reason);
  assert.match(
    ring.reason,
    /names all-reduce 'nccl-ring', but stack 'vllm-0\.11-eager-fa2' runs vllm-custom-1stage .* on 4 ranks/,
  );
  const custom = await verifyRecord({ store, blobs: b, walker, attention }, { log: l, index: 2 });
  assert.equal(custom.status, "PASS", custom.reason);
});

Deno.test("a record stating its interconnect is checked on it: NCCL on PCIe PASSes, the custom all-reduce without P2P FAILs, an unknown interconnect is NOT_VERIFIED only where the bits match", async () => {
  const ring4 = {
    kind: "nccl-ring",
    protocol: "simple",
    chunkBytes: 2097152,
    rings: [[0, 1, 2, 3]],
  };
  const custom = { kind: "vllm-custom-1stage" };
  const sc = parseScenario(oneGemmScenario({ logId: "vllm-links-test", seed: "vllm-links-v1" }, {
    hardware: { profile: "a100", count: 8 },
    forward: {
      ...forwardSection(["tables/models/qwen3-tiny-tp"], {
        records: 3,
        catalog: "demo-qwen3-tiny-tp-a100",
      }),
      stack: EAGER.stack,
      components: EAGER.components,
      // Four ranks not all NVLink-connected: vLLM's custom all-reduce does not start, NCCL runs.
      parallel: [
        { tp: 4, allReduce: ring4, interconnect: "pcie" },
        { tp: 4, allReduce: custom, interconnect: "pcie" },
        { tp: 4, allReduce: ring4, interconnect: "pcie-p2p" },
      ],
    },
    falsify: [],
  }));
  const made = await makeClaims(sc, { store, walker, attention });
  const b: BlobStore = { dir: "memory", get: (d) => Promise.resolve(made.blobs.get(d) ?? null) };
  const verify = async (records: typeof made.records, index: number) =>
    await verifyRecord({ store, blobs: b, walker, attention }, {
      log: parseClaimLog(formatClaimLog(records)),
      index,
    });
  const l = parseClaimLog(formatClaimLog(made.records));
  assert.equal(l.records[1]!.predicate.parallelism.interconnect, "pcie");
  const ring = await verify(made.records, 1);
  assert.equal(ring.status, "PASS", ring.reason);
  const noP2p = await verify(made.records, 2);
  assert.equal(noP2p.status, "FAIL", noP2p.reason);
  assert.match(noP2p.reason, /runs nccl .* on the record's interconnect 'pcie'/);
  const p2p = await verify(made.records, 3);
  assert.equal(p2p.status, "PASS", p2p.reason);
  // The last record restated with an interconnect the dispatch is not modelled on (it stays the
  // last link of the chain): the bits still decide, and a match cannot vouch for the path.
  const restated = (over: Partial<ClaimPredicate["fingerprint"]>) => {
    const p = made.records[3]!.predicate;
    return [
      ...made.records.slice(0, 3),
      makeClaimRecord({
        ...p,
        parallelism: { ...p.parallelism, interconnect: "infiniband" },
        fingerprint: { ...p.fingerprint, ...over },
      }),
    ];
  };
  const unknown = await verify(restated({}), 3);
  assert.equal(unknown.status, "NOT_VERIFIED", unknown.reason);
  assert.match(unknown.reason, /interconnect 'infiniband' is not one/);
  const wrong = await verify(restated({ sha256: "0".repeat(64) }), 3);
  assert.equal(wrong.status, "FAIL", wrong.reason);
});

Deno.test("vllm-dispatch: a served TP 4 sequence whose prefill takes the two-stage custom all-reduce and its decode steps the one-stage PASSes; one kind named for both FAILs; NCCL needs its settings, and a stated NCCL release other than 2.27.x is NOT_VERIFIED where messages go to NCCL", async () => {
  const ring4 = {
    kind: "nccl-ring",
    protocol: "simple",
    chunkBytes: 2097152,
    rings: [[0, 1, 2, 3]],
  };
  const tp = "tables/models/qwen3-tiny-tp";
  const parallel = [
    // NVLink: a 1,100-token prefill pass is 550 KiB (two stages), a decode step 512 bytes (one
    // stage).
    { tp: 4, allReduce: { kind: "vllm-dispatch" }, interconnect: "nvlink" },
    { tp: 4, allReduce: { kind: "vllm-custom-2stage" }, interconnect: "nvlink" },
    // No peer-to-peer access: every message goes to NCCL, whose settings the record must give.
    { tp: 4, allReduce: { kind: "vllm-dispatch", nccl: ring4 }, interconnect: "pcie" },
    // What one stage everywhere gives (a prover that ran it; the record FAILs as the 2-stage one).
    { tp: 4, allReduce: { kind: "vllm-custom-1stage" }, interconnect: "nvlink" },
  ];
  const served = servedSection([tp, tp, tp, tp], { catalog: "demo-qwen3-tiny-tp-a100", parallel });
  const sc = parseScenario(oneGemmScenario({ logId: "vllm-dispatch", seed: "vllm-dispatch-v1" }, {
    hardware: { profile: "a100", count: 8 },
    serving: {
      ...served.serving,
      stack: "vllm-0.11-eager-fa2-lg2-model",
      components: EAGER.components,
      requests: 1,
      arrivalSteps: 1,
      promptLengths: [1100],
      generate: [2],
      tokenBudget: 2048,
      maxChunk: 2048,
    },
    falsify: [],
  }));
  const made = await makeClaims(sc, { store, walker, attention });
  const b: BlobStore = { dir: "memory", get: (d) => Promise.resolve(made.blobs.get(d) ?? null) };
  const l = parseClaimLog(formatClaimLog(made.records));
  const status = async (index: number, log = l) =>
    await verifyRecord({ store, blobs: b, walker, attention }, { log, index });
  const dispatched = await status(1);
  assert.equal(dispatched.status, "PASS", dispatched.reason);
  const named = await status(2);
  assert.equal(named.status, "FAIL", named.reason);
  assert.match(named.reason, /runs vllm-custom-1stage for a message of 512 bytes/);
  const withRing = await status(3);
  assert.equal(withRing.status, "PASS", withRing.reason);
  // The last record restated without its NCCL settings (it stays the last link of the chain).
  const p = made.records[3]!.predicate;
  const bare = makeClaimRecord({
    ...p,
    parallelism: { ...p.parallelism, allReduce: { kind: "vllm-dispatch" } },
  });
  const noSettings = await status(
    3,
    parseClaimLog(formatClaimLog([...made.records.slice(0, 3), bare])),
  );
  assert.equal(noSettings.status, "FAIL", noSettings.reason);
  assert.match(noSettings.reason, /'vllm-dispatch' without NCCL settings/);
  // On links the dispatch is not modelled on, no path can be recomputed: FAIL, never a
  // NOT_VERIFIED that would hide a false fingerprint.
  const elsewhere = makeClaimRecord({
    ...p,
    parallelism: { ...p.parallelism, interconnect: "infiniband" },
  });
  const unknown = await status(
    3,
    parseClaimLog(formatClaimLog([...made.records.slice(0, 3), elsewhere])),
  );
  assert.equal(unknown.status, "FAIL", unknown.reason);
  assert.match(unknown.reason, /interconnect 'infiniband'/);
  // A stated NCCL release other than the replay's 2.27.x: the messages the dispatch sends to NCCL
  // are not modelled, said before any recomputation; where it sends none, the release is not read
  // (review h60 F2).
  const withRelease = (i: number, nccl: string) => {
    const q = made.records[i]!.predicate;
    const components = { ...q.software.components, nccl };
    return parseClaimLog(formatClaimLog([
      ...made.records.slice(0, i),
      makeClaimRecord({ ...q, software: { ...q.software, components } }),
    ]));
  };
  const old = await status(3, withRelease(3, "2.18.3"));
  assert.equal(old.status, "NOT_VERIFIED", old.reason);
  assert.match(
    old.reason,
    /^the NCCL replay follows release 2\.27's chunking; the stated nccl '2\.18\.3' is not modelled \(stack '.*' sends a message of \d+ bytes .* to NCCL\)$/,
  );
  assert.ok(!old.steps.some((s) => s.step === "recompute"), old.reason);
  const current = await status(3, withRelease(3, "2.27.3"));
  assert.equal(current.status, "PASS", current.reason);
  const noNccl = await status(1, withRelease(1, "2.18.3"));
  assert.equal(noNccl.status, "PASS", noNccl.reason);
  // The dispatch's mix is what the bits show: one stage everywhere, two stages everywhere and
  // NCCL everywhere each give other bits than the honest record.
  const fp = (i: number) => l.records[i]!.predicate.fingerprint.sha256;
  for (const other of [2, 3, 4]) assert.notEqual(fp(1), fp(other), `record ${other}`);
});

Deno.test("an unmodelled expert split hides no FAIL: a missing or wrong all-reduce still FAILs beside ep, and the split alone is NOT_VERIFIED", async () => {
  const at = log.records.findIndex((r) =>
    r.predicate.workload.kind === "model_forward" && r.predicate.parallelism.tp === 2
  );
  assert.ok(at >= 0);
  const base: ClaimPredicate = log.records[at]!.predicate;
  const edit = async (par: Partial<ClaimPredicate["parallelism"]>) => {
    const parallelism: Record<string, unknown> = { ...base.parallelism, ...par };
    if (par.allReduce === undefined && "allReduce" in par) delete parallelism.allReduce;
    // The log up to the record (a later record's chain would name the honest one).
    const records = log.records.slice(0, at + 1);
    records[at] = {
      ...records[at]!,
      predicate: { ...base, parallelism: parallelism as ClaimPredicate["parallelism"] },
    };
    const edited = parseClaimLog(formatClaimLog(records));
    return await verifyRecord({ store, blobs, walker, attention }, { log: edited, index: at });
  };
  assert.equal((await edit({})).status, "PASS");
  // Experts over tp x dp ranks (ep 4 at tp 2 x dp 2) are a run vLLM makes, not modelled.
  const alone = await edit({ ep: 4, dp: 2 });
  assert.equal(alone.status, "NOT_VERIFIED", alone.reason);
  // Any other ep is no vLLM run: FAIL before the rest (review h150).
  const noRun = await edit({ ep: 4 });
  assert.equal(noRun.status, "FAIL", noRun.reason);
  assert.match(noRun.reason, /ep=4 with tp=2 x dp=1: vLLM has no expert-parallel size/);
  const tree = { kind: "nccl-tree", protocol: "simple", trees: [{ down: [[1], []] }] } as const;
  for (
    const [par, why] of [
      [{ tp: 4, ep: 8, dp: 2, allReduce: undefined }, /tp=4 without an all-reduce/],
      [
        { ep: 4, dp: 2, allReduce: tree, interconnect: "nvswitch" },
        /names all-reduce 'nccl-tree', but stack .* runs vllm-custom-1stage/,
      ],
      // An all-reduce no layout models (NVLS) hides no FAIL of its path either.
      [
        { allReduce: { kind: "nccl-nvls" }, interconnect: "nvswitch" },
        /names all-reduce 'nccl-nvls', but stack .* runs vllm-custom-1stage/,
      ],
    ] as const
  ) {
    const r = await edit(par as Partial<ClaimPredicate["parallelism"]>);
    assert.equal(r.status, "FAIL", `${JSON.stringify(par)}: ${r.reason}`);
    assert.match(r.reason, why);
  }
});

/** A model-forward record of the log, edited, verified as the last record of the log. */
async function editedForward(
  tp: number,
  edit: (p: ClaimPredicate, w: ModelForwardWorkload) => ClaimPredicate,
) {
  const at = log.records.findIndex((r) =>
    r.predicate.workload.kind === "model_forward" && r.predicate.parallelism.tp === tp &&
    r.predicate.software.stack === EAGER.stack
  );
  const rec = log.records[at]!;
  const records = log.records.slice(0, at + 1);
  records[at] = {
    ...rec,
    predicate: edit(rec.predicate, rec.predicate.workload as ModelForwardWorkload),
  };
  return await verifyRecord({ store, blobs, walker, attention }, {
    log: parseClaimLog(formatClaimLog(records)),
    index: at,
  });
}

Deno.test("a vLLM forward record longer than its checkpoint's max_position_embeddings FAILs (vLLM refuses the prompt); stating settings that may raise the limit makes it NOT_VERIFIED", async () => {
  // The tiny checkpoints' max_position_embeddings is 4096: vLLM's max_model_len.
  const long = (extra: Readonly<Record<string, string>>) =>
    editedForward(1, (p, w) => {
      const [first, ...rest] = w.tokens.sequences;
      const sequences = [
        Array.from({ length: 4097 }, (_, i) => first![i % first!.length]!),
        ...rest,
      ];
      return {
        ...p,
        software: { ...p.software, components: { ...p.software.components, ...extra } },
        workload: { ...w, tokens: { ...w.tokens, sequences } },
      };
    });
  const r = await long({});
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(
    r.reason,
    /^record contradicts its checkpoint: the 4097-token prompt is longer than vLLM's max_model_len 4096 \(max_position_embeddings 4096\)/,
  );
  const stated = await long({ env: "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" });
  assert.equal(stated.status, "NOT_VERIFIED", stated.reason);
  assert.match(stated.reason, /may raise the limit/);
});

Deno.test("a vLLM forward record whose batch is more tokens than every token budget of its GPU FAILs (vLLM's scheduler takes at most one budget a pass); stating settings that may set another budget leaves it to the recomputation", async () => {
  // Three prompts of 3000 tokens (each within max_model_len 4096) in one pass: 9000 tokens, past
  // an A100's budgets of 2048 and 8192.
  const wide = (extra: Readonly<Record<string, string>>) =>
    editedForward(1, (p, w) => {
      const first = w.tokens.sequences[0]!;
      const sequences = Array.from(
        { length: 3 },
        () => Array.from({ length: 3000 }, (_, i) => first[i % first.length]!),
      );
      return {
        ...p,
        batch: { ...p.batch, size: 3 },
        software: { ...p.software, components: { ...p.software.components, ...extra } },
        workload: {
          ...w,
          tokens: { ...w.tokens, sequences },
          positions: [[0, 2999], [1, 2999], [2, 2999]],
        },
        fingerprint: { ...p.fingerprint, shape: [3, p.fingerprint.shape[1]!] },
      };
    });
  const r = await wide({});
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(
    r.reason,
    /^record contradicts its stack: pass 0 schedules 9000 tokens, more than vLLM's scheduler takes in one pass \(max_num_batched_tokens 2048 or 8192: /,
  );
  // Stated settings beyond the stack's may set another budget: the batch is recomputed all the
  // same (here refused for a GEMM the catalog does not cover), never FAILed for the budget.
  const stated = await wide({ flags: "--enforce-eager --max-num-batched-tokens 9000" });
  assert.equal(stated.status, "NOT_VERIFIED", stated.reason);
  assert.match(stated.reason, /does not cover M=9000/);
});

Deno.test("a vLLM forward record whose tp the heads cannot split over FAILs as contradicting its checkpoint (vLLM asserts it at start-up)", async () => {
  const ring = (n: number) => ({
    kind: "nccl-ring",
    protocol: "simple",
    chunkBytes: 2097152,
    rings: [Array.from({ length: n }, (_, i) => i)],
  });
  // The tiny checkpoints have 2 or 8 attention heads: 3 ranks divide neither.
  const r = await editedForward(2, (p) => ({
    ...p,
    parallelism: { ...p.parallelism, tp: 3, allReduce: ring(3) as never },
  }));
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(
    r.reason,
    /^record contradicts its checkpoint: layout 'vllm-megatron' cannot split [28] attention heads over 3 ranks: its start-up asserts/,
  );
});

Deno.test("a served vLLM sequence passing max_model_len (4096 for the tiny checkpoints) after its first generated token FAILs before its history is replayed", async () => {
  // A 4095-token prompt, its first generated token, then the request preempted and recomputed
  // from 0 (no pass continues the one before, so no running request passes the limit): the
  // history agrees with the tokens, only their 4097 contradict the stack.
  const prompt = Array.from({ length: 4095 }, (_, i) => (7 * i + 1) % 512);
  const r = await bentSequence([
    { entries: [{ query: 4095, cached: 0 }], self: 0, rows: 4095, logitsRows: 1 },
    { entries: [{ query: 4096, cached: 0 }], self: 0, rows: 4096, logitsRows: 1 },
  ], { tokens: { prompt, generated: [200, 201] }, positions: [4095] });
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(
    r.reason,
    /^record contradicts its checkpoint: the sequence's 4097 tokens .* pass vLLM's max_model_len 4096/,
  );
});

Deno.test("a served vLLM sequence whose later prefill chunk reaches max_model_len (4096) FAILs: vLLM schedules a running request below max_model_len - 1", async () => {
  const prompt = Array.from({ length: 4096 }, (_, i) => (7 * i + 1) % 512);
  const chunks = (second: number): HistoryPass[] => [
    { entries: [{ query: 2048, cached: 0 }], self: 0, rows: 2048, logitsRows: 0 },
    { entries: [{ query: second, cached: 2048 }], self: 0, rows: second, logitsRows: 1 },
  ];
  const r = await bentSequence(chunks(2048), {
    tokens: { prompt, generated: [200] },
    positions: [4095],
  });
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(
    r.reason,
    /^record contradicts its checkpoint: pass 1 continues the sequence to 4096 positions, where vLLM schedules a running request's positions only below vLLM's max_model_len 4096 .* minus 1 \(4095 at most\)/,
  );
  // In one pass (a waiting request's first schedule) the same prompt is not refused for it.
  const one = await bentSequence(
    [{ entries: [{ query: 4096, cached: 0 }], self: 0, rows: 4096, logitsRows: 1 }],
    { tokens: { prompt, generated: [200] }, positions: [4095] },
  );
  assert.doesNotMatch(one.reason, /running request/);
});

Deno.test("a served vLLM sequence beside a request holding more positions than max_model_len (4096) FAILs: vLLM serves no such request", async () => {
  const w = log.records[log.records.length - 1]!.predicate.workload as SequenceWorkload;
  const passes = parseServingHistory((await blobs.get(w.history.sha256))!);
  assert.ok(passes.some((q) => q.entries.length > 1), "the sequence has neighbours");
  const r = await bentSequence(passes.map((q) => ({
    ...q,
    entries: q.entries.map((e, j) => j === q.self ? e : { ...e, cached: 5000 }),
  })));
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(
    r.reason,
    /^record contradicts its checkpoint: 50\d\d positions of one request are more than vLLM's max_model_len 4096 .*\(another request of the batch, cached and new positions in pass \d+\)/,
  );
  // The same history with its neighbours at 4096 positions at most is replayed as before.
  const fitting = await bentSequence(passes.map((q) => ({
    ...q,
    entries: q.entries.map((e, j) =>
      j === q.self ? e : { ...e, cached: Math.min(e.cached, 4096 - e.query) }
    ),
  })));
  assert.notEqual(fitting.status, "FAIL", fitting.reason);
});
