/**
 * The checkpoint a model record names, opened by digest through resolve
 * (`openCheckpointByDigest`), and what each of its failures means for the record: a committed
 * file the prover did not produce as committed (missing, mismatching, over the limit,
 * unreadable) FAILs with `obligation: "committed-input"` (a prover must not turn the FAIL of a
 * falsified record into NOT_VERIFIED by withholding a file); a record that contradicts itself or
 * its checkpoint, files that cannot be a checkpoint, or weight files its stack's loader would
 * not have read as them, FAIL, and so does a config the record's stack refuses to load
 * (`_checkStackLoads`, modelled or not); a configuration feature this version does not model is
 * NOT_VERIFIED. The opened checkpoint is then held to the record's split and its stack's reading
 * of it.
 *
 * What is not modelled never hides what the record contradicts with what is at hand: weights the
 * loaders read in a way not modelled (`DecoderCheckpoint.unmodelled`) are a refusal that waits
 * while the record is held to their config and headers (here and by the caller, whose forward
 * then computes nothing), and so is a config of values HF builds a model of that are not
 * modelled, while the record is held to its weight file names, the weights' metadata (read from
 * their headers alone), its split and what the config's modelled fields fix. The caller's
 * `contradictions` with the config run here on both paths, after the split and the checkpoint's
 * own refusals, so that each branch writes them once.
 *
 * @module
 */
import type { BlobStore } from "../assets/mod.ts";
import type { ClaimPredicate, ModelRef } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import {
  type DecoderCheckpoint,
  type DecoderConfig,
  weightFilesContradiction,
  type WeightFormats,
  weightMetadataFinding,
} from "../model/mod.ts";
import { type CheckpointFailure, openCheckpointByDigest } from "../resolve/mod.ts";
import { _checkSplit } from "./_claimed_parallel.ts";
import {
  _checkExtraTensors,
  _checkMissingTensors,
  _checkModelDtype,
  _checkStackLoads,
  _checkStoredTiedHead,
  _checkTiedHead,
  _checkWeightMetadata,
} from "./_model_support.ts";
import { _missingBlob, _refusable, _refusedFirst, _Stop, _unmet } from "./_stop.ts";

/** An opened checkpoint: its tensors, and the handles that give its memory and files back. */
interface _Opened {
  ckpt: DecoderCheckpoint;
  releaseTensor: (t: Uint16Array) => void;
  close: () => void;
}

/** An opened checkpoint the record is held to, and what its `contradictions` gave back. */
interface _Claimed extends _Opened {
  /** Why a match cannot vouch for the record (the caller's `contradictions`), or null. */
  matchGap: string | null;
}

/** The record a checkpoint is claimed for. */
interface _ClaimOptions {
  readonly predicate: ClaimPredicate;
  readonly model: ModelRef;
  readonly stack: StackProfile;
  readonly profile: GpuProfile;
  /** The reasons not modelled said so far, in order (see `_refusable`). */
  readonly refusals: string[];
  /**
   * The record's other contradictions with its config (its output's width, batch padding, served
   * length and token budget, pipeline stages, all-reduce path, layer chain, token ids), run here
   * on every config after `_checkSplit`: on an opened checkpoint's after its own refusals (weights,
   * tied head, metadata and dtype not modelled), on a config of values HF builds a model of that
   * are not modelled before its NOT_VERIFIED, after its reason has joined `refusals` (a refusal
   * they give comes after it). Such a config is read as any other but for its MoE section
   * (`DecoderConfig.unmodelled` names the MoE values: experts, top-k, sparse step, dense layers),
   * so these must read none of `moe`: only its vocabulary, hidden size, layer count, maximum
   * positions and RoPE, which every driver reads alike whatever its experts. They return why a
   * match cannot vouch for the record (a token budget or all-reduce path they cannot hold it
   * to), or null.
   */
  readonly contradictions: (config: DecoderConfig) => string | null;
}

