/**
 * A sequence record held to its serving history before its checkpoint is opened: the history
 * fetched by digest, its pass count, the record's batch size, the requests a pass runs, cascade
 * claims, the walk of the sequence's own entries (`cacheReuse`, `ownPassProblem`), the passes laid
 * out against the sequence (`servingWork`) and, on vLLM, the reuse its KV blocks allow. None of
 * these reads the checkpoint, so a checkpoint not modelled (NOT_VERIFIED) never hides what they
 * FAIL, as a forward record's batch is checked before its checkpoint.
 *
 * @module
 */
import { BLOB_MAX_BYTES, type BlobStore } from "../assets/mod.ts";
import {
  type ClaimPredicate,
  type HistoryPass,
  parseServingHistory,
  type SequenceWorkload,
} from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import { type CacheReuse, cacheReuse, ownPassProblem, servingWork } from "../model/mod.ts";
import { InputError } from "../errors.ts";
import { _cascadeClaim } from "./_cascade_claim.ts";
import { _checkServedRequests, _kvBlockStop } from "./_model_support.ts";
import { _committedBlob, _refusable, _Stop } from "./_stop.ts";

/** What the history checks hand the replay. */
export interface _SequenceHistory {
  /** The history's passes. */
  readonly passes: readonly HistoryPass[];
  /** The walk of the sequence's own entries. */
  readonly reuse: Extract<CacheReuse, { ok: true }>;
  /** Why the passes' cascade attention is not modelled (`_cascadeClaim`), or null. */
  readonly cascade: string | null;
  /** Whether a pass computes positions again (a request preempted and recomputed). */
  readonly recomputes: boolean;
  /**
   * Why the reuse of keys and values the passes claim is not replayed, or null: the record's last
   * refusal, which the caller adds to its refusals once every other check has run.
   */
  readonly refusedReuse: string | null;
}

/**
 * Checks a sequence record against its serving history.
 *
 * @param blobs the blob store
 * @param o the record's predicate and workload, its stack and GPU profile, and the reasons not
 *   modelled said so far (`_refusable`; the requests a pass runs wait there)
 * @returns the passes, the walk of the sequence's entries and what of them is not modelled
 * @throws {_Stop} FAIL (the history contradicting the record, itself or the stack, or a pass
 *   count, batch size or reuse the record contradicts), FAIL with `obligation:
 *   "committed-input"` (the history missing, mismatching or unreadable)
 */
