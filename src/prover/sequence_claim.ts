/**
 * A real prover's `sequence` record: one request a continuous-batching engine served, stated by
 * the facts the prover kept (the checkpoint by digests, the serving-history blob of the passes
 * that touched the sequence, its prompt and generated tokens, stack, GPU profile, SM count,
 * kernel, the fingerprint it computed and optionally its layer chain), checked against the
 * assets, the checkpoint and each other before any tensor is computed, then built by the same
 * builder as the simulated prover's records (`sequenceRecord`) and validated by the parser the
 * verifier uses. A record whose facts contradict each other is refused, never written.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import {
  type ClaimRecord,
  furthestRunning,
  type HistoryPass,
  longestNeighbour,
  MAX_CLAIM_TOKENS,
  parseServingHistory,
  sha256Hex,
} from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import type { StackProfile } from "../kernels/mod.ts";
import { fieldsOf, ints, onlyKnown } from "../json_fields.ts";
import {
  type CacheReuse,
  cacheReuse,
  type DecoderConfig,
  isMoeLayer,
  kvBlockFinding,
  lengthFinding,
  ownPassProblem,
  type PassShape,
  type ServedSequence,
  servingRows,
  servingWork,
  tokenBudgetFinding,
} from "../model/mod.ts";
import {
  checkAllReducePath,
  checkServedRequests,
  claimInvalid,
  modelClaimBasis,
  type ModelClaimFacts,
  parsedClaim,
} from "./model_claim_basis.ts";
import { sequenceRecord } from "./sequence_record.ts";

/** What a prover states about one served sequence. */
export interface SequenceFacts extends ModelClaimFacts {
  /**
   * The serving-history blob, committed byte for byte: `bitaudit.serving-history/v1` in its
   * RFC 8785 encoding, the passes that touched the sequence with its entry (`self`) in each.
   */
  readonly history: Uint8Array;
  /** The sequence's tokens as parsed JSON: `{"prompt": [ids...], "generated": [ids...]}`. */
  readonly tokens: unknown;
  /** Fingerprinted positions (default: the last computed position). */
  readonly positions?: readonly number[] | undefined;
  /** The sampler that chose the generated tokens (free text); absent: greedy decoding. */
  readonly sampler?: string | undefined;
}

/** A sequence's tokens. */
interface _Tokens {
  readonly prompt: readonly number[];
  readonly generated: readonly number[];
}

/**
 * Builds and validates a `sequence` record from a prover's facts.
 *
 * @param facts the sequence's facts and the record's log position
 * @param ctx the asset store the stack, profile and catalog are read from
 * @returns the validated record
 * @throws {InputError} `HISTORY_INVALID` for a history blob that is malformed, not canonical, over
 *   a limit or contradicting itself (cached lengths that do not follow the earlier passes, a
 *   recomputation past the tokens the request had, GEMM rows that are not the flattened sum, logits
 *   rows other than the count of a pass's entries that sample, each a chunk that reaches the
 *   tokens its request had) or
 *   its stack's scheduler (on vLLM: a pass past `max_num_seqs` or every token budget, a prompt's
 *   or a recomputation's chunk ended before the pass used a whole budget), `TOKENS_INVALID` for tokens the checkpoint or the history
 *   cannot hold (ids outside the vocabulary, a count the passes do not compute, a pass computing
 *   prompt and generated positions together, more tokens than the stack serves of the
 *   checkpoint: vLLM's max_model_len), `CLAIM_INVALID` for a history that does not fit the
 *   checkpoint (expert rows of a dense model, of another MoE shape or top-k, none in a shared pass
 *   of a MoE model), a stack that does not batch continuously (`flatten`), and the refusals of
 *   `modelClaimBasis` and of the record parser (positions, sampler), positions no pass
 *   computes, `CHECKPOINT_DIGEST`,
 *   `RECIPE_INVALID`
 * @throws {AssetError} `STACK_UNKNOWN`, `PROFILE_UNKNOWN`, `CATALOG_UNKNOWN`, `ASSET_*`
 * @example
 * ```ts ignore
 * const record = await sequenceClaim({ position, checkpoint: { ckpt, digests }, history,
 *   tokens: { prompt: [139, 367, 406], generated: [28, 379] },
 *   stack: "hf-qwen3-continuous-batching-torch2.8", profile: "a100", multiProcessorCount: 108,
 *   kernel: { catalog: "demo-qwen3-tiny-a100" }, fingerprint }, { store });
 * ```
 */
