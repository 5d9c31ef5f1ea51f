/**
 * The simulated prover's vLLM engine runs keep vLLM's limits, as the verifier checks them: no
 * pass holds more requests than `max_num_seqs` (257 requests arriving at once were served as one
 * pass of 257, which FAILed), a request stops generating once it reaches `max_model_len` (a
 * 4090-token prompt asking 10 tokens ran to 4099 positions, which FAILed), and a prompt chunked up
 * to `max_model_len - 1`, which vLLM's scheduler never finishes, is refused. Honest records PASS
 * and a flipped fingerprint still FAILs.
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { parseServingHistory, type SequenceWorkload } from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { parseDecoderConfig } from "../../src/model/mod.ts";
import {
  makeClaims,
  parseScenario,
  scheduleStep,
  servedRequests,
  servingLimits,
} from "../../src/prover/mod.ts";
import { loadAsset, STACK_PROFILES } from "../../src/resolve/mod.ts";
import { assertCode, assertRejectsCode } from "../_assert_code.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { DENSE_CONFIG } from "../hostile/_recompute_fixture.ts";
import { assertVerdicts, oneGemmScenario } from "../verify/_serving_fixture.ts";

const store = await openAssetStore();
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

/** One engine run on a vLLM 0.11 stack of the dense tiny checkpoint on an A100. */
function vllmRun(
  stack: string,
  serving: Record<string, unknown>,
  falsify: unknown[] = [],
): Promise<Awaited<ReturnType<typeof makeClaims>>> {
  const scenario = oneGemmScenario({ logId: "vllm-limits", seed: "vllm-limits-v1" }, {
    serving: {
      stack,
      components: { vllm: "0.11.0" },
      catalog: "demo-qwen3-tiny-a100",
      multiProcessorCount: 108,
      checkpoints: ["tables/models/qwen3-tiny-dense"],
      arrivalSteps: 1,
      tokenBudget: 40,
      maxChunk: 32,
      layerChain: false,
      ...serving,
    },
    falsify,
  });
  return makeClaims(parseScenario(scenario), { store, walker, attention });
}

/** Each sequence record's passes, as (query, cached) per entry. */
function histories(out: Awaited<ReturnType<typeof makeClaims>>) {
  return out.records.slice(1).map((r) => {
    const w = r.predicate.workload as SequenceWorkload;
    return { w, passes: parseServingHistory(out.blobs.get(w.history.sha256)!) };
  });
}

Deno.test("257 requests arriving at once on a vLLM stack on an A100 are served as passes of at most 256 (max_num_seqs): every record PASSes, a flipped fingerprint FAILs", async () => {
  const out = await vllmRun("vllm-0.11-eager-fa2", {
    requests: 257,
    promptLengths: [1],
    generate: [1],
  }, [{ seq: 257, kind: "fingerprint", bit: 3 }]);
  assert.deepEqual(out.falsified, [{ seq: 257, kind: "fingerprint" }]);
  const widths = histories(out).map(({ passes }) => passes[0]!.entries.length);
  assert.equal(Math.max(...widths), 256);
  assert.equal(widths.filter((n) => n === 1).length, 1);
  await assertVerdicts(out, { store, walker, attention });
});

Deno.test("a 4090-token prompt asking 10 tokens stops at max_model_len 4096 after 6, as vLLM's check_stop finishes it: PASS, a flipped fingerprint FAILs", async () => {
  const serving = { requests: 1, promptLengths: [4090], generate: [10] };
  const stack = "vllm-0.11-eager-fa2-lg2-model";
  const honest = await vllmRun(stack, serving);
  const [{ w, passes }] = histories(honest) as [ReturnType<typeof histories>[0]];
  assert.equal(w.tokens.prompt.length, 4090);
  assert.equal(w.tokens.generated.length, 6);
  const last = passes.at(-1)!.entries[passes.at(-1)!.self]!;
  assert.equal(last.cached + last.query, 4095);
  await assertVerdicts(honest, { store, walker, attention });
  const flipped = await vllmRun(stack, serving, [{ seq: 1, kind: "fingerprint", bit: 5 }]);
  assert.deepEqual(flipped.falsified, [{ seq: 1, kind: "fingerprint" }]);
  await assertVerdicts(flipped, { store, walker, attention });
});

