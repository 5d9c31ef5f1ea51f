/**
 * How one sequence's own passes use its KV cache, read from their cached lengths: whether its
 * first pass starts after cached positions (a prefix-cache hit: another request's passes computed
 * them) and which passes compute positions again (a request preempted and recomputed, as vLLM's
 * V1 engine does, from position 0 or from its prefix-cache hit). The replay models neither: each
 * position computed once, from position 0. A pass that says more positions are cached than the
 * pass before it reached contradicts the history.
 *
 * @module
 */
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
     * Every pass that starts below the end of the pass before it (where a recomputation
     * starts), with the furthest position the earlier passes reached (exclusive); the first is
     * the first pass that computes positions an earlier pass computed.
     */
    readonly restarts: readonly { readonly pass: number; readonly reached: number }[];
    /** Positions the last pass ends at (the last computed position is one less). */
    readonly end: number;
  }
  | { readonly ok: false; readonly why: string };

/**
 * Walks a sequence's own entries in pass order: each starts where the one before ended, or
 * below it (a recomputation), never above it.
 *
 * @param own the sequence's entry in each of its passes, in order (at least one)
 * @returns the walk, or why the entries contradict each other
 * @example
 * ```ts
 * import { cacheReuse } from "./cache_reuse.ts";
 * const r = cacheReuse([{ query: 3, cached: 0 }, { query: 1, cached: 3 }, { query: 5, cached: 0 }]);
 * if (!r.ok || r.restarts[0]?.pass !== 2 || r.end !== 5 || r.restarts[0]?.reached !== 4) {
 *   throw new Error();
 * }
 * ```
 */
export function cacheReuse(own: readonly PassEntry[]): CacheReuse {
  let cur = own[0]?.cached ?? 0;
  let high = cur;
  const again: boolean[] = [];
  const restarts: { pass: number; reached: number }[] = [];
  for (let i = 0; i < own.length; i++) {
    const e = own[i]!;
    if (i > 0 && e.cached > cur) {
      return {
        ok: false,
        why: `pass ${i} says ${e.cached} cached tokens, the earlier passes computed ${cur}`,
      };
    }
    if (i > 0 && e.cached < cur) restarts.push({ pass: i, reached: high });
    again.push(e.cached < high);
    cur = e.cached + e.query;
    high = Math.max(high, cur);
  }
  return { ok: true, start: own[0]?.cached ?? 0, again, restarts, end: cur };
}

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
 * const r = cacheReuse(own);
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
