/**
 * HF's continuous batching in Transformers 4.57 never preempts: `FIFOScheduler` and
 * `PrefillFirstScheduler` leave a request they cannot give cache blocks waiting, and each pass of
 * a request starts at its `position_offset`, which only grows (4.57.6,
 * `generation/continuous_batching/scheduler.py`, `continuous_api.py`). A served record on its
 * stack whose history computes positions again, as a request preempted and recomputed would, had
 * been NOT_VERIFIED as such a recomputation whatever its fingerprint: it FAILs. The same history
 * on vLLM, which preempts and recomputes, stays NOT_VERIFIED, and a contradiction beside it still
 * FAILs there.
 */
import assert from "node:assert/strict";
import type { HistoryPass, SequenceWorkload } from "../../src/claims/mod.ts";
import { oneGemmScenario } from "../verify/_serving_fixture.ts";
import { proverRun, verifyAlone } from "./_recompute_fixture.ts";
import { bentSequence, vllmServedScenario } from "./_vllm_served.ts";

/** One 7-token prompt and 3 generated tokens on HF's continuous-batching stack. */
const hf = await proverRun(oneGemmScenario({ logId: "hf-recompute", seed: "hf-recompute-v1" }, {
  serving: {
    stack: "hf-qwen3-continuous-batching-torch2.8-lg2-model",
    components: { pytorch: "2.8.0", flash_attn: "2.8.3" },
    catalog: "demo-qwen3-tiny-a100",
    multiProcessorCount: 108,
    checkpoints: ["tables/models/qwen3-tiny-dense"],
    requests: 1,
    arrivalSteps: 1,
    promptLengths: [7],
    generate: [3],
    tokenBudget: 40,
    maxChunk: 32,
    layerChain: false,
  },
  falsify: [],
}));
/** The same request on the eager vLLM stack. */
const vllm = await proverRun(
  vllmServedScenario({ logId: "vllm-recompute", seed: "vllm-recompute-v1" }, { prompt: 7 }),
);

/** A pass of the request alone: `cached` positions, then `query` new ones, sampling once. */
function pass(query: number, cached: number): HistoryPass {
  return { entries: [{ query, cached }], self: 0, rows: query, logitsRows: 1 };
}

/** Prefill, one decode, then the request's 9 tokens computed again from 0, and a decode. */
const RECOMPUTED = [pass(7, 0), pass(1, 7), pass(9, 0), pass(1, 9)];

Deno.test("a served record on HF's continuous batching (Transformers 4.57) whose history recomputes positions FAILs; the same history on vLLM stays NOT_VERIFIED", async () => {
  const blobs = new Map(hf.blobs);
  const onHf = await verifyAlone(
    bentSequence(hf.records[1]!.predicate, { passes: RECOMPUTED, blobs }),
    blobs,
  );
  assert.equal(onHf.status, "FAIL", onHf.reason);
  assert.equal(
    onHf.reason,
    "record contradicts its history: pass 2 says 0 cached tokens, the earlier passes computed " +
      "8: it computes positions again (a request preempted and recomputed), and HF's continuous " +
      "batching in Transformers 4.57 never preempts (a request its scheduler cannot give cache " +
      "blocks waits)",
  );
  // The history without the recomputation is a run of the stack: no such FAIL.
  const straight = await verifyAlone(
    bentSequence(hf.records[1]!.predicate, {
      passes: [pass(7, 0), pass(1, 7), pass(1, 8), pass(1, 9)],
      blobs,
    }),
    blobs,
  );
  assert.doesNotMatch(straight.reason, /cached tokens/);

  const vblobs = new Map(vllm.blobs);
  const onVllm = await verifyAlone(
    bentSequence(vllm.records[1]!.predicate, { passes: RECOMPUTED, blobs: vblobs }),
    vblobs,
  );
  assert.equal(onVllm.status, "NOT_VERIFIED", onVllm.reason);
  assert.match(
    onVllm.reason,
    /^pass 2 computes positions 0\.\.8 again \(a request preempted and recomputed\)/,
  );
  // Beside the recomputation a contradiction still FAILs (review h88): a pass whose logits rows
  // contradict its entries, a token outside the vocabulary.
  const twoRows = RECOMPUTED.map((q, i) => i === 1 ? { ...q, logitsRows: 2 } : q);
  const rows = await verifyAlone(
    bentSequence(vllm.records[1]!.predicate, { passes: twoRows, blobs: vblobs }),
    vblobs,
  );
  assert.equal(rows.status, "FAIL", rows.reason);
  assert.match(rows.reason, /pass 1 says 2 logits rows for 1 entries/);
  const bent = bentSequence(vllm.records[1]!.predicate, { passes: RECOMPUTED, blobs: vblobs });
  const w = bent.workload as SequenceWorkload;
  const outside = await verifyAlone({
    ...bent,
    workload: { ...w, tokens: { ...w.tokens, prompt: [99999, ...w.tokens.prompt.slice(1)] } },
  }, vblobs);
  assert.equal(outside.status, "FAIL", outside.reason);
  assert.match(outside.reason, /token id 99999 is outside/);
});
