/**
 * The simulated prover's continuous-batching scheduler: requests arrive at fixed steps; each
 * forward pass first runs one decode step for every sequence whose prompt is done and which
 * still generates, then fills the rest of the token budget with prefill chunks (at most
 * `maxChunk` tokens each) of the waiting prompts in arrival order, so prompts are split across
 * passes and passes mix prefill chunks with decode steps. As vLLM's V1 scheduler does with
 * `max_num_seqs`, a pass holds at most `maxSeqs` entries (running sequences first); and with
 * `max_model_len` (`maxModelLen`), a request already running (positions computed) is given only
 * positions below `maxModelLen - 1` (`num_new_tokens = min(num_new_tokens, max_model_len - 1 -
 * num_computed_tokens)`, `v1/core/sched/scheduler.py:224-227`), and none when that leaves no token
 * (it is skipped, as vLLM's `continue` skips it).
 *
 * @module
 */

/** A request: when it arrives, its prompt length and how many tokens it generates. */
export interface ServingRequest {
  /** Step at which it may first be scheduled. */
  readonly arrival: number;
  /** Prompt tokens. */
  readonly prompt: number;
  /** Tokens to generate (at least 1). */
  readonly generate: number;
}

/** How far a request has got. */
export interface RequestProgress {
  /** Positions computed (in its KV cache). */
  readonly computed: number;
  /** Tokens generated. */
  readonly generated: number;
}

/** One entry the scheduler puts in a pass. */
export interface ScheduledEntry {
  /** Request index. */
  readonly request: number;
  /** New tokens of the entry. */
  readonly query: number;
  /** Positions already cached. */
  readonly cached: number;
  /** Whether the entry's last row emits a token. */
  readonly emits: boolean;
}

/**
 * The entries of the pass at `step` (empty when no request is ready).
 *
 * @param requests the requests
 * @param progress each request's progress
 * @param o `step`, `tokenBudget`, `maxChunk`, `maxSeqs` (entries per pass; default no limit) and
 *   `maxModelLen` (vLLM's `max_model_len`; default no limit)
 * @returns the pass's entries, decode steps first
 * @example
 * ```ts
 * import { scheduleStep } from "./serving_scheduler.ts";
 * const reqs = [{ arrival: 0, prompt: 3, generate: 2 }, { arrival: 0, prompt: 10, generate: 1 }];
 * const e = scheduleStep(reqs, [{ computed: 3, generated: 1 }, { computed: 0, generated: 0 }],
 *   { step: 1, tokenBudget: 8, maxChunk: 4 });
 * if (e.map((x) => `${x.request}:${x.query}`).join() !== "0:1,1:4") throw new Error();
 * const capped = scheduleStep([{ arrival: 0, prompt: 8, generate: 1 }], [{ computed: 4, generated: 0 }],
 *   { step: 1, tokenBudget: 8, maxChunk: 8, maxModelLen: 8 });
 * if (capped[0]?.query !== 3) throw new Error();
 * ```
 */
export function scheduleStep(
  requests: readonly ServingRequest[],
  progress: readonly RequestProgress[],
  o: {
    readonly step: number;
    readonly tokenBudget: number;
    readonly maxChunk: number;
    readonly maxSeqs?: number | undefined;
    readonly maxModelLen?: number | undefined;
  },
): ScheduledEntry[] {
  const entries: ScheduledEntry[] = [];
  let budget = o.tokenBudget;
  const maxSeqs = o.maxSeqs ?? Infinity;
  const live = requests
    .map((r, i) => ({ r, i, p: progress[i]! }))
    .filter(({ r, p }) => r.arrival <= o.step && p.generated < r.generate);
  for (const { r, i, p } of live) {
    if (p.computed < r.prompt || _runningRoom(p, o.maxModelLen) < 1) continue;
    if (entries.length >= maxSeqs) break;
    entries.push({ request: i, query: 1, cached: p.computed, emits: true });
    budget -= 1;
  }
  const waiting = live
    .filter(({ r, p }) => p.computed < r.prompt)
    .sort((a, b) => a.r.arrival - b.r.arrival || a.i - b.i);
  for (const { r, i, p } of waiting) {
    if (budget <= 0 || entries.length >= maxSeqs) break;
    const query = Math.min(
      r.prompt - p.computed,
      budget,
      o.maxChunk,
      _runningRoom(p, o.maxModelLen),
    );
    if (query <= 0) continue;
    entries.push({ request: i, query, cached: p.computed, emits: p.computed + query === r.prompt });
    budget -= query;
  }
  return entries;
}

/** The positions vLLM's scheduler still gives a request: below `maxModelLen - 1` once it runs. */
function _runningRoom(p: RequestProgress, maxModelLen: number | undefined): number {
  if (maxModelLen === undefined || p.computed === 0) return Infinity;
  return maxModelLen - 1 - p.computed;
}
