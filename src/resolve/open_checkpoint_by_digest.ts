/**
 * The one way to open a checkpoint a record names by digest: its weight files must hash to its
 * checkpoint digest, `config.json` and every weight file are fetched from the blob store by the
 * digest committed to (each read checked against its digest and its kind's size limit before it
 * is parsed), and the config's model type must be the record's. Failures come back as data
 * (`CheckpointFailure`), never as verdicts: the verifier decides what each one means. Weights the
 * stacks' loaders read in a way not modelled come back opened, the reason in `ckpt.unmodelled`
 * and their tensors unreadable, so that the record can still be held to their config and headers;
 * a config of values HF builds a model of that are not modelled comes back read, with its weight
 * files' metadata from their headers (no tensor read), so that the record can still be held to
 * them.
 *
 * @module
 */
import { BLOB_MAX_BYTES, type BlobStore } from "../assets/mod.ts";
import { BitauditError, InputError } from "../errors.ts";
import {
  bytesByteSource,
  type ByteSource,
  type DecoderConfig,
  digestOfFiles,
  parseCheckpointJson,
  parseDecoderConfig,
  readWeightFormats,
} from "../model/mod.ts";
import type { CheckpointFailure, CommittedFile } from "./checkpoint_failure.ts";
import { _openOnSharedBuffers, type OpenedCheckpoint } from "./opened_checkpoint.ts";

/** What a record commits to about its checkpoint, by digest (a claim's `ModelRef`). */
export interface CheckpointCommitment {
  /** The `model_type` the record says its config has. */
  readonly type: string;
  /** The checkpoint digest (`bitaudit.checkpoint-digest/v1` over `files`). */
  readonly checkpointSha256: string;
  /** SHA-256 of `config.json`. */
  readonly configSha256: string;
  /** Weight file name -> SHA-256. */
  readonly files: Readonly<Record<string, string>>;
}

/**
 * The outcome of {@link openCheckpointByDigest}: the opened checkpoint (with `ckpt.unmodelled`
 * where its weights are read in a way not modelled: nothing may be computed from them), or why
 * not.
 */
export type CheckpointByDigest =
  | { readonly ok: true; readonly opened: OpenedCheckpoint }
  | { readonly ok: false; readonly failure: CheckpointFailure };

const CONFIG = "config.json";

/**
 * Opens a committed checkpoint from a blob store. `config.json` is read whole (at most
 * `BLOB_MAX_BYTES.config`); weight files are opened for random access when the store can
 * (`BlobStore.open`: read from disk as the forward needs them, never held in memory), else read
 * whole under the store's limit.
 *
 * @param blobs the blob store
 * @param commitment the record's model type, checkpoint digest, config digest and weight files
 * @returns `{ ok: true, opened }` (close `opened` when done; where the loaders read its weights
 *   in a way not modelled, every other check passed and `opened.ckpt.unmodelled` says why: read
 *   as `openDecoderCheckpoint`'s `unmodelled: "keep"`), or `{ ok: false, failure }` with the first
 *   failure met (an `unsupported-config` of values HF builds a model of with the config and the
 *   weight files' metadata: see `CheckpointFailure`), every file opened so far closed (two weight
 *   files committed to one blob are an `invalid-checkpoint` `CHECKPOINT_DUPLICATE_TENSOR`, before
 *   anything is fetched)
 * @throws whatever the blob store throws besides its `BLOB_DIGEST_MISMATCH`, `BLOB_TOO_LARGE` and
 *   `BLOB_READ` refusals, and errors of the checkpoint reader that carry no code (a bug)
 * @example
 * ```ts
 * import { openCheckpointByDigest } from "./open_checkpoint_by_digest.ts";
 * import { digestOfFiles } from "../model/mod.ts";
 * const blobs = { dir: "empty", get: () => Promise.resolve(null) };
 * const h = "ab".repeat(32);
 * const files = { "model.safetensors": h };
 * const r = await openCheckpointByDigest(blobs, {
 *   type: "qwen3", checkpointSha256: digestOfFiles(files), configSha256: h, files });
 * if (r.ok || r.failure.kind !== "missing-committed-file" || r.failure.file.name !== "config.json") {
 *   throw new Error("the config is fetched first");
 * }
 * ```
 */
