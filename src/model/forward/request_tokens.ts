/**
 * The tokens a served request had when each of its passes was scheduled, and so which of its
 * passes sample. A pass computes positions whose tokens exist: the prompt's, and one more for
 * each position computed from the prompt's last one on (each samples the next token). A pass that
 * reaches the last token the request had samples; one that stops short of it is a partial
 * prefill, whose sampled token vLLM 0.11 discards (`GPUModelRunner._prepare_inputs`:
 * `discard_requests_mask = self.seq_lens.np[:num_reqs] < num_tokens_np`, the request's
 * `num_tokens` counting its output tokens). After a preemption that last token is past the
 * prompt's end: vLLM recomputes a request over all the tokens it had (`Scheduler.schedule()` sets
 * its `num_computed_tokens` to 0, then asks for `request.num_tokens - num_computed_tokens`), so a
 * recomputing chunk the token budget cut past the prompt's end samples nothing. HF's continuous
 * batching (Transformers 4.57's `FIFOScheduler`) never preempts: a request it cannot give cache
 * blocks waits, so its passes sample where the prompt ends and at each decode step, as this says.
 *
 * @module
 */

/**
 * The request's tokens when each of its passes was scheduled (vLLM's `request.num_tokens`): its
 * prompt, and one more for each position the earlier passes computed from the prompt's last one
 * on, that is `max(prompt, reached + 1)` for the furthest position `reached` (exclusive) the
 * earlier passes, or the first pass's cached positions, reached.
 *
 * @param own the sequence's entry in each of its passes, in order (`query` positions after
 *   `cached` ones)
 * @param prompt the prompt's length
 * @returns per pass, the tokens the request had
 * @example
 * ```ts
 * import { requestTokens } from "./request_tokens.ts";
 * const t = requestTokens([{ query: 3, cached: 0 }, { query: 1, cached: 3 }, { query: 5, cached: 0 }], 3);
 * if (t.join() !== "3,4,5") throw new Error();
 * ```
 */
export function requestTokens(
  own: readonly { readonly query: number; readonly cached: number }[],
  prompt: number,
): number[] {
  let high = own[0]?.cached ?? 0;
  return own.map((e) => {
    const tokens = Math.max(prompt, high + 1);
    high = Math.max(high, e.cached + e.query);
    return tokens;
  });
}