/**
 * Opens the checkpoint of a model record and holds it to the record, in order: its stack's
 * loading of the config, weight file names and metadata (`_checkStackLoads`, whose refusal
 * waits in `refusals`, `weightFilesContradiction`, `weightMetadataFinding`); a split its stack's
 * layout cannot make of it FAILs (`_checkSplit`); tensors missing FAIL where the stack's loader
 * refuses them, else wait in `refusals` (`_checkMissingTensors`); a tied head, weight metadata
 * or model dtype the stack reads otherwise than modelled waits in `refusals` (`_checkTiedHead`,
 * `_checkWeightMetadata`, `_checkModelDtype`); then the record's `contradictions` with its
 * config run. A config of values not modelled is held to the same checks in the same order, its
 * reason waiting in `refusals` in place of the opened checkpoint's own refusals.
 *
 * @param blobs the blob store
 * @param o the record's predicate, model reference, stack (whose loader must read the weight
 *   files the record names as its safetensors weights: `weightFilesContradiction`) and GPU
 *   profile, the reasons not modelled said so far (see `_refusable`): a config not modelled stops
 *   the checks, and the first of them is still said before it; and the record's `contradictions`
 *   with a config's shapes
 * @returns the opened checkpoint (tensors on recycled shared memory), `releaseTensor`, which
 *   hands a tensor's buffer back for a later read once its layer is done, `close`, and the
 *   `matchGap` its `contradictions` gave; where its weights are read in a way not modelled, its
 *   reason waits in `refusals` (its tensors cannot be read: the forward, refused, computes
 *   nothing)
 * @throws {_Stop} FAIL (digest or type contradiction, a file that cannot be a checkpoint, a
 *   config the stack refuses to load, weight files the stack's loader would not have read as
 *   these weights or refuses by their metadata: `weightMetadataFinding`, a split the stack cannot
 *   make, the record's `contradictions`; all but the first two for a config of values HF builds a
 *   model of that are not modelled too), FAIL with `obligation: "committed-input"` (a committed
 *   file missing, mismatching or unreadable), or NOT_VERIFIED (a configuration feature this
 *   version does not model, or the first of `refusals`)
 */
export async function _claimCheckpoint(blobs: BlobStore, o: _ClaimOptions): Promise<_Claimed> {
  const opened = await _open(blobs, o).catch((e) => {
    throw _refusedFirst(o.refusals, e);
  });
  try {
    const { ckpt } = opened;
    _checkSplit(o.predicate, { stack: o.stack, config: ckpt.config });
    // Tensors missing: a stack whose loader refuses them FAILs, before any refusal.
    const loading = { ckpt, stack: o.stack, profile: o.profile };
    _refusable(o.refusals, () => _checkMissingTensors(o.predicate, loading));
    // Tensors the model does not have that the stack's loader refuses: FAIL, before any refusal.
    _refusable(o.refusals, () => _checkExtraTensors(o.predicate, loading));
    // A stored tied head the stack's loader reads: a misshapen one FAILs, before any refusal.
    if (ckpt.storedTiedHeadProblem?.invalid === true) {
      _refusable(o.refusals, () => _checkStoredTiedHead(o.predicate, loading));
    }
    // Weights not modelled: no evidence against the record, which is still held to their config.
    _refusable(o.refusals, () => {
      if (ckpt.unmodelled !== undefined) {
        throw new _Stop("NOT_VERIFIED", `checkpoint: ${ckpt.unmodelled}`);
      }
    });
    if (ckpt.storedTiedHeadProblem?.invalid !== true) {
      _refusable(o.refusals, () => _checkStoredTiedHead(o.predicate, loading));
    }
    _refusable(o.refusals, () => _checkTiedHead(ckpt, o.stack));
    _refusable(o.refusals, () => _checkWeightMetadata(ckpt, o.stack));
    _refusable(o.refusals, () => _checkModelDtype(ckpt, o.stack));
    return { ...opened, matchGap: o.contradictions(ckpt.config) };
  } catch (e) {
    opened.close();
    throw e;
  }
}

/**
 * Opens the checkpoint of a model record by digest.
 *
 * @param blobs the blob store
 * @param o the record's predicate, model reference, stack and GPU profile, the refusals and the
 *   record's contradictions with a config's shapes
 * @returns the opened checkpoint
 * @throws {_Stop} as {@link _claimCheckpoint}, but for the opened checkpoint's split and refusals
 *   (a config not modelled: NOT_VERIFIED of its own, the refusals' first said by the caller)
 */
