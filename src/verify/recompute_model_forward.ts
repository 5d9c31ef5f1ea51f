/**
 * The model-forward branch of the per-record pipeline: resolve the GEMM kernels (one not modelled
 * is said after the record's contradictions, nothing recomputed), fetch the checkpoint's files and
 * config by digest (checking the weights digest rule), run the prefill forward as the stack runs
 * it, and hand back the fingerprinted rows; with a claimed layer chain, the first diverging
 * (layer, stage).
 *
 * @module
 */
import type { AssetStore, BlobStore } from "../assets/mod.ts";
import type { ClaimPredicate, ModelForwardWorkload } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { Fa2Forward, KWalker, StackProfile } from "../kernels/mod.ts";
import {
  checkTokenIds,
  type DecoderConfig,
  runPrefillForward,
  type SfuUse,
  type TensorParallel,
} from "../model/mod.ts";
import { _claimCheckpoint } from "./_claim_checkpoint.ts";
import { _checkCost, _checkSize, _contradiction, _refusable, _REFUSED, _Stop } from "./_stop.ts";
import { forwardProducts } from "./decoder_record_products.ts";
import { forwardActivation } from "./forward_activation.ts";
import { _layerRuntime } from "./_layer_runtime.ts";
import { _checkAllReducePath, _checkedParallel, _checkNcclRelease } from "./_claimed_parallel.ts";
import { _checkClaimedSmCount } from "./_claimed_sm_count.ts";
import { _checkServingTensorParallel } from "./_serving_parallel.ts";
import { _decoderEvidence } from "./_record_evidence.ts";
import type { ComponentEvidence } from "../hardware/mod.ts";
import {
  _checkBatchPadding,
  _checkModelSupport,
  _checkServedLength,
  _checkServedRequests,
  _servedBudgetGap,
} from "./_model_support.ts";
import { _checkFinalNorm } from "./_output_description.ts";
import type { LayerDivergence } from "./record_result.ts";

/** What the model-forward branch needs. */
export interface ModelForwardRecomputeInput {
  readonly store: AssetStore;
  readonly blobs: BlobStore;
  readonly walker: KWalker;
  /** Runs the attention core (an `Fa2Pool`'s `forward`; default on the calling thread). */
  readonly attention?: Fa2Forward | undefined;
  readonly predicate: ClaimPredicate;
  readonly workload: ModelForwardWorkload;
  readonly profile: GpuProfile;
  readonly stack: StackProfile;
  /** Records a passed pipeline step. */
  readonly step: (name: string, detail: string) => void;
  /** The audit's budget a record (`VerifyContext.maxRecordProducts`). */
  readonly maxRecordProducts?: number | undefined;
}

/**
 * Recomputes a model-forward record's fingerprinted rows.
 *
 * @param input assets, blobs, walker, the record's predicate and workload, profile, stack
 * @returns the rows at the claimed positions (BF16, in claim order), the SFU functions used,
 *   when the record carries a layer chain that differs, the first diverging stage, and why a
 *   match cannot vouch for the record (`matchGap`: links the record leaves unstated decide the
 *   named all-reduce's path; on vLLM, a pass the token budget check cannot vouch for), or null
 * @throws {_Stop} NOT_VERIFIED (unmodelled configuration or parallelism), FAIL (a record
 *   contradicting itself or its checkpoint) or FAIL with `obligation: "committed-input"` (a
 *   committed file missing, mismatching or unreadable)
 */
