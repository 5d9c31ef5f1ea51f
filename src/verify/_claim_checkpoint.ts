/**
 * The checkpoint a model record names, opened by digest through resolve
 * (`openCheckpointByDigest`), and what each of its failures means for the record: a committed
 * file the prover did not produce as committed (missing, mismatching, over the limit,
 * unreadable) FAILs with `obligation: "committed-input"` (a prover must not turn the FAIL of a
 * falsified record into NOT_VERIFIED by withholding a file); a record that contradicts itself or
 * its checkpoint, files that cannot be a checkpoint, or weight files its stack's loader would
 * not have read as them, FAIL; a configuration feature this
 * version does not model is NOT_VERIFIED, unless it is a value HF builds a model of and the
 * record's stack refuses to load the config (`_checkStackLoads`): that FAILs. The opened
 * checkpoint is then held to the record's split and its stack's reading of it.
 *
 * @module
 */
import type { BlobStore } from "../assets/mod.ts";
import type { ClaimPredicate, ModelRef } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import {
  type DecoderCheckpoint,
  weightFilesContradiction,
  weightMetadataFinding,
} from "../model/mod.ts";
import { type CheckpointFailure, openCheckpointByDigest } from "../resolve/mod.ts";
import { _checkSplit } from "./_claimed_parallel.ts";
import {
  _checkModelDtype,
  _checkStackLoads,
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

/** The record a checkpoint is claimed for. */
interface _ClaimOptions {
  readonly predicate: ClaimPredicate;
  readonly model: ModelRef;
  readonly stack: StackProfile;
  readonly profile: GpuProfile;
}

/**
 * Opens the checkpoint of a model record and holds it to the record: a split its stack's layout
 * cannot make of it FAILs (`_checkSplit`); a tied head, weight metadata or model dtype the stack
 * reads otherwise than modelled waits in `refusals` (`_checkTiedHead`, `_checkWeightMetadata`,
 * `_checkModelDtype`).
 *
 * @param blobs the blob store
 * @param o the record's predicate, model reference, stack (whose loader must read the weight
 *   files the record names as its safetensors weights: `weightFilesContradiction`) and GPU
 *   profile, and the reasons not modelled said so far (see `_refusable`): a checkpoint not
 *   modelled stops the checks, and the first of them is still said before it
 * @returns the opened checkpoint (tensors on recycled shared memory), `releaseTensor`, which
 *   hands a tensor's buffer back for a later read once its layer is done, and `close`
 * @throws {_Stop} FAIL (digest or type contradiction, a file that cannot be a checkpoint, weight
 *   files the stack's loader would not have read as these weights or refuses by their metadata:
 *   `weightMetadataFinding`, a split the stack cannot make), FAIL
 *   with `obligation: "committed-input"` (a committed file missing, mismatching or unreadable),
 *   FAIL or NOT_VERIFIED of `_checkStackLoads` for a config of values HF builds a model of that
 *   are not modelled, or NOT_VERIFIED (a configuration feature this version does not model, or
 *   the first of `refusals`)
 */
export async function _claimCheckpoint(
  blobs: BlobStore,
  o: _ClaimOptions & { readonly refusals: string[] },
): Promise<_Opened> {
  const opened = await _open(blobs, o).catch((e) => {
    throw _refusedFirst(o.refusals, e);
  });
  try {
    const { ckpt } = opened;
    _checkSplit(o.predicate, { stack: o.stack, config: ckpt.config });
    _refusable(o.refusals, () => _checkTiedHead(ckpt, o.stack));
    _refusable(o.refusals, () => _checkWeightMetadata(ckpt, o.stack));
    _refusable(o.refusals, () => _checkModelDtype(ckpt, o.stack));
  } catch (e) {
    opened.close();
    throw e;
  }
  return opened;
}

/**
 * Opens the checkpoint of a model record by digest.
 *
 * @param blobs the blob store
 * @param o the record's predicate, model reference, stack and GPU profile
 * @returns the opened checkpoint
 * @throws {_Stop} as {@link _claimCheckpoint}, but for the split and the refusals
 */
async function _open(blobs: BlobStore, o: _ClaimOptions): Promise<_Opened> {
  const r = await openCheckpointByDigest(blobs, o.model);
  if (!r.ok) {
    const f = r.failure;
    // Values HF builds a model of, not modelled here: a stack that refuses to load the config at
    // all FAILs the record; one that loads it ran a model this version cannot recompute.
    if (f.kind === "unsupported-config" && f.config !== undefined) {
      _checkStackLoads(o.predicate, { config: f.config, stack: o.stack, profile: o.profile });
    }
    throw _checkpointStop(f);
  }
  // Every weight file is now a safetensors file: the stack must have read each one as such.
  const why = weightFilesContradiction(o.stack, Object.keys(o.model.files));
  // A file the stack's loader refuses by its metadata: no run loaded these weights (an unmodelled
  // reading waits for the recomputation: `_checkWeightMetadata`).
  const meta = weightMetadataFinding(o.stack, r.opened.ckpt.weightFormats);
  const refused = why ?? (meta?.kind === "contradiction" ? meta.reason : null);
  if (refused !== null) {
    r.opened.close();
    throw new _Stop("FAIL", `record contradicts its stack: ${refused}`);
  }
  return r.opened;
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