export async function _sequenceHistory(
  blobs: BlobStore,
  o: {
    readonly predicate: ClaimPredicate;
    readonly workload: SequenceWorkload;
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
    readonly refusals: string[];
  },
): Promise<_SequenceHistory> {
  const { predicate: p, workload: w } = o;
  const passes = await _history(blobs, w);
  const widest = Math.max(...passes.map((q) => q.entries.length));
  if (p.batch.size !== widest) {
    throw new _Stop(
      "FAIL",
      `record contradicts its history: batch size ${p.batch.size}, its widest pass has ${widest} entries`,
    );
  }
  _refusable(o.refusals, () =>
    _checkServedRequests(p, {
      stack: o.stack,
      profile: o.profile,
      requests: widest,
      pass: passes.findIndex((q) => q.entries.length === widest),
    }));
  // Checked here, NOT_VERIFIED only once the replay has checked the passes (a named unmodelled
  // path never hides a FAIL).
  const cascade = _cascadeClaim(passes, o.stack);
  const { prompt, generated } = w.tokens;
  const own = passes.map((q) => q.entries[q.self]!);
  const expected = generated.length === 0 ? prompt.length : prompt.length + generated.length - 1;
  const reuse = cacheReuse(own, { prompt: prompt.length, stack: o.stack });
  if (!reuse.ok) throw new _Stop("FAIL", `record contradicts its history: ${reuse.why}`);
  if (reuse.end !== expected) {
    throw new _Stop(
      "FAIL",
      `record contradicts its history: the passes compute ${reuse.end} positions` +
        (reuse.start > 0 ? ` (${reuse.start} of them cached before its first pass)` : "") +
        `, the prompt and generated tokens need ${expected}`,
    );
  }
  // Several generated positions in one pass is speculative decoding, which no stack profile
  // runs: HF's generate_batch has none, and the vLLM stacks pin their flags, none with a
  // speculative config. A stack that ever pins one makes this NOT_VERIFIED for that stack,
  // after every contradiction check. (A recomputation after preemption may span the prompt's end
  // and several generated positions; such a record is NOT_VERIFIED by the replay.)
  const problem = ownPassProblem(own, { again: reuse.again, prompt: prompt.length });
  if (problem !== null) {
    const { pass: i, n } = problem;
    throw new _Stop(
      "FAIL",
      problem.kind === "empty"
        ? `record contradicts its history: pass ${i} computes no position of this sequence`
        : problem.kind === "speculative"
        ? `record contradicts its stack: pass ${i} computes ${n} generated positions at once ` +
          `(speculative decoding), which stack '${o.stack.id}' never runs`
        : `record contradicts itself: pass ${i} computes prompt and generated positions together`,
    );
  }
  const restart = reuse.restarts[0]?.pass;
  _layOut(passes, { ...o, start: reuse.start, recomputes: restart !== undefined });
  // A request preempted and recomputed: not modelled, but the passes are still checked against
  // the record and each other (above, and the replay's own checks) before it says so, so that
  // one recomputed pass cannot turn a contradiction into NOT_VERIFIED.
  const recomputed = restart === undefined ? null : (() => {
    const e = own[restart]!;
    const { reached } = reuse.restarts[0]!;
    // On vLLM a restart may start past every position the sequence computed: a hit of blocks
    // other requests computed.
    return reuse.again[restart]
      ? `pass ${restart} computes positions ${e.cached}..${e.cached + e.query - 1} ` +
        "again (a request preempted and recomputed); the replay computes each position once, " +
        "so the keys and values the later passes read are not modelled"
      : `pass ${restart} starts after ${e.cached} cached positions, past the ${reached} its ` +
        "earlier passes computed (a request preempted and restarted from a prefix-cache hit): " +
        "their keys and values were computed in another request's passes, which the replay " +
        "does not model";
  })();
  const prefixHit = reuse.start === 0 ? null : `pass 0 starts after ${reuse.start} cached ` +
    "positions (a prefix-cache hit): their keys and values were computed in another " +
    "request's passes, which the replay does not model";
  // The reuse the replay does not model, named in the reason: the first recomputation, else the
  // first cascade pass, else the prefix-cache hit.
  const named = restart !== undefined
    ? { pass: restart, what: "restart" as const, said: recomputed! }
    : cascade !== null
    ? {
      pass: passes.findIndex((q) => q.cascadePrefix !== undefined),
      what: "cascade" as const,
      said: cascade,
    }
    : prefixHit === null
    ? null
    : { pass: 0, what: "hit" as const, said: prefixHit };
  // On vLLM the reused positions are whole KV blocks: reuse the stack never gives FAILs, once the
  // passes are laid out against the record (a NOT_VERIFIED block finding is said with the named
  // reuse, after the replay's checks).
  const blocks = _kvBlockStop(p, { ...o, prompt: prompt.length, passes, reuse, named });
  if (blocks?.status === "FAIL") throw blocks;
  return {
    passes,
    reuse,
    cascade,
    recomputes: recomputed !== null,
    refusedReuse: blocks?.why ?? named?.said ?? null,
  };
}

/**
 * The passes laid out against the sequence, as the replay lays them out (`servingWork`): the
 * GEMM and logits rows each pass records and the fingerprinted positions. Expert rows are the
 * checkpoint's to check (its MoE layers and experts): the replay does, once it is open.
 */
function _layOut(
  passes: readonly HistoryPass[],
  o: {
    readonly workload: SequenceWorkload;
    readonly stack: StackProfile;
    readonly start: number;
    readonly recomputes: boolean;
  },
): void {
  const { prompt, generated } = o.workload.tokens;
  try {
    servingWork({
      passes: passes.map(({ expertRows: _, ...q }) => q),
      sequences: [{
        tokens: [...prompt, ...generated],
        prompt: prompt.length,
        steps: passes.map((q, pass) => ({ pass, entry: q.self })),
        ...(o.start === 0 ? {} : { start: o.start }),
        ...(o.recomputes ? { recomputes: true } : {}),
      }],
    }, {
      flatten: o.stack.operators?.batching === "flatten",
      positions: [o.workload.positions],
    });
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new _Stop("FAIL", `record contradicts its history: ${e.message}`);
  }
}

async function _history(blobs: BlobStore, w: SequenceWorkload): Promise<HistoryPass[]> {
  const digest = w.history.sha256;
  const bytes = await _committedBlob(
    () => blobs.get(digest, { maxBytes: BLOB_MAX_BYTES.history }),
    {
      digest,
      what: "serving history",
      tooLarge: "is over the blob limit",
    },
  );
  if (bytes === null) {
    throw new _Stop(
      "FAIL",
      `the committed serving history ${w.history.sha256.slice(0, 16)}… was not produced`,
      "committed-input",
    );
  }
  let passes: HistoryPass[];
  try {
    passes = parseServingHistory(bytes);
  } catch (e) {
    if (e instanceof InputError && e.code === "HISTORY_INVALID") {
      throw new _Stop("FAIL", `record's history is malformed: ${e.message}`);
    }
    throw e;
  }
  if (passes.length !== w.history.passes) {
    throw new _Stop(
      "FAIL",
      `record says ${w.history.passes} passes, its history holds ${passes.length}`,
    );
  }
  return passes;
}
