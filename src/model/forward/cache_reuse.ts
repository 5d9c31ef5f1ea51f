/**
 * How one sequence's own passes use its KV cache, read from their cached lengths: whether its
 * first pass starts after cached positions (a prefix-cache hit: another request's passes computed
 * them) and which passes compute positions again (a request preempted and recomputed, as vLLM's
 * V1 engine does, from position 0 or from its prefix-cache hit). The replay models neither: each
 * position computed once, from position 0.
 *
 * A pass computes positions whose tokens exist: the prompt's, and one more for each position
 * computed from the prompt's last one on (each emits the next token). vLLM 0.11 recomputes a
 * preempted request over the tokens it had (`Scheduler.schedule()` sets a preempted request's
 * `num_computed_tokens` to 0, then asks for `request.num_tokens - num_computed_tokens` when it
 * schedules it again, "to consider the resumed requests, which have output tokens"), so a
 * recomputing pass that reaches past them contradicts the history. So does a pass that says more
 * positions are cached than the pass before it reached, except where the stack restarts a
 * preempted request from a prefix-cache hit: vLLM's `KVCacheManager.get_computed_blocks` takes
 * whole cached blocks, whichever request computed them (a shared prompt, parallel sampling), up
 * to `num_tokens - 1` positions, so after a preemption the hit may reach past what the sequence
 * itself computed. On the other stacks (HF's continuous batching), for which no such restart is
 * modelled, it stays a contradiction.
 *
 * HF's continuous batching in Transformers 4.57 (the release the HF continuous-batching stacks
 * pin, `4.57.x`) never preempts, so on its stacks a pass that computes positions again contradicts
 * the history too. In 4.57.6's `generation/continuous_batching/scheduler.py`, `FIFOScheduler` and
 * `PrefillFirstScheduler.schedule_batch` skip a request `_allocate_blocks_if_needed` cannot give
 * cache blocks (`continue`, or `break` once no block is free): it waits; blocks are freed only by
 * `finish_request` and `clear_cancelled_requests`; and `continuous_api.py`'s
 * `ContinuousBatchProcessor.prepare_next_batch` starts each pass of a request at its
 * `position_offset`, which only grows (`state.position_offset += query_length`; `update_batch`
 * raises "No more free blocks" rather than evict one). Later releases do preempt (Transformers
 * 5's `OffloadingManager` soft-resets a request into the waiting queue), so a stack pinning one
 * keeps recomputations NOT_VERIFIED, as do vLLM's and stacks naming neither engine.
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "../../kernels/mod.ts";
import { requestTokens } from "./request_tokens.ts";
import type { PassEntry } from "./serving_shape.ts";

/** The cache walk of a sequence's own entries, or the contradiction that ends it. */
export type CacheReuse =
  | {
    readonly ok: true;
    /** Positions cached before the first pass (0: none). */
    readonly start: number;
    /** Per pass, whether it starts below the furthest position the earlier passes reached. */
    readonly again: readonly boolean[];
    /**
     * Every pass that starts elsewhere than the end of the pass before it (a preempted request
     * restarting: below it, a recomputation; above it, on vLLM, a prefix-cache hit past what the
     * sequence computed), with the furthest position the earlier passes reached (exclusive).
     */
    readonly restarts: readonly { readonly pass: number; readonly reached: number }[];
    /** Positions the last pass ends at (the last computed position is one less). */
    readonly end: number;
  }
  | { readonly ok: false; readonly why: string };

/**
 * Walks a sequence's own entries in pass order: each starts where the one before ended, or
 * below it (a recomputation, on any stack but HF's continuous batching in Transformers 4.57,
 * which never preempts), or on a vLLM stack above it (a restart from a prefix-cache hit of
 * at most the request's tokens less one); a pass that starts elsewhere than where the one before
 * ended, or computes positions again, ends at most at the request's tokens.
 *
 * @param own the sequence's entry in each of its passes, in order (at least one)
 * @param o `prompt`: the prompt's length; `stack`: the stack that served it (whether it restarts
 *   a preempted request from a prefix-cache hit: vLLM's; whether it preempts at all: not HF's
 *   continuous batching in Transformers 4.57)
 * @returns the walk, or why the entries contradict each other
 * @example
 * ```ts
 * import { cacheReuse } from "./cache_reuse.ts";
 * const own = [{ query: 3, cached: 0 }, { query: 1, cached: 3 }, { query: 5, cached: 0 }];
 * const r = cacheReuse(own, { prompt: 3, stack: { components: {} } });
 * if (!r.ok || r.restarts[0]?.pass !== 2 || r.end !== 5 || r.restarts[0]?.reached !== 4) {
 *   throw new Error();
 * }
 * // Position 5's token did not exist yet: the request had 5 tokens when it was recomputed.
 * const past = [...own.slice(0, 2), { query: 6, cached: 0 }];
 * if (cacheReuse(past, { prompt: 3, stack: { components: {} } }).ok) throw new Error();
 * // Transformers 4.57 never preempts: no recomputation on its stacks.
 * if (cacheReuse(own, { prompt: 3, stack: { components: { transformers: "4.57.x" } } }).ok) {
 *   throw new Error();
 * }
 * ```
 */
