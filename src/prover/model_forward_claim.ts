/**
 * A real prover's `model_forward` record: the facts of one forward pass it ran (checkpoint by
 * digests, token batch, stack, GPU profile, SM count, kernel, the fingerprint it computed and
 * optionally its layer chain), checked against the assets and the checkpoint, then built by the
 * same builder as the simulated prover's records (`forwardRecord`) and validated by the parser
 * the verifier uses. A record whose facts contradict each other is refused, never written.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { ClaimRecord } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import type { StackProfile } from "../kernels/mod.ts";
import {
  batchPaddingMismatch,
  type DecoderConfig,
  lengthFinding,
  parseTokenBatch,
  type TokenBatch,
  tokenBudgetFinding,
} from "../model/mod.ts";
import { forwardRecord } from "./forward_record.ts";
import {
  checkAllReducePath,
  checkServedRequests,
  claimInvalid,
  modelClaimBasis,
  type ModelClaimFacts,
  parsedClaim,
} from "./model_claim_basis.ts";

/** What a prover states about one forward pass. */
export interface ModelForwardFacts extends ModelClaimFacts {
  /** The batch as parsed JSON: `{"sequences": [[ids...], ...], "padTokenId"?: n}`. */
  readonly tokens: unknown;
  /** The fingerprinted `[sequence, token]` rows (default: each sequence's last token). */
  readonly positions?: readonly (readonly [number, number])[] | undefined;
}

/**
 * Builds and validates a `model_forward` record from a prover's facts.
 *
 * @param facts the pass's facts and the record's log position
 * @param ctx the asset store the stack, profile and catalog are read from
 * @returns the validated record
 * @throws {InputError} `CLAIM_INVALID` for facts that contradict each other or the record format
 *   (a fingerprint that is not 64 lowercase hex digits, a kernel of the other source than the
 *   stack's, a catalog of another GPU, a stack without operators, positions or a layer chain the
 *   checkpoint cannot have, an SM or GPU count out of range), `TOKENS_INVALID` for a batch the
 *   checkpoint cannot hold (ids outside the vocabulary, a padded batch without `padTokenId`, a
 *   sequence longer than the stack serves of the checkpoint: vLLM's max_model_len, a batch past
 *   every token budget of vLLM's scheduler),
 *   `CHECKPOINT_DIGEST` for digests that do not name the checkpoint's weight files,
 *   `RECIPE_INVALID`
 * @throws {AssetError} `STACK_UNKNOWN`, `PROFILE_UNKNOWN`, `CATALOG_UNKNOWN`, `ASSET_*`
 * @example
 * ```ts ignore
 * const record = await modelForwardClaim({ position, checkpoint: { ckpt, digests }, tokens,
 *   stack: "hf-qwen3-flash-attn-torch2.8", profile: "a100", multiProcessorCount: 108,
 *   kernel: { catalog: "demo-qwen3-tiny-a100" }, fingerprint }, { store });
 * ```
 */
export async function modelForwardClaim(
  facts: ModelForwardFacts,
  ctx: { readonly store: AssetStore },
): Promise<ClaimRecord> {
  const basis = await modelClaimBasis(facts, ctx);
  const c = facts.checkpoint.ckpt.config;
  const batch = parseTokenBatch(facts.tokens, c.vocab);
  _checkPadding(batch, basis.stack);
  _checkLength(batch, { stack: basis.stack, config: c });
  checkServedRequests(basis, {
    requests: batch.sequences.length,
    code: "TOKENS_INVALID",
    what: "the batch",
  });
  _checkBudget(batch, { ...basis, config: c });
  checkAllReducePath(basis, [batch.sequences.reduce((n, q) => n + q.length, 0)]);
  return parsedClaim(forwardRecord(basis.envelope, {
    ...basis.record,
    sequences: batch.sequences,
    padTokenId: batch.padTokenId,
    positions: _positions(facts.positions, batch),
  }));
}

/** The batch must fit how the stack batches (`batchPaddingMismatch`). */
function _checkPadding(batch: TokenBatch, stack: StackProfile): void {
  const why = batchPaddingMismatch(batch, stack.operators?.batching);
  if (why !== null) {
    throw new InputError("TOKENS_INVALID", `Cannot append claim: stack '${stack.id}' ${why}`);
  }
}

/** The batch is one pass: on vLLM, at most the scheduler's token budget (`tokenBudgetFinding`). */
function _checkBudget(
  batch: TokenBatch,
  o: {
    readonly stack: StackProfile;
    readonly gpu: { readonly id: string };
    readonly config: DecoderConfig;
  },
): void {
  const why = tokenBudgetFinding(o.config, {
    stack: o.stack,
    gpu: o.gpu.id,
    prompt: batch.sequences[0]!.length,
    passes: [{ entries: batch.sequences.map((s) => ({ query: s.length, cached: 0 })), self: 0 }],
  });
  if (why?.kind === "contradiction") {
    throw new InputError("TOKENS_INVALID", `Cannot append claim: ${why.reason}`);
  }
}

/** Each sequence must fit the longest the stack serves of the checkpoint (`lengthFinding`). */
function _checkLength(
  batch: TokenBatch,
  o: { readonly stack: StackProfile; readonly config: DecoderConfig },
): void {
  const prompt = Math.max(...batch.sequences.map((s) => s.length));
  const why = lengthFinding(o.config, { stack: o.stack, prompt, generated: 0 });
  if (why?.kind === "contradiction") {
    throw new InputError("TOKENS_INVALID", `Cannot append claim: ${why.reason}`);
  }
}

function _positions(
  given: ModelForwardFacts["positions"],
  batch: TokenBatch,
): readonly (readonly [number, number])[] {
  const seqs = batch.sequences;
  if (given === undefined) return seqs.map((s, i) => [i, s.length - 1] as const);
  if (given.length === 0) claimInvalid("no fingerprinted positions");
  for (const [s, p] of given) {
    const len = seqs[s]?.length;
    if (
      !Number.isSafeInteger(s) || len === undefined || !Number.isSafeInteger(p) || p < 0 || p >= len
    ) {
      claimInvalid(
        `position [${s}, ${p}] is outside the batch (${
          len === undefined
            ? `${seqs.length} sequence(s)`
            : `sequence ${s} has ${len} token${len === 1 ? "" : "s"}`
        })`,
      );
    }
  }
  // The verifier vouches only for a fingerprint that covers each sequence's last token.
  seqs.forEach((q, i) => {
    if (!given.some(([s, p]) => s === i && p === q.length - 1)) {
      claimInvalid(
        `positions must include [${i}, ${q.length - 1}], the last token of sequence ${i}`,
      );
    }
  });
  return given;
}
