/**
 * vLLM's V1 scheduler ends a prompt's prefill chunk before the prompt's end only once the pass
 * has scheduled its whole token budget (`max_num_batched_tokens`: the stack's pinned
 * `--max-num-batched-tokens`, else a default of the GPU and usage context, 2048 or 8192 on an
 * A100). A served sequence whose 12-token prompt ran as 6 + 6 in passes of 6 tokens describes a
 * run no vLLM engine makes (it PASSed when its fingerprint was the verifier's own recomputation):
 * it FAILs; the same prompt in one pass still PASSes; a record stating settings beyond its
 * stack's is NOT_VERIFIED; a budget the stack sets in a form not read is NOT_VERIFIED.
 */
import assert from "node:assert/strict";
import {
  type ClaimPredicate,
  type HistoryPass,
  parseServingHistory,
  type SequenceWorkload,
} from "../../src/claims/mod.ts";
import { parseGpuProfile } from "../../src/hardware/mod.ts";
import { parseStackProfile, vllmTokenBudget } from "../../src/kernels/mod.ts";
import { parseDecoderConfig } from "../../src/model/mod.ts";
import { _servedBudgetGap } from "../../src/verify/_model_support.ts";
import { _Stop } from "../../src/verify/_stop.ts";
import { DENSE_CONFIG, flipFingerprint, proverRun, verifyAlone } from "./_recompute_fixture.ts";
import { VLLM_SERVED_STACK as STACK, vllmServedScenario } from "./_vllm_served.ts";

/** One 12-token prompt served on the vLLM stack with the given budget and chunk cap. */
function twelve(tokenBudget: number): unknown {
  return vllmServedScenario(
    { logId: "vllm-budget", seed: "vllm-budget-v1" },
    { prompt: 12, generate: 2, tokenBudget, pinBudget: true },
  );
}

const halves = await proverRun(twelve(6));
const whole = await proverRun(twelve(2048));

/** The sequence record of a run, and its history. */
function served(run: typeof halves): { p: ClaimPredicate; passes: HistoryPass[] } {
  const p = run.records[1]!.predicate;
  const w = p.workload as SequenceWorkload;
  return { p, passes: parseServingHistory(run.blobs.get(w.history.sha256)!) };
}

Deno.test("a vLLM record whose 12-token prompt ran as 6 + 6 in passes of 6 tokens FAILs, naming the pass and the budgets", async () => {
  const { p, passes } = served(halves);
  assert.deepEqual(
    passes.map((q) => q.entries.map((e) => [e.query, e.cached])),
    [[[6, 0]], [[6, 6]], [[1, 12]]],
  );
  const r = await verifyAlone(p, halves.blobs);
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(
    r.reason,
    /^record contradicts its stack: pass 0 ends the prompt's chunk at 6 of its 12 tokens with 6 tokens scheduled, where vLLM's scheduler ends a chunk before its prompt's end only once the pass has used its whole token budget \(max_num_batched_tokens 2048 or 8192: vLLM's defaults: on an A100 2048 for the API server and 8192 for the LLM class, 2048 for an engine built from its arguments\)$/,
  );
});

Deno.test("the same prompt in one pass PASSes on the vLLM stack", async () => {
  const { p, passes } = served(whole);
  assert.deepEqual(passes[0]!.entries, [{ query: 12, cached: 0 }]);
  const r = await verifyAlone(p, whole.blobs);
  assert.equal(r.status, "PASS", r.reason);
});

Deno.test("a record stating settings beyond its stack's (which may set another budget) is NOT_VERIFIED for the 6 + 6 history", async () => {
  const { p } = served(halves);
  const r = await verifyAlone({
    ...p,
    software: {
      ...p.software,
      components: { ...p.software.components, flags: "--enforce-eager --max-num-batched-tokens 6" },
    },
  }, halves.blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /with 6 tokens scheduled, .* which may set another token budget/);
});

Deno.test("a falsified record whose settings beyond its stack's leave the 6 + 6 history's budget open still FAILs: the recorded passes are replayed and compared (review m2: it had been NOT_VERIFIED without a recomputation)", async () => {
  const { p } = served(halves);
  const flags = "--enforce-eager --max-num-batched-tokens 6";
  const stated = {
    ...p,
    software: { ...p.software, components: { ...p.software.components, flags } },
  };
  const r = await verifyAlone(flipFingerprint(stated), halves.blobs);
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, /^recomputed fingerprint [0-9a-f]{64} differs from the claimed/);
  const honest = await verifyAlone(stated, halves.blobs);
  assert.equal(honest.status, "NOT_VERIFIED", honest.reason);
  assert.match(
    honest.reason,
    /^recomputed output matches the fingerprint, but .* which may set another token budget/,
  );
});