export async function openCheckpointByDigest(
  blobs: BlobStore,
  commitment: CheckpointCommitment,
): Promise<CheckpointByDigest> {
  if (digestOfFiles(commitment.files) !== commitment.checkpointSha256) {
    return { ok: false, failure: { kind: "checkpoint-digest-mismatch" } };
  }
  const twice = _sameBlobTwice(commitment.files);
  if (twice !== null) return { ok: false, failure: twice };
  const held: { close(): void }[] = [];
  const close = () => {
    for (const f of held.splice(0)) f.close();
  };
  let sources: Map<string, ByteSource> | CheckpointFailure;
  try {
    sources = await _fetchFiles(blobs, { commitment, held });
  } catch (e) {
    close();
    throw e;
  }
  if (!(sources instanceof Map)) {
    close();
    return { ok: false, failure: sources };
  }
  let opened: OpenedCheckpoint;
  try {
    // The files stay open past a refusal (closed below): a config not modelled still has its
    // weight files' headers read.
    opened = await _openOnSharedBuffers(
      { open: (name) => Promise.resolve(sources.get(name) ?? null) },
      { weightFiles: Object.keys(commitment.files), unmodelled: "keep", close: () => {} },
    );
  } catch (e) {
    try {
      return { ok: false, failure: await _notOpened(e, { sources, type: commitment.type }) };
    } finally {
      close();
    }
  }
  const other = _otherType(opened.ckpt.config, commitment.type);
  if (other !== null) {
    close();
    return { ok: false, failure: other };
  }
  return { ok: true, opened: { ...opened, close, [Symbol.dispose]: close } };
}

/**
 * Why the checkpoint reader refused the files: its coded refusal as a failure; for a config of
 * values HF builds a model of that are not modelled, the config read with them and, where every
 * weight file's header reads (`readWeightFormats`: headers only, no tensor), their metadata.
 */
async function _notOpened(
  e: unknown,
  o: { readonly sources: ReadonlyMap<string, ByteSource>; readonly type: string },
): Promise<CheckpointFailure> {
  if (!(e instanceof BitauditError)) throw e;
  const failure = _refusal(e, o.type);
  if (failure.kind !== "unsupported-config" || e.code !== "CONFIG_UNSUPPORTED") return failure;
  const config = await _unmodelledConfig(o.sources.get(CONFIG)!);
  if (config === null) return failure;
  const other = _otherType(config, o.type);
  if (other !== null) return other;
  const weights = new Map([...o.sources].filter(([name]) => name !== CONFIG));
  let formats;
  try {
    formats = await readWeightFormats(weights);
  } catch (h) {
    if (!(h instanceof BitauditError)) throw h;
    // A header the format refuses: no safetensors file, whatever the config (the failure of a
    // modelled config's checkpoint too).
    return _refusal(h, o.type);
  }
  // Past the bounds kept for a file nothing is known of (the tensors of the config's model would
  // set them, and that model is not modelled): no metadata, no finding.
  return formats === null ? { ...failure, config } : { ...failure, config, weightFormats: formats };
}

/** The failure for a config whose model type is not the record's, or null. */
function _otherType(config: DecoderConfig, recordType: string): CheckpointFailure | null {
  const configType = config.modelType;
  return configType === recordType ? null : { kind: "type-contradiction", recordType, configType };
}

/**
 * Two weight files committed to the same blob, refused before any file is fetched: every tensor
 * of the blob would be in both (a checkpoint holds each tensor once), and its header would be
 * read once per name.
 */
function _sameBlobTwice(files: Readonly<Record<string, string>>): CheckpointFailure | null {
  const byDigest = new Map<string, string>();
  for (const [name, digest] of Object.entries(files)) {
    const first = byDigest.get(digest);
    if (first !== undefined) {
      return {
        kind: "invalid-checkpoint",
        code: "CHECKPOINT_DUPLICATE_TENSOR",
        message: `Cannot open checkpoint: weight files '${first}' and '${name}' are the same ` +
          `blob (sha256 ${digest}): a checkpoint holds each tensor in one file`,
      };
    }
    byDigest.set(digest, name);
  }
  return null;
}

