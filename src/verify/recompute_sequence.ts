/**
 * The sequence branch of the per-record pipeline: fetch the serving history by digest and check
 * it against the record (`_sequenceHistory`: token counts, pass count, batch size, the passes'
 * layout and reuse) before the checkpoint is fetched by digest (a checkpoint not modelled never
 * hides what they FAIL, nor does a kernel not modelled: `_layerRuntime`'s refusal waits for the
 * record's contradictions, and nothing is replayed), replay the sequence pass by pass with only
 * the shape facts of its neighbours, and hand back the fingerprinted rows, the first diverging
 * layer (with a claimed chain) and the check of the generated tokens (greedy: each must be the
 * argmax of the recomputed logits at its step).
 *
 * @module
 */
import type { AssetStore, BlobStore } from "../assets/mod.ts";
import { quoteShort } from "../escape_text.ts";
import {
  type ClaimPredicate,
  furthestRunning,
  type HistoryPass,
  longestNeighbour,
  type SequenceWorkload,
} from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { Fa2Forward, KWalker, StackProfile } from "../kernels/mod.ts";
import {
  checkTokenIds,
  type DecoderConfig,
  runServingForward,
  type SfuUse,
  type TensorParallel,
} from "../model/mod.ts";
import { _claimCheckpoint } from "./_claim_checkpoint.ts";
import { _layerRuntime } from "./_layer_runtime.ts";
import { _checkAllReducePath, _checkedParallel, _checkNcclRelease } from "./_claimed_parallel.ts";
import { _checkClaimedSmCount } from "./_claimed_sm_count.ts";
import { _checkServingTensorParallel } from "./_serving_parallel.ts";
import { _decoderEvidence } from "./_record_evidence.ts";
import type { ComponentEvidence } from "../hardware/mod.ts";
import { _checkModelSupport, _checkServedLength, _servedBudgetGap } from "./_model_support.ts";
import { _checkFinalNorm } from "./_output_description.ts";
import { _sequenceHistory } from "./_sequence_history.ts";
import { _checkCost, _checkSize, _contradiction, _refusable, _REFUSED, _Stop } from "./_stop.ts";
import { replayProducts } from "./decoder_record_products.ts";
import { _checkLayerChain, _layerDivergence } from "./recompute_model_forward.ts";
import type { LayerDivergence } from "./record_result.ts";

/** What the sequence branch needs. */
export interface SequenceRecomputeInput {
  readonly store: AssetStore;
  readonly blobs: BlobStore;
  readonly walker: KWalker;
  /** Runs the attention core (default on the calling thread). */
  readonly attention?: Fa2Forward | undefined;
  readonly predicate: ClaimPredicate;
  readonly workload: SequenceWorkload;
  readonly profile: GpuProfile;
  readonly stack: StackProfile;
  /** Records a passed pipeline step. */
  readonly step: (name: string, detail: string) => void;
  /** The audit's budget a record (`VerifyContext.maxRecordProducts`). */
  readonly maxRecordProducts?: number | undefined;
}

/** The check of the generated tokens. */
export type TokenCheck =
  | { readonly status: "match"; readonly detail: string }
  | { readonly status: "mismatch"; readonly detail: string }
  | { readonly status: "not-verifiable"; readonly detail: string };

/**
 * Recomputes a sequence record.
 *
 * @param input assets, blobs, walker, the record's predicate and workload, profile, stack
 * @returns the rows at the claimed positions (BF16, in claim order), SFU use, the first diverging
 *   (layer, stage) of a claimed chain, the pass where it diverges, the token check, and why a
 *   match cannot vouch for the record (`matchGap`: links the record leaves unstated decide the
 *   named all-reduce's path; on vLLM, a pass the token budget check cannot vouch for), or null
 * @throws {_Stop} NOT_VERIFIED (unmodelled configuration), FAIL (a record contradicting itself,
 *   its history or its checkpoint) or FAIL with `obligation: "committed-input"` (a committed blob
 *   missing, mismatching or unreadable)
 */