export async function sequenceClaim(
  facts: SequenceFacts,
  ctx: { readonly store: AssetStore },
): Promise<ClaimRecord> {
  const basis = await modelClaimBasis(facts, ctx);
  const batching = basis.stack.operators?.batching ?? "pad-to-longest";
  if (batching !== "flatten") {
    claimInvalid(
      `stack '${basis.stack.id}' batches '${batching}'; a served sequence needs a ` +
        "continuous-batching stack ('flatten')",
    );
  }
  const c = facts.checkpoint.ckpt.config;
  const passes = parseServingHistory(facts.history);
  const tokens = _tokens(facts.tokens, c.vocab);
  const length = lengthFinding(c, {
    stack: basis.stack,
    prompt: tokens.prompt.length,
    generated: tokens.generated.length,
  });
  if (length?.kind === "contradiction") {
    throw new InputError("TOKENS_INVALID", `Cannot append claim: ${length.reason}`);
  }
  // A pass the scheduler would have cut short (a running request's chunk past its limit).
  const running = lengthFinding(c, {
    stack: basis.stack,
    prompt: 0,
    generated: 0,
    running: furthestRunning(passes),
  });
  if (running?.kind === "contradiction") {
    throw new InputError("HISTORY_INVALID", `Cannot append claim: ${running.reason}`);
  }
  // The other requests of the batch were served by the same engine, under the same limit.
  const neighbour = longestNeighbour(passes);
  const beside = neighbour === null
    ? null
    : lengthFinding(c, { stack: basis.stack, prompt: neighbour.keys, generated: 0, held: true });
  if (neighbour !== null && beside?.kind === "contradiction") {
    throw new InputError(
      "HISTORY_INVALID",
      `Cannot append claim: another request of pass ${neighbour.pass}: ${beside.reason}`,
    );
  }
  const widest = Math.max(...passes.map((q) => q.entries.length));
  checkServedRequests(basis, {
    requests: widest,
    code: "HISTORY_INVALID",
    what: `pass ${passes.findIndex((q) => q.entries.length === widest)}`,
  });
  // A prompt's or a recomputation's chunk vLLM's scheduler would have made longer (it ends one
  // early only once a pass has used its whole token budget), or a pass past every budget.
  const budget = tokenBudgetFinding(c, {
    stack: basis.stack,
    gpu: basis.gpu.id,
    prompt: tokens.prompt.length,
    passes,
  });
  if (budget?.kind === "contradiction") {
    throw new InputError("HISTORY_INVALID", `Cannot append claim: ${budget.reason}`);
  }
  const reuse = _checkHistory(passes, {
    tokens,
    config: c,
    stack: basis.stack,
    // vLLM's fused MoE computes every row of a pass at once: no expert rows are needed.
    fusedMoe: basis.stack.operators?.experts === "vllm-fused-moe",
  });
  const computed = reuse.end;
  // A prefix-cache hit, a recomputation's start or a cascade prefix that is not whole KV blocks
  // of the stack's vLLM (the others are taken as run, and the audit says NOT_VERIFIED).
  const blocks = kvBlockFinding(passes, {
    stack: basis.stack,
    prompt: tokens.prompt.length,
    reuse,
  });
  if (blocks?.kind === "contradiction") {
    throw new InputError("HISTORY_INVALID", `Cannot append claim: ${blocks.reason}`);
  }
  if (facts.positions !== undefined && !facts.positions.includes(computed - 1)) {
    // The verifier vouches only for a fingerprint that covers the last computed position.
    claimInvalid(`positions must include ${computed - 1}, the last computed position`);
  }
  checkAllReducePath(basis, passes.map((q) => q.rows));
  const record = parsedClaim(sequenceRecord(basis.envelope, {
    ...basis.record,
    history: { sha256: sha256Hex(facts.history), passes },
    tokens,
    sampler: facts.sampler,
    positions: facts.positions ?? [computed - 1],
  }));
  // Once the parser has held the positions to the tokens: each one computed by some pass.
  _checkPositions(passes, { tokens, reuse, positions: facts.positions ?? [computed - 1] });
  return record;
}

