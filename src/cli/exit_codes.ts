/**
 * Process exit codes of the `bitaudit` CLI, and the exit code of every coded error.
 *
 * Each code of {@link AssetCode}, {@link InputCode} and {@link UsageCode} has its row in a table
 * typed by its union, so a code added to a union without an exit code fails type checking.
 *
 * @module
 */
import {
  type AssetCode,
  AssetError,
  type BitauditCode,
  type InputCode,
  InputError,
  type UsageCode,
  UsageError,
} from "../errors.ts";

/**
 * Exit codes: 0 ok/PASS, 1 mismatch or FAIL, 2 usage or input error, 3 NOT_VERIFIED/inconclusive,
 * 4 the host ran out of memory, 5 an asset of this install is tampered with or missing, 6 an
 * attested verdict of this release names assets other than this release's.
 */
export const EXIT = Object.freeze({
  /** Success, verification passed. */
  OK: 0,
  /** A mismatch or a failed verification. */
  FAIL: 1,
  /** Wrong command line or unusable input (an asset file given on the command line included). */
  USAGE: 2,
  /** Nothing wrong was found, but not everything could be verified. */
  INCONCLUSIVE: 3,
  /** The machine ran out of memory before the command finished (no input's fault). */
  RESOURCES: 4,
  /**
   * An asset of this install (its manifest, a profile, table, wasm module or other file the
   * manifest lists) is tampered with, missing or unreadable: no input's fault, and no flag mends
   * it; reinstall bitaudit.
   */
  ASSET: 5,
  /**
   * `check`: the attested verdict names this bitaudit release, but assets other than this
   * release's (a digest that differs, an asset it does not list): it was computed by an install
   * whose assets were changed, so it is not a valid attestation for this release (INVALID).
   */
  OTHER_ASSETS: 6,
  /** A bug in bitaudit itself (an unexpected exception). */
  INTERNAL: 70,
});

/** One of the process exit codes of {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Codes the CLI prints for refusals that are not bitaudit errors: the host's (Deno: a missing
 * permission or file; memory the machine cannot give) and the command-line parser's (an unknown
 * option, a missing argument).
 */
export type HostCode = "PERMISSION" | "NOT_FOUND" | "USAGE" | "MEMORY" | "FILES";

/** Every code the CLI prints in `error [CODE]: ...`. */
export type CliErrorCode = BitauditCode | HostCode;

/**
 * A tampered, missing or unreadable file of this install is the install's fault (`ASSET`), never
 * a usage error, a bundled asset that passed its digest but does not parse (`ASSET_INVALID`: the
 * manifest was changed with it) among them; an id no catalog lists, and an asset file given on
 * the command line that does not parse (`ASSET_FILE_INVALID`), are unusable input.
 */
const _ASSET: Readonly<Record<AssetCode, ExitCode>> = {
  ASSET_DIGEST_MISMATCH: EXIT.ASSET,
  ASSET_FILE_INVALID: EXIT.USAGE,
  ASSET_INVALID: EXIT.ASSET,
  ASSET_MISSING: EXIT.ASSET,
  ASSET_NOT_LISTED: EXIT.ASSET,
  ASSET_SIZE_MISMATCH: EXIT.ASSET,
  CATALOG_UNKNOWN: EXIT.USAGE,
  MANIFEST_INVALID: EXIT.ASSET,
  MANIFEST_MISSING: EXIT.ASSET,
  PROFILE_UNKNOWN: EXIT.USAGE,
  RECIPE_UNKNOWN: EXIT.USAGE,
  SFU_TABLE_LAYOUT: EXIT.ASSET,
  SFU_TABLE_LENGTH: EXIT.ASSET,
  SFU_TABLE_MAGIC: EXIT.ASSET,
  SFU_TABLE_TRUNCATED: EXIT.ASSET,
  SFU_TABLE_VERSION: EXIT.ASSET,
  STACK_UNKNOWN: EXIT.USAGE,
};