/** Fetches `config.json` and then each weight file; the first failure ends it. */
async function _fetchFiles(
  blobs: BlobStore,
  o: { readonly commitment: CheckpointCommitment; readonly held: { close(): void }[] },
): Promise<Map<string, ByteSource> | CheckpointFailure> {
  const sources = new Map<string, ByteSource>();
  const whole = async (file: CommittedFile) => {
    const limit = file.name === CONFIG ? { maxBytes: BLOB_MAX_BYTES.config } : {};
    const b = await blobs.get(file.digest, limit);
    return b === null ? null : bytesByteSource(b);
  };
  const open = blobs.open?.bind(blobs);
  const config = { name: CONFIG, digest: o.commitment.configSha256, config: true };
  const weights = Object.entries(o.commitment.files)
    .map(([name, digest]) => ({ name, digest, config: false }));
  for (const { config: isConfig, ...file } of [config, ...weights]) {
    // Weight files are read from disk as the forward needs them, not held in memory.
    const read = isConfig || open === undefined
      ? await _committed(file, () => whole(file))
      : await _committed(file, async () => {
        const f = await open(file.digest);
        if (f !== null) o.held.push(f);
        return f;
      });
    if (!("source" in read)) return read;
    sources.set(file.name, read.source);
  }
  return sources;
}

/** Reads a committed file; its absence and the blob store's refusals of it become failures. */
async function _committed(
  file: CommittedFile,
  read: () => Promise<ByteSource | null>,
): Promise<{ readonly source: ByteSource } | CheckpointFailure> {
  let source: ByteSource | null;
  try {
    source = await read();
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    if (e.code === "BLOB_DIGEST_MISMATCH") return { kind: "digest-mismatch", file };
    if (e.code === "BLOB_TOO_LARGE") return { kind: "oversized-committed-file", file };
    if (e.code === "BLOB_READ") return { kind: "unreadable-committed-file", file };
    throw e;
  }
  return source === null ? { kind: "missing-committed-file", file } : { source };
}

/**
 * The config a `CONFIG_UNSUPPORTED` refusal was about, read with its unmodelled values (values HF
 * builds a model of: `parseDecoderConfig`'s `unmodelled: "read"`), or null where the refusal is of
 * another feature.
 */
async function _unmodelledConfig(source: ByteSource): Promise<DecoderConfig | null> {
  try {
    const json = parseCheckpointJson(await source.read(0, source.size), CONFIG);
    const config = parseDecoderConfig(json, { unmodelled: "read" });
    return config.unmodelled === undefined ? null : config;
  } catch (e) {
    if (e instanceof InputError) return null;
    throw e;
  }
}

/** A coded refusal of the checkpoint reader, as a failure. */
function _refusal(e: BitauditError, recordType: string): CheckpointFailure {
  // Weights the stacks' loaders read in a way not modelled (a dtype they cast other than F32 and
  // F16, whose casts are modelled, a NaN in an F32 or F16 tensor, a tensor they drop, a header the
  // format's reference reader reads all the same) are no evidence against the record. The reader
  // keeps them here (the checkpoint comes back with `ckpt.unmodelled`); refused all the same, they
  // are a feature not modelled: NOT_VERIFIED, never FAIL.
  if (
    e.code === "CONFIG_UNSUPPORTED" || e.code === "CHECKPOINT_LOAD_UNMODELLED" ||
    e.code === "SAFETENSORS_OFF_FORMAT"
  ) {
    return { kind: "unsupported-config", message: e.message };
  }
  if (e.code === "CONFIG_MODEL_TYPE") {
    return { kind: "type-contradiction", recordType, refusal: e.message };
  }
  return { kind: "invalid-checkpoint", code: e.code, message: e.message };
}
