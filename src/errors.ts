/**
 * Coded errors that callers are expected to handle.
 *
 * Misuse of an API throws the built-in classes (`TypeError`, `RangeError`, `SyntaxError`); failures a
 * caller must react to (a tampered asset, a refused input file, a bad command line) carry a stable
 * `code` so that tests and the CLI can branch on it without parsing messages. Each class's codes
 * form a union ({@link AssetCode}, {@link InputCode}, {@link UsageCode}), so a comparison with a
 * code that does not exist fails type checking.
 *
 * @example
 * ```ts
 * import { AssetError, type AssetCode } from "./errors.ts";
 * const e = new AssetError("ASSET_DIGEST_MISMATCH", "Cannot load 'x': digest mismatch");
 * const code: AssetCode = e.code;
 * if (code !== "ASSET_DIGEST_MISMATCH") throw new Error("unexpected");
 * ```
 * @module
 */

/** An asset id that no catalog of its kind lists (the verifier reports NOT_VERIFIED for it). */
export type UnknownAssetCode =
  | "PROFILE_UNKNOWN"
  | "STACK_UNKNOWN"
  | "CATALOG_UNKNOWN"
  | "RECIPE_UNKNOWN";

/** The SFU ROM table file is not the format `decodeSfuTables` reads. */
export type SfuTableCode =
  | "SFU_TABLE_LAYOUT"
  | "SFU_TABLE_LENGTH"
  | "SFU_TABLE_MAGIC"
  | "SFU_TABLE_TRUNCATED"
  | "SFU_TABLE_VERSION";

/** Codes of {@link AssetError}. */
export type AssetCode =
  | "ASSET_DIGEST_MISMATCH"
  | "ASSET_FILE_INVALID"
  | "ASSET_INVALID"
  | "ASSET_MISSING"
  | "ASSET_NOT_LISTED"
  | "ASSET_SIZE_MISMATCH"
  | "MANIFEST_INVALID"
  | "MANIFEST_MISSING"
  | UnknownAssetCode
  | SfuTableCode;

/** Files, byte sources and the blob store. */
export type FileCode =
  | "BLOB_CHANGED"
  | "BLOB_DIGEST_MISMATCH"
  | "BLOB_READ"
  | "BLOB_TOO_LARGE"
  | "BYTE_SOURCE_SHORT_READ"
  | "FILE_CLOSED"
  | "FILE_OPEN"
  | "FILE_SHORT_READ"
  | "INPUT_JSON"
  | "INPUT_MISSING"
  | "INPUT_TOO_LARGE"
  | "INPUT_UTF8"
  | "OUTPUT_EXISTS"
  | "OUTPUT_REPLACED"
  | "OUTPUT_WRITE";

/** A safetensors file breaks the format's rules. */
export type SafetensorsCode =
  | "SAFETENSORS_BYTE_LENGTH"
  | "SAFETENSORS_DTYPE"
  | "SAFETENSORS_DUPLICATE_KEY"
  | "SAFETENSORS_ENTRY_FIELD"
  | "SAFETENSORS_GAP"
  | "SAFETENSORS_HEADER_JSON"
  | "SAFETENSORS_HEADER_NOT_OBJECT"
  | "SAFETENSORS_HEADER_TOO_LARGE"
  | "SAFETENSORS_HEADER_TRUNCATED"
  | "SAFETENSORS_HEADER_UTF8"
  | "SAFETENSORS_METADATA"
  | "SAFETENSORS_MISSING_TENSOR"
  | "SAFETENSORS_OFF_FORMAT"
  | "SAFETENSORS_OFFSETS"
  | "SAFETENSORS_OFFSET_RANGE"
  | "SAFETENSORS_OVERLAP"
  | "SAFETENSORS_SHAPE"
  | "SAFETENSORS_TOO_SHORT"
  | "SAFETENSORS_TRAILING_BYTES";

/** Measured vector sets (files and their text). */
export type VectorSetCode =
  | "VECTOR_NOT_REPRESENTABLE"
  | "VECTOR_SET_CAPTURE"
  | "VECTOR_SET_LAYOUT"
  | "VECTOR_SET_MISSING"
  | "VECTOR_SET_SHAPE"
  | "VECTOR_SET_TOO_LARGE"
  | "VECTOR_TEXT_SYNTAX"
  | "DEMO_UNKNOWN_GPU";

/** Claim records and claim logs. */
export type ClaimCode =
  | "CLAIM_INVALID"
  | "CLAIM_VERSION"
  | "HISTORY_INVALID"
  | "LOG_CHAIN"
  | "LOG_EMPTY"
  | "LOG_LOCKED"
  | "LOG_SYNTAX"
  | "LOG_TOO_LARGE"
  | "LOG_TOO_SHORT";

/** Audits, prover scenarios and the workloads they name. */
export type AuditCode =
  | "AUDIT_K"
  | "AUDIT_ROOT_MISMATCH"
  | "AUDIT_SEED"
  | "GEMM_DTYPE"
  | "GEMM_SHAPE"
  | "GEMM_TOO_LARGE"
  | "GEMM_UNSUPPORTED"
  | "RECIPE_INVALID"
  | "SCENARIO_INVALID"
  | "SCENARIO_UNCOVERED"
  | "SCENARIO_UNSUPPORTED";

