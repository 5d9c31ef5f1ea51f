/**
 * A served sequence's reused keys and values held to its stack's KV cache block
 * (`vllmKvBlock`): vLLM 0.11 reuses cached positions only in whole blocks. A first pass after a
 * prefix-cache hit starts at a block multiple of at most `num_tokens - 1` positions
 * (`KVCacheManager.get_computed_blocks`), a preempted request restarts from 0 and then from such
 * a hit (`Scheduler.schedule()`), and a cascade prefix is rounded down to a block multiple
 * (`GPUModelRunner._compute_cascade_attn_prefix_len`). The verifier FAILs a history that breaks
 * it, the prover tools refuse it; one that keeps it is still not replayed (NOT_VERIFIED).
 *
 * @module
 */
import { isVllmStack, type StackProfile, vllmKvBlock } from "../../kernels/mod.ts";
import { type CacheReuse, cacheReuse } from "./cache_reuse.ts";
import { requestTokens } from "./request_tokens.ts";
import type { PassEntry } from "./serving_shape.ts";

/** What a history's reused positions say of it on a stack. */
export interface KvBlockFinding {
  /**
   * `contradiction`: no run of the stack reuses these positions; `unmodelled`: the block size
   * they are held to is not derived here.
   */
  readonly kind: "contradiction" | "unmodelled";
  /** One line. */
  readonly reason: string;
  /** The pass whose reused positions it is about (unmodelled: the first reuse). */
  readonly pass: number;
  /**
   * What reused them: `hit`, the first pass's prefix-cache hit; `restart`, a recomputation's
   * start; `cascade`, the pass's cascade prefix.
   */
  readonly what: "hit" | "restart" | "cascade";
}

/** A place where the sequence reads positions it did not compute in the pass before. */
interface _Reuse {
  readonly pass: number;
  /** The positions reused (a hit, a restart, a cascade prefix). */
  readonly at: number;
  /** The request's tokens when vLLM looked up the hit (`num_tokens`), for hits and restarts. */
  readonly tokens: number | null;
  /** For a restart past every position the sequence computed: those positions (exclusive). */
  readonly past?: number;
  readonly what: KvBlockFinding["what"];
}

/**
 * Holds a served sequence's prefix-cache hit, the starts of its recomputations and its passes'
 * cascade prefixes to its stack's KV cache block. A hit or a restart that is not whole blocks,
 * or past `floor((num_tokens - 1) / block) * block` (the request's tokens when it was scheduled:
 * the prompt for its first pass; after a preemption, every token it had), and a cascade prefix
 * that is not whole blocks, are contradictions; a stack whose block size is not derived leaves
 * them unmodelled.
 *
 * @param passes each pass's entries, the sequence's own (`self`) and its cascade prefix
 * @param o the stack and the sequence's prompt length; `reuse`: `cacheReuse` of the passes' own
 *   entries, where the caller has walked them already (walked here otherwise)
 * @returns the first finding, or null when every reused position fits (or nothing is reused, or
 *   the stack is not vLLM's, or the passes contradict each other: others report that)
 * @example
 * ```ts
 * import { kvBlockFinding } from "./kv_block_finding.ts";
 * const one = (query: number, cached: number) => ({ entries: [{ query, cached }], self: 0 });
 * const o = { stack: { components: { vllm: "0.11.0" } }, prompt: 20 };
 * if (kvBlockFinding([one(3, 17), one(1, 20)], o)?.kind !== "contradiction") throw new Error();
 * if (kvBlockFinding([one(4, 16), one(1, 20)], o) !== null) throw new Error();
 * ```
 */
export function kvBlockFinding(
  passes: readonly {
    readonly entries: readonly PassEntry[];
    readonly self: number;
    readonly cascadePrefix?: number;
  }[],
  o: {
    readonly stack: Pick<StackProfile, "components">;
    readonly prompt: number;
    readonly reuse?: CacheReuse;
  },
): KvBlockFinding | null {
  if (!isVllmStack(o.stack)) return null;
  const entries = passes.map((q) => q.entries[q.self]!);
  const reuse = o.reuse ?? cacheReuse(entries, o);
  if (!reuse.ok) return null;
  const had = requestTokens(entries, o.prompt);
  const reused: _Reuse[] = [
    ...(reuse.start === 0
      ? []
      : [{ pass: 0, at: reuse.start, tokens: o.prompt, what: "hit" as const }]),
    // A token follows each position from the prompt's last one on: a request preempted there
    // had one more token than positions reached.
    ...reuse.restarts.map(({ pass, reached }) => ({
      pass,
      at: entries[pass]!.cached,
      tokens: had[pass]!,
      ...(reuse.again[pass] ? {} : { past: reached }),
      what: "restart" as const,
    })),
    ...passes.flatMap((q, pass) =>
      q.cascadePrefix === undefined
        ? []
        : [{ pass, at: q.cascadePrefix, tokens: null, what: "cascade" as const }]
    ),
  ];
  if (reused.length === 0) return null;
  const block = vllmKvBlock(o.stack)!;
  if (!block.ok) {
    const r = reused[0]!;
    return {
      kind: "unmodelled",
      pass: r.pass,
      what: r.what,
      reason: `whether pass ${r.pass}'s ${r.at} reused positions are whole KV blocks is not ` +
        `checked: ${block.reason}`,
    };
  }
  const b = block.tokens;
  const size = `block size ${b}: ${block.rule}`;
  for (const r of reused) {
    const most = r.tokens === null ? r.at : Math.floor((r.tokens - 1) / b) * b;
    if (r.at % b === 0 && r.at <= most) continue;
    if (r.what === "cascade") {
      return {
        kind: "contradiction",
        pass: r.pass,
        what: r.what,
        reason: `pass ${r.pass} claims vLLM's cascade attention over a ${r.at}-token prefix: ` +
          `vLLM 0.11 rounds the common prefix down to whole ${b}-position KV blocks ` +
          `(GPUModelRunner._compute_cascade_attn_prefix_len; ${size})`,
      };
    }
    const head = r.what === "hit"
      ? `pass 0 starts after ${r.at} cached positions (a prefix-cache hit)`
      : r.past === undefined
      ? `pass ${r.pass} recomputes from position ${r.at} (a request preempted and recomputed, ` +
        "which vLLM restarts from 0 and then from its prefix-cache hit)"
      : `pass ${r.pass} restarts from position ${r.at}, past the ${r.past} its earlier passes ` +
        "computed (a request preempted and restarted from a prefix-cache hit)";
    return {
      kind: "contradiction",
      pass: r.pass,
      what: r.what,
      reason: `${head}: vLLM 0.11 takes a prefix-cache hit in whole ${b}-position KV blocks, ` +
        `within num_tokens - 1 positions: at most ${most} of a request of ${r.tokens} tokens ` +
        `(KVCacheManager.get_computed_blocks; ${size})`,
    };
  }
  return null;
}
