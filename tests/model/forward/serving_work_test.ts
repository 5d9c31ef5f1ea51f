/**
 * `servingWork()` holds each pass's logits rows to the entries of it that sample. A block samples
 * when it reaches the tokens the request had at its pass (`requestTokens`), not merely the
 * prompt's end: after a preemption vLLM 0.11 recomputes a request over every token it had, and a
 * recomputing chunk the token budget cut before the last of them is a partial prefill, whose
 * sampled token the model runner discards (`discard_requests_mask = seq_lens < num_tokens`).
 */
import assert from "node:assert/strict";
import { type PassShape, servingWork } from "../../../src/model/mod.ts";

/** A pass holding one request's chunk of `query` positions after `cached`. */
const alone = (query: number, cached: number, logitsRows: number): PassShape => ({
  entries: [{ query, cached }],
  rows: query,
  logitsRows,
});
/** A 40-token prompt, decoded once, preempted, recomputed in two chunks, decoded again. */
const sequence = {
  tokens: Array.from({ length: 43 }, (_, i) => i),
  prompt: 40,
  steps: [0, 1, 2, 3].map((pass) => ({ pass, entry: 0 })),
  recomputes: true,
};

Deno.test("servingWork() counts a recomputing chunk that stops before the tokens the request had as sampling nothing, one that reaches them as sampling", () => {
  // Positions 0..40 of the 42 tokens the request had: a partial prefill, past the prompt's end.
  const cut = [alone(40, 0, 1), alone(1, 40, 1), alone(41, 0, 0), alone(1, 41, 1)];
  const laid = servingWork({ passes: cut, sequences: [sequence] }, { flatten: true });
  assert.deepEqual(laid.blocks.map((b) => b.emits), [true, true, false, true]);
  // One logits row there says the partial prefill sampled.
  const said = cut.map((p, i) => (i === 2 ? { ...p, logitsRows: 1 } : p));
  assert.throws(
    () => servingWork({ passes: said, sequences: [sequence] }, { flatten: true }),
    (e: Error) =>
      e instanceof RangeError &&
      e.message ===
        "Cannot replay: pass 2 records 1 logits rows, its computed entries emit 0 token(s)",
  );
  // Positions 0..41, all 42 tokens: the recomputation samples the next one.
  const whole = [alone(40, 0, 1), alone(1, 40, 1), alone(42, 0, 1)];
  const done = servingWork({
    passes: whole,
    sequences: [{ ...sequence, steps: sequence.steps.slice(0, 3) }],
  }, { flatten: true });
  assert.deepEqual(done.blocks.map((b) => b.emits), [true, true, true]);
});

Deno.test("servingWork() counts a prompt's last chunk and each decode step as sampling, an earlier chunk as not", () => {
  const passes = [alone(20, 0, 0), alone(20, 20, 1), alone(1, 40, 1)];
  const plain = { tokens: sequence.tokens, prompt: 40, steps: sequence.steps.slice(0, 3) };
  const laid = servingWork({ passes, sequences: [plain] }, { flatten: true });
  assert.deepEqual(laid.blocks.map((b) => b.emits), [false, true, true]);
  assert.throws(
    () =>
      servingWork({
        passes: passes.map((p, i) => (i === 1 ? { ...p, logitsRows: 0 } : p)),
        sequences: [plain],
      }, { flatten: true }),
    /pass 1 records 0 logits rows, its computed entries emit 1 token\(s\)/,
  );
});

Deno.test("servingWork() holds a pass's logits rows to its own sampling entries plus at most one per other entry", () => {
  // The sequence's chunk of 20 of its 40 prompt positions samples nothing; the pass's one other
  // request may sample one token: 0 or 1 logits rows, never 2.
  const passes = (logitsRows: number): PassShape[] => [
    { entries: [{ query: 20, cached: 0 }, { query: 7, cached: 0 }], rows: 27, logitsRows },
    alone(20, 20, 1),
  ];
  const plain = {
    tokens: sequence.tokens.slice(0, 40),
    prompt: 40,
    steps: [0, 1].map((pass) => ({ pass, entry: 0 })),
  };
  for (const n of [0, 1]) servingWork({ passes: passes(n), sequences: [plain] }, { flatten: true });
  assert.throws(
    () => servingWork({ passes: passes(2), sequences: [plain] }, { flatten: true }),
    (e: Error) =>
      e instanceof RangeError &&
      e.message ===
        "Cannot replay: pass 0 records 2 logits rows, its computed entries emit 0 token(s) and its 1 other entries at most 1",
  );
});
