/**
 * The simulated prover's scheduler lays out passes as HF Transformers 4.57's continuous batching
 * does (`FIFOScheduler.schedule_batch`, `generation/continuous_batching/scheduler.py`): decoding
 * requests first, then the waiting ones in the order they arrived (`waiting_requests_order`), each
 * scheduled request taking its tokens from the pass's budget (`token_budget -= request_len`, one
 * token for a decode step).
 */
import assert from "node:assert/strict";
import { scheduleStep } from "../../src/prover/mod.ts";

/** The entries of a pass as `request:query`. */
function layout(e: readonly { request: number; query: number }[]): string {
  return e.map((x) => `${x.request}:${x.query}`).join(",");
}

Deno.test("scheduleStep() fills a pass as HF's FIFOScheduler: the decode step first and from the budget, then waiting prompts by arrival, not by length", () => {
  const requests = [
    { arrival: 1, prompt: 3, generate: 1 },
    { arrival: 0, prompt: 10, generate: 1 },
    { arrival: 0, prompt: 2, generate: 3 },
  ];
  const progress = [
    { computed: 0, generated: 0 },
    { computed: 0, generated: 0 },
    { computed: 2, generated: 1 },
  ];
  // Budget 8: the decode step of request 2 takes 1, request 1 (arrived first) the other 7, and
  // request 0 (arrived later, shorter) none.
  const e = scheduleStep(requests, progress, { step: 1, tokenBudget: 8, maxChunk: 8 });
  assert.equal(layout(e), "2:1,1:7");
  assert.deepEqual(e.map((x) => x.emits), [true, false]);
});