export function cacheReuse(
  own: readonly PassEntry[],
  o: { readonly prompt: number; readonly stack: Pick<StackProfile, "components"> },
): CacheReuse {
  const hits = isVllmStack(o.stack);
  const preempts = hits || !_TRANSFORMERS_4_57.test(o.stack.components.transformers ?? "");
  const tokens = requestTokens(own, o.prompt);
  let cur = own[0]?.cached ?? 0;
  let high = cur;
  const again: boolean[] = [];
  const restarts: { pass: number; reached: number }[] = [];
  for (let i = 0; i < own.length; i++) {
    const e = own[i]!;
    const had = tokens[i]!;
    if (i > 0 && e.cached > cur && (!hits || e.cached > had - 1)) {
      return {
        ok: false,
        why: `pass ${i} says ${e.cached} cached tokens, the earlier passes computed ${cur}` +
          (hits
            ? `, and a prefix-cache hit after a preemption is at most ${had - 1} positions, ` +
              `one less than the ${had} tokens the request had (KVCacheManager.get_computed_blocks)`
            : ""),
      };
    }
    if (i > 0 && e.cached < cur && !preempts) {
      return {
        ok: false,
        why: `pass ${i} says ${e.cached} cached tokens, the earlier passes computed ${cur}: it ` +
          "computes positions again (a request preempted and recomputed), and HF's continuous " +
          "batching in Transformers 4.57 never preempts (a request its scheduler cannot give " +
          "cache blocks waits)",
      };
    }
    const restart = i > 0 && e.cached !== cur;
    if (restart) restarts.push({ pass: i, reached: high });
    again.push(e.cached < high);
    const end = e.cached + e.query;
    if ((restart || e.cached < high) && end > had) {
      return {
        ok: false,
        why: `pass ${i} computes positions ${e.cached}..${end - 1}, but the request had ` +
          `${had} tokens then (` +
          (had === o.prompt
            ? "its prompt"
            : `its ${o.prompt}-token prompt and ${
              had - o.prompt
            } generated by the earlier passes`) +
          `): position ${had}'s token did not exist yet`,
      };
    }
    cur = end;
    high = Math.max(high, cur);
  }
  return { ok: true, start: own[0]?.cached ?? 0, again, restarts, end: cur };
}

/**
 * The Transformers releases whose continuous batching never preempts a request: 4.57 (a stack's
 * `transformers` component `4.57.x` or `4.57.<patch>`).
 */
const _TRANSFORMERS_4_57 = /^4\.57(\.|$)/;

/** A sequence's own pass that no modelled stack runs, or that computes nothing of it. */
export interface OwnPassProblem {
  /** The pass. */
  readonly pass: number;
  /**
   * `empty`: no position of the sequence; `speculative`: several generated positions at once;
   * `mixed`: prompt and generated positions together.
   */
  readonly kind: "empty" | "speculative" | "mixed";
  /** Its first position. */
  readonly pos: number;
  /** The positions it computes. */
  readonly n: number;
}

/**
 * The first own pass that computes no position, or (outside recomputations, which may span the
 * prompt's end and several generated positions) several generated positions at once, or prompt
 * and generated positions together; the verifier and the prover tools word it each their way.
 *
 * @param own the sequence's entry in each of its passes, in order
 * @param o `again` from {@link cacheReuse}; `prompt`: the prompt's length
 * @returns the problem, or `null`
 * @example
 * ```ts
 * import { cacheReuse, ownPassProblem } from "./cache_reuse.ts";
 * const own = [{ query: 3, cached: 0 }, { query: 2, cached: 3 }];
 * const r = cacheReuse(own, { prompt: 3, stack: { components: {} } });
 * if (!r.ok || ownPassProblem(own, { again: r.again, prompt: 3 })?.kind !== "speculative") {
 *   throw new Error();
 * }
 * ```
 */
export function ownPassProblem(
  own: readonly PassEntry[],
  o: { readonly again: readonly boolean[]; readonly prompt: number },
): OwnPassProblem | null {
  for (let pass = 0; pass < own.length; pass++) {
    const { query: n, cached: pos } = own[pass]!;
    if (n === 0) return { pass, kind: "empty", pos, n };
    if (o.again[pass]) continue;
    if (pos >= o.prompt && n !== 1) return { pass, kind: "speculative", pos, n };
    if (pos < o.prompt && pos + n > o.prompt) return { pass, kind: "mixed", pos, n };
  }
  return null;
}