/** Refused inputs; a verdict computed with another install's assets has its own code. */
const _INPUT: Readonly<Record<InputCode, ExitCode>> = {
  CHECKPOINT_AMBIGUOUS: EXIT.USAGE,
  CHECKPOINT_DIGEST: EXIT.USAGE,
  CHECKPOINT_DIR: EXIT.USAGE,
  CHECKPOINT_DUPLICATE_TENSOR: EXIT.USAGE,
  CHECKPOINT_LOAD_UNMODELLED: EXIT.USAGE,
  CHECKPOINT_INDEX: EXIT.USAGE,
  CHECKPOINT_JSON: EXIT.USAGE,
  CHECKPOINT_MISSING_FILE: EXIT.USAGE,
  CHECKPOINT_MISSING_TENSOR: EXIT.USAGE,
  CHECKPOINT_NO_CONFIG: EXIT.USAGE,
  CHECKPOINT_NO_WEIGHTS: EXIT.USAGE,
  CHECKPOINT_ROW: EXIT.USAGE,
  CHECKPOINT_SHAPE: EXIT.USAGE,
  CONFIG_FIELD: EXIT.USAGE,
  CONFIG_MODEL_TYPE: EXIT.USAGE,
  CONFIG_READ: EXIT.USAGE,
  CONFIG_UNSUPPORTED: EXIT.USAGE,
  SYNTH_TOO_LARGE: EXIT.USAGE,
  TOKENS_INVALID: EXIT.USAGE,
  USAGE: EXIT.USAGE,
  ANNOUNCEMENT_LATE: EXIT.USAGE,
  ANNOUNCEMENT_MISMATCH: EXIT.USAGE,
  AUDIT_K: EXIT.USAGE,
  AUDIT_ROOT_MISMATCH: EXIT.USAGE,
  AUDIT_SEED: EXIT.USAGE,
  BAD_ANNOUNCEMENT: EXIT.USAGE,
  BAD_BASE64: EXIT.USAGE,
  BAD_BEACON: EXIT.USAGE,
  BAD_CHECKPOINT: EXIT.USAGE,
  BAD_ENVELOPE: EXIT.USAGE,
  BAD_KEY: EXIT.USAGE,
  BAD_NOTE: EXIT.USAGE,
  BAD_NOTE_KEY: EXIT.USAGE,
  BAD_PEM: EXIT.USAGE,
  BAD_STATEMENT: EXIT.USAGE,
  BAD_TIMESTAMP: EXIT.USAGE,
  BAD_TIMESTAMP_TOKEN: EXIT.USAGE,
  BAD_TRUST_ROOT: EXIT.USAGE,
  BEACON_INVALID: EXIT.USAGE,
  BEACON_TOO_EARLY: EXIT.USAGE,
  BLOB_CHANGED: EXIT.USAGE,
  BLOB_DIGEST_MISMATCH: EXIT.USAGE,
  BLOB_READ: EXIT.USAGE,
  BLOB_TOO_LARGE: EXIT.USAGE,
  BYTE_SOURCE_SHORT_READ: EXIT.USAGE,
  CHECKPOINT_MISMATCH: EXIT.USAGE,
  CHECKPOINT_SIGNATURE: EXIT.USAGE,
  CLAIM_INVALID: EXIT.USAGE,
  CLAIM_VERSION: EXIT.USAGE,
  DEMO_UNKNOWN_GPU: EXIT.USAGE,
  ENVELOPE_TOO_LARGE: EXIT.USAGE,
  BAD_NATS_ACCESS: EXIT.USAGE,
  ESTIMATE_FOREIGN: EXIT.USAGE,
  FILE_CLOSED: EXIT.USAGE,
  FILE_OPEN: EXIT.USAGE,
  FILE_SHORT_READ: EXIT.USAGE,
  GEMM_DTYPE: EXIT.USAGE,
  HISTORY_INVALID: EXIT.USAGE,
  GEMM_SHAPE: EXIT.USAGE,
  GEMM_TOO_LARGE: EXIT.USAGE,
  GEMM_UNSUPPORTED: EXIT.USAGE,
  INPUT_JSON: EXIT.USAGE,
  INPUT_MISSING: EXIT.USAGE,
  INPUT_TOO_LARGE: EXIT.USAGE,
  INPUT_UTF8: EXIT.USAGE,
  KEYID_MISMATCH: EXIT.USAGE,
  KEY_PERMISSIONS: EXIT.USAGE,
  LOG_CHAIN: EXIT.USAGE,
  LOG_EMPTY: EXIT.USAGE,
  LOG_SYNTAX: EXIT.USAGE,
  LOG_TOO_LARGE: EXIT.USAGE,
  LOG_TOO_SHORT: EXIT.USAGE,
  LOG_LOCKED: EXIT.USAGE,
  MERGE_ASSET_CONFLICT: EXIT.USAGE,
  MERGE_CONFLICT: EXIT.USAGE,
  MERGE_FOREIGN: EXIT.USAGE,
  MERGE_MISMATCH: EXIT.USAGE,
  MERGE_REVERIFY_MISMATCH: EXIT.USAGE,
  MERGE_VERSION: EXIT.USAGE,
  NATS_CONNECT: EXIT.USAGE,
  NATS_SERVER: EXIT.USAGE,
  ORDER_INVALID: EXIT.USAGE,
  OUTPUT_EXISTS: EXIT.USAGE,
  OUTPUT_REPLACED: EXIT.USAGE,
  OUTPUT_WRITE: EXIT.USAGE,
  PLAN_INVALID: EXIT.USAGE,
  PLAN_LOG_MISMATCH: EXIT.USAGE,
  PLAN_SIGNATURE: EXIT.USAGE,
  RECIPE_INVALID: EXIT.USAGE,
  RESULT_INCONSISTENT: EXIT.USAGE,
  RESULT_INVALID: EXIT.USAGE,
  RESULT_SIGNATURE: EXIT.USAGE,
  RESULT_UNKNOWN_WORKER: EXIT.USAGE,
  SAFETENSORS_BYTE_LENGTH: EXIT.USAGE,
  SAFETENSORS_DTYPE: EXIT.USAGE,
  SAFETENSORS_DUPLICATE_KEY: EXIT.USAGE,
  SAFETENSORS_ENTRY_FIELD: EXIT.USAGE,
  SAFETENSORS_GAP: EXIT.USAGE,
  SAFETENSORS_HEADER_JSON: EXIT.USAGE,
  SAFETENSORS_HEADER_NOT_OBJECT: EXIT.USAGE,
  SAFETENSORS_HEADER_TOO_LARGE: EXIT.USAGE,
  SAFETENSORS_HEADER_TRUNCATED: EXIT.USAGE,
  SAFETENSORS_HEADER_UTF8: EXIT.USAGE,
  SAFETENSORS_METADATA: EXIT.USAGE,
  SAFETENSORS_MISSING_TENSOR: EXIT.USAGE,
  SAFETENSORS_OFF_FORMAT: EXIT.USAGE,
  SAFETENSORS_OFFSETS: EXIT.USAGE,
  SAFETENSORS_OFFSET_RANGE: EXIT.USAGE,
  SAFETENSORS_OVERLAP: EXIT.USAGE,
  SAFETENSORS_SHAPE: EXIT.USAGE,
  SAFETENSORS_TOO_SHORT: EXIT.USAGE,
  SAFETENSORS_TRAILING_BYTES: EXIT.USAGE,
  SCENARIO_INVALID: EXIT.USAGE,
  SCENARIO_UNCOVERED: EXIT.USAGE,
  SCENARIO_UNSUPPORTED: EXIT.USAGE,
  SIGNING_KEY_REFUSED: EXIT.USAGE,
  VECTOR_NOT_REPRESENTABLE: EXIT.USAGE,
  VECTOR_SET_CAPTURE: EXIT.USAGE,
  VECTOR_SET_LAYOUT: EXIT.USAGE,
  VECTOR_SET_MISSING: EXIT.USAGE,
  VECTOR_SET_SHAPE: EXIT.USAGE,
  VECTOR_SET_TOO_LARGE: EXIT.USAGE,
  VECTOR_TEXT_SYNTAX: EXIT.USAGE,
  VERDICT_FIELD_MISSING: EXIT.USAGE,
  VERDICT_FIELD_TYPE: EXIT.USAGE,
  VERDICT_FIELD_UNKNOWN: EXIT.USAGE,
  VERDICT_FIELD_VALUE: EXIT.USAGE,
  VERDICT_ASSETS: EXIT.OTHER_ASSETS,
  WORKER_KEY_REFUSED: EXIT.USAGE,
};