/** Keys, envelopes, statements, timestamps and trust roots. */
export type AttestCode =
  | "BAD_BASE64"
  | "BAD_ENVELOPE"
  | "BAD_KEY"
  | "BAD_PEM"
  | "BAD_STATEMENT"
  | "BAD_TIMESTAMP"
  | "BAD_TRUST_ROOT"
  | "ENVELOPE_TOO_LARGE"
  | "KEYID_MISMATCH"
  | "KEY_PERMISSIONS";

/** Distributed audits: plans, work orders, item results and their merge, the NATS pool. */
export type PoolCode =
  | "BAD_NATS_ACCESS"
  | "ESTIMATE_FOREIGN"
  | "MERGE_ASSET_CONFLICT"
  | "MERGE_CONFLICT"
  | "MERGE_FOREIGN"
  | "MERGE_MISMATCH"
  | "MERGE_REVERIFY_MISMATCH"
  | "MERGE_VERSION"
  | "NATS_CONNECT"
  | "NATS_SERVER"
  | "ORDER_INVALID"
  | "PLAN_INVALID"
  | "PLAN_LOG_MISMATCH"
  | "PLAN_SIGNATURE"
  | "RESULT_INCONSISTENT"
  | "RESULT_INVALID"
  | "RESULT_SIGNATURE"
  | "RESULT_UNKNOWN_WORKER"
  | "SIGNING_KEY_REFUSED"
  | "WORKER_KEY_REFUSED";

/** Beacon rounds, signed notes and checkpoints, audit announcements and RFC 3161 timestamps. */
export type TrustCode =
  | "ANNOUNCEMENT_LATE"
  | "ANNOUNCEMENT_MISMATCH"
  | "BAD_ANNOUNCEMENT"
  | "BAD_BEACON"
  | "BAD_CHECKPOINT"
  | "BAD_NOTE"
  | "BAD_NOTE_KEY"
  | "BAD_TIMESTAMP_TOKEN"
  | "BEACON_INVALID"
  | "BEACON_TOO_EARLY"
  | "CHECKPOINT_MISMATCH"
  | "CHECKPOINT_SIGNATURE";

/**
 * Why a verdict predicate was refused (a signed statement is read back strictly, and a verdict of
 * the checker's own release is held to that release's assets).
 */
export type VerdictPredicateCode =
  | "VERDICT_ASSETS"
  | "VERDICT_FIELD_MISSING"
  | "VERDICT_FIELD_UNKNOWN"
  | "VERDICT_FIELD_TYPE"
  | "VERDICT_FIELD_VALUE";

/** Why a model checkpoint, its config, a token batch or a model command was refused. */
export type ModelCode =
  | "CHECKPOINT_AMBIGUOUS"
  | "CHECKPOINT_DIGEST"
  | "CHECKPOINT_DIR"
  | "CHECKPOINT_DUPLICATE_TENSOR"
  | "CHECKPOINT_LOAD_UNMODELLED"
  | "CHECKPOINT_INDEX"
  | "CHECKPOINT_JSON"
  | "CHECKPOINT_MISSING_FILE"
  | "CHECKPOINT_MISSING_TENSOR"
  | "CHECKPOINT_NO_CONFIG"
  | "CHECKPOINT_NO_WEIGHTS"
  | "CHECKPOINT_ROW"
  | "CHECKPOINT_SHAPE"
  | "CONFIG_FIELD"
  | "CONFIG_MODEL_TYPE"
  | "CONFIG_READ"
  | "CONFIG_UNSUPPORTED"
  | "SYNTH_TOO_LARGE"
  | "TOKENS_INVALID"
  | "USAGE";

/** Codes of {@link InputError}. */
export type InputCode =
  | FileCode
  | SafetensorsCode
  | VectorSetCode
  | ClaimCode
  | AuditCode
  | AttestCode
  | TrustCode
  | PoolCode
  | ModelCode
  | VerdictPredicateCode;

/** Codes of {@link UsageError}: a flag's value or a combination of flags is refused. */
export type UsageCode =
  | "USAGE_AUDIT_ID"
  | "USAGE_NUMBER"
  | "USAGE_KEYS"
  | "USAGE_NATS"
  | "USAGE_PATH"
  | "USAGE_PLAN"
  | "USAGE_POLICY"
  | "USAGE_RANDOMNESS"
  | "USAGE_SHARD"
  | "USAGE_RECOMPUTE"
  | "USAGE_REPEATED"
  | "USAGE_ROOT"
  | "USAGE_TIME"
  | "USAGE_TRUST";

/** Every code a bitaudit error carries. */
export type BitauditCode = AssetCode | InputCode | UsageCode;

/**
 * Base class of every coded bitaudit error; only its subclasses are thrown.
 *
 * @typeParam Code the union of codes the subclass carries
 */
export class BitauditError<Code extends BitauditCode = BitauditCode> extends Error {
  /** Stable machine-readable reason, e.g. `"ASSET_DIGEST_MISMATCH"`. */
  readonly code: Code;