export async function _recomputeModelForward(
  input: ModelForwardRecomputeInput,
): Promise<{
  out: Uint16Array;
  sfu: readonly SfuUse[];
  divergence: LayerDivergence | null;
  evidence: ComponentEvidence[];
  matchGap: string | null;
}> {
  const { predicate: p, workload: w, step } = input;
  // What is not modelled is said only after the record's contradictions (a named unmodelled
  // configuration, kernel or limit never hides a FAIL): the first such reason waits in
  // `refusals`, and the forward, given it, checks the batch and computes nothing.
  const refusals: string[] = [];
  const { runtime, evidence } = await _layerRuntime({ ...input, kernel: w.kernel, refusals });
  const parallel = _checkedParallel(p, { stack: input.stack, gpu: input.profile, refusals });
  _refusable(refusals, () => _checkClaimedSmCount(input.profile, w.attention.multiProcessorCount));
  _refusable(refusals, () => _checkServingTensorParallel(input.stack, p.parallelism.tp));
  if (p.batch.size !== w.tokens.sequences.length) {
    throw new _Stop(
      "FAIL",
      `record contradicts itself: batch size ${p.batch.size} but ${w.tokens.sequences.length} sequences`,
    );
  }
  // One pass of all the sequences: at most the requests the engine's scheduler runs at once.
  _refusable(refusals, () =>
    _checkServedRequests(p, {
      stack: input.stack,
      profile: input.profile,
      requests: w.tokens.sequences.length,
    }));
  // The output's description needs no checkpoint but for its width: checked before the checkpoint
  // (which, not modelled, would hide it), then with its width (`_forwardContradictions`).
  _checkFinalNorm(p, w, "hidden");
  // A config not modelled stops the checks once the record is held to what its modelled fields
  // fix; a reason said before it still comes first.
  const claim = await _claimCheckpoint(input.blobs, {
    ...input,
    model: w.model,
    refusals,
    contradictions: (c) => _forwardContradictions(c, { input, parallel, refusals }),
  });
  using _files = { [Symbol.dispose]: () => claim.close() }; // the opened weight files
  const { ckpt, releaseTensor } = claim;
  const c = ckpt.config;
  const lens = w.tokens.sequences.map((s) => s.length);
  _refusable(
    refusals,
    () => _checkModelSupport(c, { profile: input.profile, stack: input.stack, tokens: w.tokens }),
  );
  // Bound every activation before anything is allocated: padded rows (B x L_max, at least the
  // flattened count), the widest row of any stage (MoE: top-k expert rows; eager attention:
  // L_max scores, which FA2 never holds), and the fingerprinted rows.
  const [rows, widest] = forwardActivation(c, { lens, stack: input.stack });
  _refusable(refusals, () => {
    _checkSize([rows, widest], "activation");
    _checkSize([w.positions.length, c.hidden], "fingerprint");
  });
  _refusable(refusals, () => _checkNcclRelease(p, _allReduceFacts(input, parallel, c.hidden)));
  step(
    "tensors",
    `checkpoint ${w.model.checkpointSha256.slice(0, 16)}… (${c.modelType}, ${c.layers} layers, ` +
      `${Object.keys(w.model.files).length} file(s)) by digest`,
  );
  _refusable(refusals, () =>
    _checkCost(forwardProducts(c, lens), {
      what: `the forward of ${lens.length} sequence(s) through ${c.layers} layers`,
      budget: input.maxRecordProducts,
    }));
  let r;
  try {
    r = await runPrefillForward(ckpt, {
      sequences: w.tokens.sequences,
      runtime,
      multiProcessorCount: w.attention.multiProcessorCount,
      positions: w.positions.map(([seq, pos]) => ({ seq, pos })),
      releaseTensor,
      parallel: parallel === _REFUSED ? undefined : parallel,
      ...(refusals.length === 0 ? {} : { refused: refusals[0]! }),
      ...(w.tokens.padTokenId === undefined ? {} : { padTokenId: w.tokens.padTokenId }),
    });
  } catch (e) {
    throw _contradiction(e, "its checkpoint");
  }
  if (!r.supported) throw new _Stop("NOT_VERIFIED", r.reason);
  const res = r.result;
  step(
    "support",
    `${res.layout.rows} GEMM rows for ${res.layout.real.length} tokens; SFU ${
      res.sfu.map((u) => `${u.fn} ${u.status}`).join(", ")
    }`,
  );
  // A prefill from position 0: one sequence is a pass the peer could have run.
  const scope = { oneSequence: lens.length === 1, fromStart: true, minRows: rows, maxRows: rows };
  const out = new Uint16Array(w.positions.length * c.hidden);
  w.positions.forEach(([seq, pos], i) => {
    const row = res.layout.cuSeqlens[seq]! + pos;
    out.set(res.hidden.subarray(row * c.hidden, (row + 1) * c.hidden), i * c.hidden);
  });
  return {
    out,
    sfu: res.sfu,
    divergence: _layerDivergence(w.layerChain, res.layerChain),
    matchGap: claim.matchGap,
    evidence: [
      ...evidence(),
      ..._decoderEvidence(c, {
        stack: input.stack,
        profile: input.profile,
        cast: ckpt.castTensors,
        sfu: res.sfu,
        parallel: parallel === _REFUSED ? undefined : parallel,
        allReduceStated: p.parallelism.allReduce !== undefined,
        pp: p.parallelism.pp,
        scope,
      }),
    ],
  };
}