/** Refused command lines. */
const _USAGE: Readonly<Record<UsageCode, ExitCode>> = {
  USAGE_AUDIT_ID: EXIT.USAGE,
  USAGE_KEYS: EXIT.USAGE,
  USAGE_NATS: EXIT.USAGE,
  USAGE_NUMBER: EXIT.USAGE,
  USAGE_PATH: EXIT.USAGE,
  USAGE_PLAN: EXIT.USAGE,
  USAGE_POLICY: EXIT.USAGE,
  USAGE_RANDOMNESS: EXIT.USAGE,
  USAGE_RECOMPUTE: EXIT.USAGE,
  USAGE_REPEATED: EXIT.USAGE,
  USAGE_ROOT: EXIT.USAGE,
  USAGE_SHARD: EXIT.USAGE,
  USAGE_TIME: EXIT.USAGE,
  USAGE_TRUST: EXIT.USAGE,
};

/** Missing permissions and files. */
const _HOST: Readonly<Record<HostCode, ExitCode>> = {
  FILES: EXIT.RESOURCES,
  MEMORY: EXIT.RESOURCES,
  NOT_FOUND: EXIT.USAGE,
  PERMISSION: EXIT.USAGE,
  USAGE: EXIT.USAGE,
};

/**
 * The exit code of a coded error, or of a refusal of the host.
 *
 * @param e the error (its class picks the table, its code the row)
 * @returns the exit code
 * @example
 * ```ts
 * import { EXIT, exitCodeOf } from "./exit_codes.ts";
 * import { AssetError, InputError } from "../errors.ts";
 * if (exitCodeOf(new InputError("LOG_EMPTY", "Cannot read log: empty")) !== EXIT.USAGE) throw new Error();
 * if (exitCodeOf(new AssetError("ASSET_MISSING", "Cannot load 'x'")) !== EXIT.ASSET) throw new Error();
 * if (exitCodeOf({ host: "PERMISSION" }) !== EXIT.USAGE) throw new Error();
 * ```
 */
export function exitCodeOf(e: AssetError | InputError | UsageError | { host: HostCode }): ExitCode {
  if (e instanceof AssetError) return _ASSET[e.code];
  if (e instanceof InputError) return _INPUT[e.code];
  if (e instanceof UsageError) return _USAGE[e.code];
  return _HOST[e.host];
}