const ROOT = new URL("../../", import.meta.url);
const json = (path: string) => JSON.parse(Deno.readTextFileSync(new URL(path, ROOT)));
const gpu = (id: string) => parseGpuProfile(json(`profiles/gpu/${id}.json`));
const config = parseDecoderConfig(DENSE_CONFIG);

/** A stack profile of the eager vLLM stack with other flags. */
function withFlags(flags: string) {
  const raw = json(`profiles/stack/${STACK}.json`);
  return parseStackProfile({ ...raw, components: { ...raw.components, flags } });
}

/** A pass of this sequence's chunk (query, cached) beside others of `rest` tokens in all. */
function pass(query: number, cached: number, rest: number): HistoryPass {
  const entries = [{ query, cached }, ...(rest > 0 ? [{ query: rest, cached: 0 }] : [])];
  return { entries, self: 0, rows: query + rest, logitsRows: entries.length };
}

/**
 * What `_servedBudgetGap` says of a 4000-token prompt's history: the FAIL it throws, its gap as a
 * NOT_VERIFIED (said after a match), or null.
 */
function stopOf(
  passes: HistoryPass[],
  o: { gpu?: string; flags?: string } = {},
): _Stop | null {
  const stack = withFlags(o.flags ?? "--enforce-eager");
  const p = { software: { stack: stack.id, components: stack.components } } as ClaimPredicate;
  try {
    const gap = _servedBudgetGap(p, {
      stack,
      profile: gpu(o.gpu ?? "a100"),
      config,
      prompt: 4000,
      passes,
    });
    return gap === null ? null : new _Stop("NOT_VERIFIED", gap);
  } catch (e) {
    if (e instanceof _Stop) return e;
    throw e;
  }
}