/**
 * The model-forward record's contradictions with what its checkpoint's config fixes, in order:
 * its output's width, the batch's padding (`_checkBatchPadding`), the prompts' served length
 * (a refusal waits in `refusals`), the pass's token budget on vLLM, the pipeline stages, the
 * all-reduce path, the layer chain and the token ids (the forward's own check). `_claimCheckpoint`
 * runs them on every config, one of values not modelled too, so they read none of its MoE
 * section.
 *
 * @param c the checkpoint's config
 * @param o the branch's input, the record's split and the branch's refusals
 * @returns why a match cannot vouch for the record (links the record leaves unstated decide the
 *   named all-reduce's path; on vLLM, a pass the token budget check cannot vouch for), or null
 * @throws {_Stop} FAIL naming the contradiction
 */
function _forwardContradictions(
  c: DecoderConfig,
  o: {
    readonly input: ModelForwardRecomputeInput;
    readonly parallel: TensorParallel | undefined | typeof _REFUSED;
    readonly refusals: string[];
  },
): string | null {
  const { input, refusals } = o;
  const { predicate: p, workload: w, stack, profile } = input;
  const lens = w.tokens.sequences.map((s) => s.length);
  _checkFinalNorm(p, w, c.hidden);
  _checkBatchPadding(c, { stack, tokens: w.tokens });
  // A prefill: each sequence is a prompt, with nothing generated, in one pass of every prompt
  // whole.
  const sequences = lens.map((prompt) => ({ prompt, generated: 0 }));
  _refusable(refusals, () => _checkServedLength(p, { config: c, stack, profile, sequences }));
  // On vLLM, at most the scheduler's token budget. Where the record's own settings may set
  // another budget, the pass is still recomputed (the batch fixes it) and a match says so: a
  // falsified record FAILs.
  const entries = lens.map((query) => ({ query, cached: 0 }));
  const budgetGap = _servedBudgetGap(p, {
    stack,
    profile,
    config: c,
    prompt: lens[0]!,
    passes: [{ entries, self: 0 }],
  });
  const pathGap = _checkAllReducePath(p, _allReduceFacts(input, o.parallel, c.hidden));
  _checkLayerChain(w.layerChain, c.layers);
  try {
    checkTokenIds(w.tokens.sequences, { vocab: c.vocab, action: "run forward" });
  } catch (e) {
    throw _contradiction(e, "its checkpoint");
  }
  return [pathGap, budgetGap].filter((g) => g !== null).join("; ") || null;
}

/** What the all-reduce checks read: one pass, its GEMM rows the flattened tokens. */
function _allReduceFacts(
  input: ModelForwardRecomputeInput,
  parallel: TensorParallel | undefined | typeof _REFUSED,
  hidden: number,
): Parameters<typeof _checkAllReducePath>[1] {
  const rows = input.workload.tokens.sequences.reduce((n, s) => n + s.length, 0);
  return { stack: input.stack, gpu: input.profile, parallel, hidden, passRows: [rows] };
}

/**
 * FAILs a record whose claimed layer chain is not one entry per layer of its checkpoint.
 *
 * @param claimed the record's chain, if any
 * @param layers the checkpoint's layer count
 * @throws {_Stop} FAIL naming both counts
 */
export function _checkLayerChain(
  claimed: ModelForwardWorkload["layerChain"],
  layers: number,
): void {
  if (claimed !== undefined && claimed.length !== layers) {
    throw new _Stop(
      "FAIL",
      `record's layer chain has ${claimed.length} entries for ${layers} layers`,
    );
  }
}

/**
 * The first (layer, stage) where a recomputed chain differs from a claimed one.
 *
 * @param claimed the record's chain, if any
 * @param got the recomputed chain
 * @returns the divergence, or null (no claimed chain, or equal chains)
 */
export function _layerDivergence(
  claimed: ModelForwardWorkload["layerChain"],
  got: readonly { attention: string; mlp: string }[],
): LayerDivergence | null {
  if (claimed === undefined) return null;
  for (let layer = 0; layer < got.length; layer++) {
    for (const stage of ["attention", "mlp"] as const) {
      if (claimed[layer]![stage] !== got[layer]![stage]) {
        return { layer, stage, layers: got.length };
      }
    }
  }
  return null;
}
