/**
 * Why a checkpoint named by digest could not be opened, as data: `openCheckpointByDigest`
 * returns one of these kinds and the caller decides what it means (the verifier turns each into a
 * FAIL or NOT_VERIFIED reason; resolve knows nothing of verdicts).
 *
 * @module
 */
import type { BitauditCode } from "../errors.ts";
import type { DecoderConfig, WeightFormats } from "../model/mod.ts";

/** One file the commitment names: `config.json` or a weight file, and its committed digest. */
export interface CommittedFile {
  /** File name in the checkpoint directory. */
  readonly name: string;
  /** The SHA-256 it is committed to (lowercase hex). */
  readonly digest: string;
}

/**
 * A failure of `openCheckpointByDigest`, by kind:
 *
 * - `checkpoint-digest-mismatch`: the commitment contradicts itself (its weight files' digests do
 *   not hash to its checkpoint digest); nothing was read.
 * - `missing-committed-file`: the blob store holds no blob with a committed file's digest.
 * - `digest-mismatch`: the blob stored under a committed file's digest holds other bytes.
 * - `oversized-committed-file`: the blob is over the limit of its kind (`BLOB_MAX_BYTES.config`
 *   for `config.json`, the store's own limit otherwise), refused before it is read.
 * - `unreadable-committed-file`: the blob cannot be read as a file (a directory, a FIFO, no
 *   permission).
 * - `type-contradiction`: the config's model type is not the commitment's (`configType`), or the
 *   config parser refused its type as another architecture or a type it does not know
 *   (`CONFIG_MODEL_TYPE`, its message in `refusal`).
 * - `unsupported-config`: the config uses a feature this version does not model
 *   (`CONFIG_UNSUPPORTED`, its message in `message`); where that is a value HF builds a model of
 *   (`DecoderConfig.unmodelled`), the config read with it in `config`, for the stack's refusals
 *   and the record's contradictions with its shapes, which it still says (nothing may be computed
 *   from it; its weight files' tensors were not read), and with it the weight files' metadata
 *   from their headers in `weightFormats` (for `weightMetadataFinding`), absent where a header is
 *   over the bounds kept for a file nothing is known of (a header the reader refuses otherwise is
 *   an `invalid-checkpoint`, as under a modelled config).
 * - `invalid-checkpoint`: the files cannot be a checkpoint (any other coded refusal of the
 *   checkpoint reader: a bad config field, a missing or misshapen tensor, a broken safetensors
 *   header), with its `code` and `message`.
 */
export type CheckpointFailure =
  | { readonly kind: "checkpoint-digest-mismatch" }
  | { readonly kind: "missing-committed-file"; readonly file: CommittedFile }
  | { readonly kind: "digest-mismatch"; readonly file: CommittedFile }
  | { readonly kind: "oversized-committed-file"; readonly file: CommittedFile }
  | { readonly kind: "unreadable-committed-file"; readonly file: CommittedFile }
  | {
    readonly kind: "type-contradiction";
    readonly recordType: string;
    readonly configType: string;
  }
  | { readonly kind: "type-contradiction"; readonly recordType: string; readonly refusal: string }
  | {
    readonly kind: "unsupported-config";
    readonly message: string;
    readonly config?: DecoderConfig;
    readonly weightFormats?: WeightFormats;
  }
  | { readonly kind: "invalid-checkpoint"; readonly code: BitauditCode; readonly message: string };

/** The kinds of {@link CheckpointFailure}. */
export type CheckpointFailureKind = CheckpointFailure["kind"];