export async function _recomputeSequence(
  input: SequenceRecomputeInput,
): Promise<{
  out: Uint16Array;
  sfu: readonly SfuUse[];
  divergence: LayerDivergence | null;
  tokens: TokenCheck;
  evidence: ComponentEvidence[];
  matchGap: string | null;
}> {
  const { predicate: p, workload: w, step } = input;
  // What is not modelled is said only after the record's contradictions (a named unmodelled
  // configuration, kernel or limit never hides a FAIL): the first such reason waits in
  // `refusals`, and the replay, given it, checks the passes and computes nothing.
  const refusals: string[] = [];
  const { runtime, evidence } = await _layerRuntime({ ...input, kernel: w.kernel, refusals });
  const parallel = _checkedParallel(p, { stack: input.stack, gpu: input.profile, refusals });
  _refusable(refusals, () => _checkClaimedSmCount(input.profile, w.attention.multiProcessorCount));
  _refusable(refusals, () => _checkServingTensorParallel(input.stack, p.parallelism.tp));
  // The history needs no checkpoint: its contradictions come before the checkpoint's support.
  const { passes, reuse, cascade, recomputes, refusedReuse } = await _sequenceHistory(
    input.blobs,
    { ...input, refusals },
  );
  _checkFinalNorm(p, w, "hidden"); // its width once the checkpoint's config is read
  const { prompt, generated } = w.tokens;
  const tokens = [...prompt, ...generated];
  // A config not modelled stops the checks once the record is held to what its modelled fields
  // fix; a reason said before it still comes first.
  const claim = await _claimCheckpoint(input.blobs, {
    ...input,
    model: w.model,
    refusals,
    contradictions: (c) => _sequenceContradictions(c, { input, parallel, refusals, passes }),
  });
  using _files = { [Symbol.dispose]: () => claim.close() }; // the opened weight files
  const { ckpt, releaseTensor } = claim;
  const c = ckpt.config;
  _refusable(refusals, () =>
    _checkModelSupport(c, {
      profile: input.profile,
      stack: input.stack,
      keys: w.tokens.prompt.length + w.tokens.generated.length,
    }));
  _refusable(
    refusals,
    () => _checkNcclRelease(p, _allReduceFacts(input, { parallel, passes, hidden: c.hidden })),
  );
  const own = passes.map((q) => q.entries[q.self]!);
  const computed = own.reduce((s, e) => s + e.query, 0);
  // Bound every activation before anything is allocated: the sequence's rows times the widest
  // row of any stage, one chunk of logits rows and the fingerprinted rows (none with cascade:
  // nothing is computed). The replay checks the passes against the sequence before it says so.
  const moe = c.moe;
  if (cascade === null) {
    _refusable(refusals, () => {
      _checkSize(
        [
          computed,
          Math.max(
            c.hidden,
            c.intermediate,
            c.heads * c.headDim,
            moe === undefined ? 0 : Math.max(moe.experts, moe.topK * moe.intermediate),
          ),
        ],
        "activation",
      );
      _checkSize([512, c.vocab], "logits");
      _checkSize([w.positions.length, c.hidden], "fingerprint");
    });
  }
  step(
    "tensors",
    `checkpoint ${w.model.checkpointSha256.slice(0, 16)}… (${c.modelType}, ${c.layers} layers); ` +
      `history ${w.history.sha256.slice(0, 16)}… (${passes.length} passes) by digest`,
  );
  if (cascade === null) {
    // The replay computes the sequence's own rows only (one logits row a pass at most); the
    // other entries are shapes that pick its launches, so they cost nothing to bound.
    _refusable(refusals, () =>
      _checkCost(replayProducts(c, passes), {
        what: `the replay of ${passes.length} passes through ${c.layers} layers`,
        budget: input.maxRecordProducts,
      }));
  }
  // The reuse the replay does not model is the last reason, said only where no other is.
  if (refusedReuse !== null) refusals.push(refusedReuse);
  let r;
  try {
    r = await runServingForward(ckpt, {
      passes,
      sequences: [{
        tokens,
        prompt: prompt.length,
        steps: passes.map((q, pass) => ({ pass, entry: q.self })),
        ...(reuse.start === 0 ? {} : { start: reuse.start }),
        ...(recomputes ? { recomputes: true } : {}),
      }],
    }, {
      runtime,
      multiProcessorCount: w.attention.multiProcessorCount,
      releaseTensor,
      positions: [w.positions],
      logits: w.decoding === "greedy",
      parallel: parallel === _REFUSED ? undefined : parallel,
      ...(refusals.length === 0 ? {} : { refused: refusals[0]! }),
    });
  } catch (e) {
    throw _contradiction(e, "its history or checkpoint");
  }
  if (!r.supported) throw new _Stop("NOT_VERIFIED", r.reason);
  const res = r.result.sequences[0]!;
  const decodeSteps = passes.filter((q) => q.entries[q.self]!.query === 1).length;
  step(
    "support",
    `${passes.length} passes (${decodeSteps} single-token), up to ${r.result.maxSplits} KV ` +
      `split(s); SFU ${r.result.sfu.map((u) => `${u.fn} ${u.status}`).join(", ")}`,
  );
  // Passes beside other sequences, or after cached keys (decode steps, later chunks), are none
  // the peer ran.
  const scope = {
    oneSequence: passes.every((q) => q.entries.length === 1),
    fromStart: passes.every((q) => q.entries.every((e) => e.cached === 0)),
    minRows: passes.reduce(
      (m, q) => Math.min(m, q.entries.reduce((n, e) => n + e.query, 0)),
      Infinity,
    ),
    maxRows: passes.reduce(
      (m, q) => Math.max(m, q.entries.reduce((n, e) => n + e.query, 0)),
      0,
    ),
  };
  const out = new Uint16Array(w.positions.length * c.hidden);
  w.positions.forEach((pos, i) =>
    out.set(res.hidden.subarray(pos * c.hidden, (pos + 1) * c.hidden), i * c.hidden)
  );
  return {
    out,
    sfu: r.result.sfu,
    divergence: _layerDivergence(w.layerChain, res.layerChain),
    matchGap: claim.matchGap,
    tokens: _tokenCheck(w, res.greedy, prompt.length),
    evidence: [
      ...evidence(),
      ..._decoderEvidence(c, {
        stack: input.stack,
        profile: input.profile,
        cast: ckpt.castTensors,
        sfu: r.result.sfu,
        parallel: parallel === _REFUSED ? undefined : parallel,
        allReduceStated: p.parallelism.allReduce !== undefined,
        pp: p.parallelism.pp,
        scope,
      }),
    ],
  };
}