Deno.test("a 4096-token prompt chunked 2048 + 2047 reaches max_model_len - 1, where vLLM's scheduler never continues it: refused (SCENARIO_INVALID); in one pass it PASSes", async () => {
  const stack = "vllm-0.11-eager-fa2-lg2-model";
  const serving = { requests: 1, promptLengths: [4096], generate: [3] };
  await assert.rejects(
    () => vllmRun(stack, serving),
    (e) =>
      e instanceof InputError && e.code === "SCENARIO_INVALID" &&
      e.message.startsWith(
        "Cannot serve request 1 on 'vllm-0.11-eager-fa2-lg2-model': its 4096-token prompt was " +
          "chunked up to 4095 positions, and vLLM's scheduler continues a running request only " +
          "below max_model_len 4096 minus 1, so it never finishes the prompt",
      ),
  );
  const whole = await vllmRun(stack, { ...serving, vllmTokenBudget: 8192 });
  const [{ w, passes }] = histories(whole) as [ReturnType<typeof histories>[0]];
  assert.deepEqual(passes.map((q) => q.entries), [[{ query: 4096, cached: 0 }]]);
  assert.equal(w.tokens.generated.length, 1);
  await assertVerdicts(whole, { store, walker, attention });
});

Deno.test("a scenario's maxSeqs above the vLLM stack's max_num_seqs is refused: its passes would FAIL", async () => {
  const serving = { requests: 2, promptLengths: [1], generate: [1], maxSeqs: 257 };
  await assertRejectsCode(
    () => vllmRun("vllm-0.11-eager-fa2", serving),
    InputError,
    "SCENARIO_INVALID",
  );
  const within = await vllmRun("vllm-0.11-eager-fa2", { ...serving, maxSeqs: 1 });
  assert.ok(histories(within).every(({ passes }) => passes[0]!.entries.length === 1));
});

Deno.test("servedRequests() refuses a prompt longer than max_model_len, which vLLM refuses, and caps a request's tokens at max_model_len; another stack keeps both", async () => {
  const stack = (await loadAsset(store, { kind: STACK_PROFILES, id: "vllm-0.11-eager-fa2" }))
    .value;
  const hf = (await loadAsset(store, {
    kind: STACK_PROFILES,
    id: "hf-qwen3-continuous-batching-torch2.8",
  })).value;
  const config = parseDecoderConfig({ ...DENSE_CONFIG, max_position_embeddings: 16 });
  const limits = servingLimits(stack, { config, gpu: "h100-sxm", maxSeqs: undefined });
  assert.deepEqual(limits, { maxSeqs: 1024, maxModelLen: 16 });
  const requests = [{ arrival: 0, prompt: 12, generate: 9 }, {
    arrival: 0,
    prompt: 16,
    generate: 9,
  }];
  const served = servedRequests(requests, { stack, config, limits, first: 4 });
  assert.deepEqual(served.map((q) => q.generate), [4, 1]);
  assertCode(
    () =>
      servedRequests([{ arrival: 0, prompt: 17, generate: 1 }], {
        stack,
        config,
        limits,
        first: 4,
      }),
    InputError,
    "SCENARIO_INVALID",
  );
  const open = servingLimits(hf, { config, gpu: "a100", maxSeqs: undefined });
  assert.deepEqual(open, {});
  assert.deepEqual(
    servedRequests(requests, { stack: hf, config, limits: open, first: 4 }),
    requests,
  );
});

Deno.test("scheduleStep() gives a running request positions only below maxModelLen - 1 and skips it when none is left", () => {
  const reqs = [{ arrival: 0, prompt: 8, generate: 1 }, { arrival: 0, prompt: 3, generate: 1 }];
  const o = { step: 1, tokenBudget: 16, maxChunk: 16, maxModelLen: 8 };
  const cut = scheduleStep(reqs, [{ computed: 4, generated: 0 }, { computed: 0, generated: 0 }], o);
  assert.deepEqual(cut.map((e) => [e.request, e.query]), [[0, 3], [1, 3]]);
  const none = scheduleStep(
    reqs,
    [{ computed: 7, generated: 0 }, { computed: 0, generated: 0 }],
    o,
  );
  assert.deepEqual(none.map((e) => [e.request, e.query]), [[1, 3]]);
  const first = scheduleStep(
    reqs,
    [{ computed: 0, generated: 0 }, { computed: 0, generated: 0 }],
    o,
  );
  assert.deepEqual(first.map((e) => [e.request, e.query]), [[0, 8], [1, 3]]);
});