Deno.test("_servedBudgetGap(): a chunk cut where the pass used a whole default budget of its GPU is accepted; any other total, or a pass past every budget, FAILs", () => {
  // 2048 (API server) and 8192 (LLM class) on an A100, the cut chunk beside other requests.
  assert.equal(stopOf([pass(2000, 0, 48), pass(2000, 2000, 0)]), null);
  assert.equal(stopOf([pass(3000, 0, 5192), pass(1000, 3000, 0)]), null);
  const short = stopOf([pass(2000, 0, 40), pass(2000, 2000, 0)]);
  assert.equal(short?.status, "FAIL");
  assert.match(short!.why, /pass 0 ends the prompt's chunk at 2000 of its 4000 tokens with 2040/);
  // 16384 is a budget at 70 GiB and more only: past every A100 budget.
  const big = [pass(4000, 0, 12384)];
  const over = stopOf(big);
  assert.equal(over?.status, "FAIL");
  assert.match(over!.why, /pass 0 schedules 16384 tokens, more than vLLM's scheduler takes/);
  assert.equal(stopOf(big, { gpu: "h100-sxm" }), null);
  // The bound is the largest budget itself: one token past it FAILs, the budget exactly is held
  // to nothing (the prompt's one chunk is not cut), on the A100's defaults and a pinned budget.
  const past = stopOf([pass(4000, 0, 4193)]);
  assert.equal(past?.status, "FAIL");
  assert.match(past!.why, /^record contradicts its stack: pass 0 schedules 8193 tokens, more than/);
  assert.equal(stopOf([pass(4000, 0, 4192)]), null);
  const fourThousand = { flags: "--enforce-eager --max-num-batched-tokens 4000" };
  const pastPinned = stopOf([pass(4000, 0, 1)], fourThousand);
  assert.equal(pastPinned?.status, "FAIL");
  assert.match(
    pastPinned!.why,
    /pass 0 schedules 4001 tokens, more than .*max_num_batched_tokens 4000: /,
  );
  assert.equal(stopOf([pass(4000, 0, 0)], fourThousand), null);
  assert.equal(stopOf([pass(1000, 0, 15384), pass(3000, 1000, 0)], { gpu: "h200" }), null);
  // A pinned budget is the one budget.
  const pinned = { flags: "--enforce-eager --max-num-batched-tokens 1000" };
  const thousands = [0, 1000, 2000, 3000].map((c) => pass(1000, c, 0));
  assert.equal(stopOf(thousands, pinned), null);
  assert.equal(stopOf([pass(2000, 0, 48), pass(2000, 2000, 0)], pinned)?.status, "FAIL");
  // A prompt whose chunks all end at its end is not cut: nothing to hold it to.
  assert.equal(stopOf([pass(4000, 0, 3)]), null);
  // One engine has one budget (review h98): a chunk cut at 2048 and another at 8192, or a cut at
  // 2048 and a later pass of 8192, fit no one budget.
  const mixed = stopOf([pass(1000, 0, 1048), pass(2000, 1000, 6192), pass(1000, 3000, 0)]);
  assert.equal(mixed?.status, "FAIL");
  assert.match(
    mixed!.why,
    /pass 0 ends the prompt's chunk with 2048 tokens scheduled and pass 1 ends the prompt's chunk with 8192: one engine runs with one token budget/,
  );
  const later = stopOf([pass(1000, 0, 1048), pass(3000, 1000, 5192)]);
  assert.match(later?.why ?? "", /pass 0 .* 2048 tokens scheduled and pass 1 schedules 8192/);
  const h200 = stopOf([pass(1000, 0, 1048), pass(3000, 1000, 13384)], { gpu: "h200" });
  assert.equal(h200?.status, "FAIL");
  // A pass below the budget is any pass's right (the queue ran dry).
  assert.equal(
    stopOf([pass(1000, 0, 1048), pass(2000, 1000, 48), pass(1000, 3000, 10)]),
    null,
  );
});

Deno.test("_servedBudgetGap(): a preempted request's recomputing chunk that ends before the tokens it had is held to the budget as a prompt's chunk is", () => {
  // The 4000-token prompt cut at 2048, one decode (4002 tokens), then preempted and recomputed.
  const served = [pass(2000, 0, 48), pass(2000, 2000, 0), pass(1, 4000, 0)];
  const short = stopOf([...served, pass(1000, 0, 0), pass(3002, 1000, 0)]);
  assert.equal(short?.status, "FAIL");
  assert.match(
    short!.why,
    /^record contradicts its stack: pass 3 ends its recomputation's chunk at 1000 of the 4002 tokens the request had after its preemption, with 1000 tokens scheduled, where vLLM's scheduler recomputes all of a preempted request's tokens/,
  );
  const rest = [pass(2048, 1000, 0), pass(954, 3048, 0)];
  assert.equal(stopOf([...served, pass(1000, 0, 1048), ...rest]), null);
  assert.equal(stopOf([...served, pass(2048, 0, 0), pass(1954, 2048, 0)]), null);
  const other = stopOf([...served, pass(1000, 0, 7192), pass(3002, 1000, 0)]);
  assert.match(
    other?.why ?? "",
    /^record contradicts its stack: pass 0 ends the prompt's chunk with 2048 tokens scheduled and pass 3 ends its recomputation's chunk with 8192: one engine runs with one token budget/,
  );
});

Deno.test("_servedBudgetGap(): a cut chunk is NOT_VERIFIED where a setting changes where vLLM ends chunks or the budget is not read", () => {
  const cut = [pass(6, 0, 0), pass(3994, 6, 0)];
  for (
    const flags of [
      "--long-prefill-token-threshold 6",
      "--max-num-partial-prefills 2",
      "--no-enable-chunked-prefill",
      "--max-num-batched-tokens 1k",
      "--config engine.yaml --max_num_batched_tokens",
      "--max-model-len 8192",
    ]
  ) {
    const s = stopOf(cut, { flags });
    assert.equal(s?.status, "NOT_VERIFIED", `${flags}: ${s?.why}`);
    assert.match(s!.why, /^stack '[^']+': pass 0 ends the prompt's chunk before its end/);
  }
  // Without a cut chunk such settings say nothing here.
  assert.equal(stopOf([pass(4000, 0, 0)], { flags: "--long-prefill-token-threshold 6" }), null);
});

Deno.test("vllmTokenBudget(): the stack's last --max-num-batched-tokens, else every default of the GPU and usage context", () => {
  const on = (flags: string, gpu: string, maxModelLen: number | null = 4096) =>
    vllmTokenBudget({ components: { vllm: "0.11.0", flags } }, { gpu, maxModelLen });
  const tokens = (b: ReturnType<typeof on>) => b?.ok === true ? b.tokens : b;
  assert.deepEqual(tokens(on("--max-num-batched-tokens 8 --max_num_batched_tokens=16", "a100")), [
    16,
  ]);
  assert.deepEqual(tokens(on("", "a100")), [2048, 8192]);
  for (const id of ["l40s", "l4", "a30", "v100"]) {
    assert.deepEqual(tokens(on("", id)), [2048, 8192]);
  }
  assert.deepEqual(tokens(on("", "h100-sxm")), [2048, 8192, 16384]);
  // A model of 8 positions: an engine built from its arguments takes min(128 x 8, 2048) = 1024,
  // and later releases cap the API server's and the LLM class's default at max_num_seqs x 8.
  assert.deepEqual(tokens(on("", "a100", 8)), [1024, 2048, 8192]);
  assert.deepEqual(tokens(on("--max-num-seqs 4", "a100", 8)), [32, 2048, 8192]);
  assert.equal(on("", "a100", null)?.ok, false);
  assert.deepEqual(tokens(on("--max-num-batched-tokens 512", "a100", null)), [512]);
  assert.equal(on("--max-num-seqs 0x10", "a100")?.ok, false);
  assert.equal(
    vllmTokenBudget({ components: { transformers: "4.57.1" } }, {
      gpu: "a100",
      maxModelLen: 4096,
    }),
    null,
  );
});