/**
 * The sequence record's contradictions with what its checkpoint's config fixes, in order: its
 * output's width, the sequence's served length beside the batch's other requests (a refusal
 * waits in `refusals`), the passes' token budget on vLLM, the pipeline stages, the all-reduce
 * path, the layer chain and the token ids (the replay's own check). `_claimCheckpoint` runs them
 * on every config, one of values not modelled too, so they read none of its MoE section.
 *
 * @param c the checkpoint's config
 * @param o the branch's input, the record's split, the branch's refusals and the history's passes
 * @returns why a match cannot vouch for the record (links the record leaves unstated decide the
 *   named all-reduce's path; on vLLM, a pass the token budget check cannot vouch for), or null
 * @throws {_Stop} FAIL naming the contradiction
 */
function _sequenceContradictions(
  c: DecoderConfig,
  o: {
    readonly input: SequenceRecomputeInput;
    readonly parallel: TensorParallel | undefined | typeof _REFUSED;
    readonly refusals: string[];
    readonly passes: readonly HistoryPass[];
  },
): string | null {
  const { input, passes } = o;
  const { predicate: p, workload: w, stack, profile } = input;
  const { prompt, generated } = w.tokens;
  _checkFinalNorm(p, w, c.hidden);
  _refusable(o.refusals, () =>
    _checkServedLength(p, {
      config: c,
      stack,
      profile,
      sequences: [{
        prompt: prompt.length,
        generated: generated.length,
        running: furthestRunning(passes),
      }],
      neighbours: longestNeighbour(passes),
    }));
  // A chunk cut by a budget not derived here, or that the record's own settings may set: the
  // recorded passes are still replayed (they fix the computation) and a match says so, so that
  // a falsified record FAILs.
  const budgetGap = _servedBudgetGap(p, {
    stack,
    profile,
    config: c,
    prompt: prompt.length,
    passes,
  });
  const pathGap = _checkAllReducePath(
    p,
    _allReduceFacts(input, { parallel: o.parallel, passes, hidden: c.hidden }),
  );
  _checkLayerChain(w.layerChain, c.layers);
  try {
    checkTokenIds([[...prompt, ...generated]], { vocab: c.vocab, action: "replay" });
  } catch (e) {
    throw _contradiction(e, "its history or checkpoint");
  }
  return [pathGap, budgetGap].filter((g) => g !== null).join("; ") || null;
}

/** What the all-reduce checks read: each pass's GEMM rows. */
function _allReduceFacts(
  input: SequenceRecomputeInput,
  o: {
    readonly parallel: TensorParallel | undefined | typeof _REFUSED;
    readonly passes: readonly HistoryPass[];
    readonly hidden: number;
  },
): Parameters<typeof _checkAllReducePath>[1] {
  return {
    stack: input.stack,
    gpu: input.profile,
    parallel: o.parallel,
    hidden: o.hidden,
    passRows: o.passes.map((q) => q.rows),
  };
}

function _tokenCheck(
  w: SequenceWorkload,
  greedy: ReadonlyMap<number, number>,
  prompt: number,
): TokenCheck {
  const n = w.tokens.generated.length;
  if (w.decoding === "sampled") {
    return {
      status: "not-verifiable",
      detail: `${n} token(s) chosen by the sampler ${
        quoteShort(w.sampler ?? "", 60)
      }: the choice is not verified`,
    };
  }
  const chosen = [...greedy.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t);
  for (let i = 0; i < n; i++) {
    if (chosen[i] !== w.tokens.generated[i]) {
      return {
        status: "mismatch",
        detail: `generated token ${i} (position ${prompt + i}) is ${w.tokens.generated[i]}, ` +
          `the recomputed logits' argmax is ${chosen[i]}`,
      };
    }
  }
  return { status: "match", detail: `${n} greedy token(s) equal the recomputed argmax` };
}