/** Reads `{"prompt": [...], "generated": [...]}` with ids below the vocabulary size. */
function _tokens(json: unknown, vocab: number): _Tokens {
  const fail = (path: string, why: string): never => {
    throw new InputError("TOKENS_INVALID", `Cannot read '${path}': ${why}`);
  };
  const f = fieldsOf(json, "tokens", fail);
  onlyKnown(f, ["prompt", "generated"]);
  const range = { min: 0, max: vocab - 1 };
  const prompt = ints(f, "prompt", range);
  const generated = ints(f, "generated", range);
  if (prompt.length === 0) fail("tokens.prompt", "must hold at least one token");
  if (prompt.length + generated.length > MAX_CLAIM_TOKENS) {
    fail("tokens", `must hold at most ${MAX_CLAIM_TOKENS} tokens`);
  }
  return { prompt, generated };
}

/**
 * Checks the history against the tokens, itself and the checkpoint, as the verifier's replay
 * lays it out; returns the walk of its own entries (`cacheReuse`), whose `end` is the number of
 * positions computed by the end (the last is one less).
 */
function _checkHistory(
  passes: readonly HistoryPass[],
  o: {
    readonly tokens: _Tokens;
    readonly config: DecoderConfig;
    readonly stack: Pick<StackProfile, "components">;
    readonly fusedMoe: boolean;
  },
): Extract<CacheReuse, { ok: true }> {
  if (passes.length === 0) {
    throw new InputError("HISTORY_INVALID", "Cannot append claim: the serving history has no pass");
  }
  const { prompt, generated } = o.tokens;
  const wrongTokens = (why: string): never => {
    throw new InputError("TOKENS_INVALID", `Cannot append claim: ${why}`);
  };
  // Every token but the last generated one is an input of some pass.
  const expected = generated.length === 0 ? prompt.length : prompt.length + generated.length - 1;
  const contradicts = (why: string): never => {
    throw new InputError(
      "HISTORY_INVALID",
      `Cannot append claim: the serving history contradicts itself: ${why}`,
    );
  };
  // As the verifier reads it: a first pass after cached positions is a prefix-cache hit, a pass
  // computing positions again a recomputation after preemption (none on HF's continuous batching
  // in Transformers 4.57, which never preempts: a contradiction there), on vLLM a pass starting past
  // where the one before ended a restart from a prefix-cache hit (all recorded as run; the
  // verifier says NOT_VERIFIED and why); any other pass starts where the one before ended, and
  // none computes a position whose token the request did not have yet.
  const entries = passes.map((p) => p.entries[p.self]!);
  const reuse = cacheReuse(entries, { prompt: prompt.length, stack: o.stack });
  if (!reuse.ok) return contradicts(reuse.why);
  const { end } = reuse;
  const problem = ownPassProblem(entries, { again: reuse.again, prompt: prompt.length });
  if (problem !== null) {
    const { pass: i, pos, n } = problem;
    if (problem.kind === "empty") contradicts(`pass ${i} computes no position of this sequence`);
    wrongTokens(
      problem.kind === "mixed"
        ? `pass ${i} computes positions ${pos}..${pos + n - 1}, across the end of the ` +
          `${prompt.length}-token prompt (prompt and generated positions in one pass)`
        : `pass ${i} computes ${n} generated positions at once (speculative decoding), which no ` +
          "modelled stack runs",
    );
  }
  if (end !== expected) {
    wrongTokens(
      `the history's passes compute ${end} positions of the sequence; ${prompt.length} prompt ` +
        `and ${generated.length} generated tokens need ${expected}`,
    );
  }
  // Laid out as the verifier lays it out, restarts included: each pass's logits rows against the
  // entries of it that sample (a chunk stopping short of the tokens the request had samples none).
  _layOut(
    () => servingWork(_work(passes, { tokens: o.tokens, reuse }), { flatten: true }),
    contradicts,
  );
  _checkExperts(passes, o.config, o.fusedMoe);
  return reuse;
}