async function _open(blobs: BlobStore, o: _ClaimOptions): Promise<_Opened> {
  const r = await openCheckpointByDigest(blobs, o.model);
  if (!r.ok) {
    const f = r.failure;
    // Values HF builds a model of, not modelled here: a stack that refuses to load the config at
    // all FAILs the record, as does a record its shapes contradict; one that loads it ran a model
    // this version cannot recompute.
    if (f.kind === "unsupported-config" && f.config !== undefined) {
      const config = f.config;
      _checkLoads(o, { config, formats: f.weightFormats });
      _checkSplit(o.predicate, { stack: o.stack, config });
      // The config's reason waits, as weights not modelled do, while the record is held to what
      // the config's modelled fields fix.
      const stop = _checkpointStop(f);
      _refusable(o.refusals, () => {
        throw stop;
      });
      o.contradictions(config);
      throw stop; // the first of `refusals` is said (`_refusedFirst`)
    }
    throw _checkpointStop(f);
  }
  try {
    _checkLoads(o, { config: r.opened.ckpt.config, formats: r.opened.ckpt.weightFormats });
  } catch (e) {
    r.opened.close();
    throw e;
  }
  return r.opened;
}

/**
 * Holds the record to what its stack's loader makes of the config and the weight files, the same
 * for a config modelled or not: a stack that refuses to load the config FAILs the record
 * (`_checkStackLoads`; where the record states settings beyond the stack's, its refusal waits in
 * `refusals`), and so do weight file names or metadata it would not have read as these weights.
 *
 * @param o the record's predicate, model reference, stack, GPU profile and refusals
 * @param files the config and the weight files' formats (none: headers over the bounds kept for
 *   a config not modelled, which give no metadata to hold)
 * @throws {_Stop} FAIL naming the contradiction
 */
function _checkLoads(
  o: _ClaimOptions,
  files: { readonly config: DecoderConfig; readonly formats: WeightFormats | undefined },
): void {
  const { config } = files;
  _refusable(
    o.refusals,
    () => _checkStackLoads(o.predicate, { config, stack: o.stack, profile: o.profile }),
  );
  _weightFileNames(o);
  if (files.formats !== undefined) _weightMetadata(o.stack, files.formats);
}

/**
 * FAILs a record naming weight files its stack's loader would not read as its safetensors weights
 * (`weightFilesContradiction`, by their names alone: files that are no safetensors at all could
 * not be its weights either).
 */
function _weightFileNames(o: _ClaimOptions): void {
  const why = weightFilesContradiction(o.stack, Object.keys(o.model.files));
  if (why !== null) throw new _Stop("FAIL", `record contradicts its stack: ${why}`);
}

/**
 * FAILs a record whose weight files the stack's loader refuses by their metadata
 * (`weightMetadataFinding`): no run loaded these weights (a reading not modelled waits for the
 * recomputation: `_checkWeightMetadata`).
 */
function _weightMetadata(stack: StackProfile, formats: WeightFormats): void {
  const meta = weightMetadataFinding(stack, formats);
  if (meta?.kind === "contradiction") {
    throw new _Stop("FAIL", `record contradicts its stack: ${meta.reason}`);
  }
}

/**
 * The record's status and reason for a checkpoint that could not be opened.
 *
 * @param f the failure
 * @returns the stop to throw
 */
function _checkpointStop(f: CheckpointFailure): _Stop {
  switch (f.kind) {
    case "checkpoint-digest-mismatch":
      return new _Stop(
        "FAIL",
        "record contradicts itself: its files do not hash to its checkpoint digest",
      );
    case "missing-committed-file":
      return _missingBlob(_blob(f.file));
    case "digest-mismatch":
      return _unmet(_blob(f.file), "does not hash to its committed digest");
    case "oversized-committed-file":
      return _unmet(_blob(f.file), "is over the limit");
    case "unreadable-committed-file":
      return _unmet(_blob(f.file), "cannot be read as a file");
    case "type-contradiction":
      // A config of another architecture than the model type the record names is evidence
      // against the record: a prover could otherwise commit a falsified record to a config of any
      // unknown architecture and turn its FAIL into NOT_VERIFIED.
      return new _Stop(
        "FAIL",
        "configType" in f
          ? `record names model type '${f.recordType}', the config is '${f.configType}'`
          : `record names model type '${f.recordType}', its checkpoint contradicts it: ${f.refusal}`,
      );
    case "unsupported-config":
      // A feature this version does not model is no evidence against the record.
      return new _Stop("NOT_VERIFIED", `checkpoint: ${f.message}`);
    case "invalid-checkpoint":
      // A checkpoint that cannot be a model at all is.
      return new _Stop("FAIL", `checkpoint: ${f.message}`);
  }
}

/** A committed file as the reasons name it. */
function _blob(file: { readonly name: string; readonly digest: string }) {
  return { digest: file.digest, what: `checkpoint file ${file.name}` };
}