  /**
   * Sets the code and the message; only subclasses construct.
   *
   * @param code stable reason code
   * @param message one-line human message, "Cannot <action>: <why>"
   * @param options standard `ErrorOptions` (e.g. `cause`)
   */
  protected constructor(code: Code, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** An asset (profile, table, wasm module, catalog) is missing, tampered with or malformed. */
export class AssetError extends BitauditError<AssetCode> {
  /**
   * Creates an asset error.
   *
   * @param code stable reason code
   * @param message one-line human message, "Cannot <action>: <why>"
   * @param options standard `ErrorOptions` (e.g. `cause`)
   */
  constructor(code: AssetCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/** Input supplied by a user (file, flag, JSON document) cannot be used. */
export class InputError extends BitauditError<InputCode> {
  /**
   * Creates an input error.
   *
   * @param code stable reason code
   * @param message one-line human message, "Cannot <action>: <why>"
   * @param options standard `ErrorOptions` (e.g. `cause`)
   */
  constructor(code: InputCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/** The command line itself is wrong (a flag's value, or flags that do not go together). */
export class UsageError extends BitauditError<UsageCode> {
  /**
   * Creates a usage error.
   *
   * @param code stable reason code
   * @param message one-line human message, "Cannot <action>: <why>"
   * @param options standard `ErrorOptions` (e.g. `cause`)
   */
  constructor(code: UsageCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
  }
}

/**
 * Tells whether an error says an asset id is not listed (as opposed to a tampered or invalid
 * asset): the verifier reports NOT_VERIFIED for the former and stops the audit for the latter.
 *
 * @param e anything caught
 * @returns true for an {@link AssetError} with an {@link UnknownAssetCode}
 * @example
 * ```ts
 * import { AssetError, isUnknownAsset } from "./errors.ts";
 * if (!isUnknownAsset(new AssetError("PROFILE_UNKNOWN", "Cannot load 'x': unknown"))) throw new Error();
 * if (isUnknownAsset(new AssetError("ASSET_INVALID", "Cannot load 'x': bad"))) throw new Error();
 * ```
 */
export function isUnknownAsset(e: unknown): e is AssetError & { readonly code: UnknownAssetCode } {
  return e instanceof AssetError && Object.hasOwn(_UNKNOWN_ASSET, e.code);
}

/** The {@link UnknownAssetCode}s: a record, so that a code added to the union must be listed. */
const _UNKNOWN_ASSET: Readonly<Record<UnknownAssetCode, true>> = {
  PROFILE_UNKNOWN: true,
  STACK_UNKNOWN: true,
  CATALOG_UNKNOWN: true,
  RECIPE_UNKNOWN: true,
};

/**
 * The host lacks a resource a computation needs (memory for a buffer, a file descriptor): a
 * property of the machine the command runs on, never of an input, so it is neither a FAIL nor a
 * NOT_VERIFIED of any record. The CLI stops with `error [MEMORY]` (or `[FILES]`) and its own exit
 * code; nothing is signed.
 */
export class HostResourceError extends Error {
  /** What the host ran short of: memory, or file descriptors (the process's open-file limit). */
  readonly resource: "memory" | "files";

  /**
   * Creates a host resource error.
   *
   * @param message one-line human message, "Cannot <action>: <why>"
   * @param options standard `ErrorOptions` (e.g. `cause`), and `resource` (default "memory")
   */
  constructor(message: string, options?: ErrorOptions & { resource?: "memory" | "files" }) {
    super(message, options);
    this.name = "HostResourceError";
    this.resource = options?.resource ?? "memory";
  }
}

/**
 * The runtime's own messages for an allocation the host could not make (V8, WebAssembly). Not the
 * invalid-length ones (`Invalid typed array length: -1`): those are a size no host gives, a bug
 * or an input let through, not a machine short of memory.
 */
const _ALLOCATION_FAILED =
  /^(Array buffer allocation failed|Out of memory|WebAssembly\.Memory(\.grow)?\(\): could not allocate)/;

/**
 * Tells whether an error is the host running out of memory: a {@link HostResourceError}, or a
 * `RangeError` the runtime throws for an allocation it cannot make. Code that reads a
 * `RangeError` as a record's contradiction must let these through, so that a verifier short of
 * memory never blames the prover.
 *
 * @param e anything caught
 * @returns true when the host, not an input, is at fault
 * @example
 * ```ts
 * import { isHostResourceError } from "./errors.ts";
 * let caught: unknown;
 * try { new SharedArrayBuffer(2 ** 48); } catch (e) { caught = e; } // past the address space
 * if (!isHostResourceError(caught)) throw new Error(String(caught));
 * if (isHostResourceError(new RangeError("Invalid typed array length: -1"))) throw new Error();
 * if (isHostResourceError(new RangeError("Cannot run forward: 3 rows of a call of 2"))) throw new Error();
 * ```
 */
export function isHostResourceError(e: unknown): boolean {
  return e instanceof HostResourceError ||
    (e instanceof RangeError && _ALLOCATION_FAILED.test(e.message));
}