/**
 * The fingerprinted positions against the positions the sequence's own passes compute, as the
 * verifier checks them: a position before a prefix-cache hit, or skipped by a restart from one,
 * is computed in no pass of the sequence.
 */
function _checkPositions(
  passes: readonly HistoryPass[],
  o: {
    readonly tokens: _Tokens;
    readonly reuse: Extract<CacheReuse, { ok: true }>;
    readonly positions: readonly number[];
  },
): void {
  _layOut(
    () => servingWork(_work(passes, o), { flatten: true, positions: [o.positions] }),
    (why) =>
      claimInvalid(`the fingerprinted positions must be computed by the history's passes: ${why}`),
  );
}

/** The history's passes and the sequence, as the verifier's replay takes them. */
function _work(
  passes: readonly HistoryPass[],
  o: { readonly tokens: _Tokens; readonly reuse: Extract<CacheReuse, { ok: true }> },
): { passes: PassShape[]; sequences: ServedSequence[] } {
  const { prompt, generated } = o.tokens;
  const { start, restarts } = o.reuse;
  return {
    passes: passes.map(({ expertRows: _, ...shape }) => shape),
    sequences: [{
      tokens: [...prompt, ...generated],
      prompt: prompt.length,
      steps: passes.map((p, pass) => ({ pass, entry: p.self })),
      ...(start === 0 ? {} : { start }),
      ...(restarts.length === 0 ? {} : { recomputes: true }),
    }],
  };
}

/**
 * Expert rows as the checkpoint has them: none for a dense model, layers x experts for MoE where
 * given; required of a pass shared with other sequences unless the experts run fused.
 */
function _checkExperts(
  passes: readonly HistoryPass[],
  c: DecoderConfig,
  fusedMoe: boolean,
): void {
  const moe = c.moe;
  const what = moe === undefined
    ? `dense checkpoint (${c.modelType})`
    : `checkpoint (${c.modelType}, ${moe.experts} experts, top-${moe.topK})`;
  const misfit = (why: string): never =>
    claimInvalid(`the serving history does not fit the ${what}: ${why}`);
  const moeLayers = Array.from({ length: c.layers }, (_, l) => l).filter((l) => isMoeLayer(c, l));
  _layOut(
    () =>
      servingRows(passes, [], {
        flatten: true,
        ...(moe === undefined
          ? {}
          : { experts: moe.experts, moeLayers: moeLayers.length, topK: moe.topK }),
      }),
    misfit,
  );
  if (moe === undefined || fusedMoe) return;
  // Other entries' tokens reach the sequence's experts only through the recorded counts.
  const i = passes.findIndex((p) => p.expertRows === undefined && p.entries.length > 1);
  if (i >= 0) misfit(`pass ${i} holds other sequences and records no expert rows`);
}

/**
 * Runs a layout check, handing its contradiction (without "Cannot lay out ...: " or "Cannot
 * replay: ") on.
 */
function _layOut(check: () => unknown, refuse: (why: string) => never): void {
  try {
    check();
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    refuse(e.message.replace(/^Cannot (lay out [^:]*|replay): /, ""));
  }
}
