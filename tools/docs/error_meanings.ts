/**
 * One line per error code for `docs/errors.md`: what the refused input was, in the words of the
 * messages that carry the code. The list of codes, their classes, families and exit codes come from
 * the code itself (`src/errors.ts`, `src/cli/exit_codes.ts`); a code missing here is listed with
 * its family's meaning.
 *
 * @module
 */

/** Code -> meaning (sentence case, no final period). */
export const ERROR_MEANINGS: Readonly<Record<string, string>> = Object.freeze({
  // Assets
  PROFILE_UNKNOWN: "No GPU profile has this id (in an audit: that record is NOT_VERIFIED)",
  STACK_UNKNOWN: "No stack profile has this id (in an audit: that record is NOT_VERIFIED)",
  CATALOG_UNKNOWN: "No dispatch catalog has this id (in an audit: that record is NOT_VERIFIED)",
  RECIPE_UNKNOWN: "No GEMM recipe has this name (in an audit: that record is NOT_VERIFIED)",
  SFU_TABLE_LAYOUT: "The SFU table's directory (table count, names, rows) is not the expected one",
  SFU_TABLE_LENGTH: "The SFU table file has another byte length than its layout implies",
  SFU_TABLE_MAGIC: "The SFU table file does not start with the magic 'BSFU'",
  SFU_TABLE_TRUNCATED: "The SFU table file is shorter than its 16-byte header",
  SFU_TABLE_VERSION: "The SFU table file has a format version this release does not read",
  ASSET_DIGEST_MISMATCH: "An asset's SHA-256 differs from the manifest's (tampered or stale)",
  ASSET_INVALID: "A bundled asset passed its digest but does not parse or declares another id " +
    "than its name (the manifest was changed with it: the install is tampered)",
  ASSET_FILE_INVALID: "An asset file given on the command line does not parse or declares " +
    "another id than its name",
  ASSET_MISSING:
    "An asset listed in the manifest cannot be read (a read Deno refuses is `PERMISSION`)",
  ASSET_NOT_LISTED: "The file is not in the asset manifest, so it is not loaded",
  ASSET_SIZE_MISMATCH: "An asset's byte length differs from the manifest's",
  MANIFEST_INVALID: "`tables/manifest.json` is not a valid manifest",
  MANIFEST_MISSING: "`tables/manifest.json` cannot be read (a read Deno refuses is `PERMISSION`)",
  // Files
  BLOB_DIGEST_MISMATCH: "A blob's bytes do not hash to its file name",
  BLOB_READ: "A blob is not a regular file or cannot be read",
  BLOB_CHANGED:
    "A blob's bytes changed after it was hashed (written while in use): the command stops, nothing is judged",
  BLOB_TOO_LARGE: "A blob is larger than the limit for its kind (checked before reading)",
  BYTE_SOURCE_SHORT_READ: "A ranged read returned fewer bytes than asked for",
  FILE_CLOSED: "A read on a file handle that was already closed",
  FILE_OPEN: "A file cannot be opened, or is not a regular file",
  FILE_SHORT_READ: "A file ended before the bytes its header promised",
  INPUT_JSON: "An input file given on the command line is not strict JSON",
  INPUT_MISSING: "An input file (or key file) does not exist or is not a file",
  INPUT_TOO_LARGE: "An input file is larger than the command's limit for it",
  INPUT_UTF8: "An input file is not valid UTF-8",
  OUTPUT_EXISTS: "The output already exists (never overwritten), or a shard's output holds " +
    "lines that are not this shard's results",
  OUTPUT_REPLACED:
    "A file being written (audit work's partial results) was replaced by a link or another file",
  OUTPUT_WRITE: "An output file or folder cannot be created or written",
  // Safetensors
  SAFETENSORS_BYTE_LENGTH: "A tensor's byte range does not match its dtype and shape",
  SAFETENSORS_DTYPE: "A tensor names an unknown dtype",
  SAFETENSORS_DUPLICATE_KEY: "The header holds a duplicate key",
  SAFETENSORS_ENTRY_FIELD:
    "A tensor entry is not an object, or a field is missing or of the wrong type",
  SAFETENSORS_GAP: "Bytes between two tensors belong to no tensor",
  SAFETENSORS_HEADER_JSON: "The header is not strict JSON",
  SAFETENSORS_HEADER_NOT_OBJECT: "The header is JSON but not an object",
  SAFETENSORS_HEADER_TOO_LARGE:
    "The header's length or JSON value count exceeds the reader's limit (for a checkpoint: what " +
    "the tensors its config explains take)",
  SAFETENSORS_HEADER_TRUNCATED: "The header length exceeds the bytes after the 8-byte prefix",
  SAFETENSORS_HEADER_UTF8: "The header is not valid UTF-8",
  SAFETENSORS_METADATA:
    "`__metadata__` is not an object of strings, or holds over 1,024 entries or 1 MiB of " +
    "text, or its `format` is one the stack's loader refuses (HF Transformers 4.5x: other than " +
    "pt, tf, flax, mlx)",
  SAFETENSORS_MISSING_TENSOR: "A tensor the caller asked for is not in the file",
  SAFETENSORS_OFF_FORMAT:
    "The header departs from the format in a way its reference reader reads all the same: it " +
    "opens with whitespace, holds a carriage return between tokens, or a tensor entry has a " +
    "field the format does not define",
  SAFETENSORS_OFFSETS: "A tensor's `data_offsets` are not two safe integers with begin <= end",
  SAFETENSORS_OFFSET_RANGE: "A tensor ends past the end of the data buffer",
  SAFETENSORS_OVERLAP: "Two tensors' byte ranges overlap",
  SAFETENSORS_SHAPE: "A dimension is not a safe non-negative integer, or the element count " +
    "exceeds 2^53 - 1",
  SAFETENSORS_TOO_SHORT: "The file has fewer than 8 bytes",
  SAFETENSORS_TRAILING_BYTES: "The data buffer holds bytes after the last tensor",
  // Measured vectors
  VECTOR_NOT_REPRESENTABLE: "A measured input value is not representable in the set's format",
  VECTOR_SET_CAPTURE:
    "A vector set's `capture.json` is not JSON or disagrees with its files or the format",
  VECTOR_SET_LAYOUT:
    "A vector set folder lacks a file, holds several of one kind, or more than 16 output files",
  VECTOR_SET_MISSING: "A vector set folder cannot be read, or a vector root holds no " +
    "`<GPU>/<format>/` set",
  VECTOR_SET_SHAPE: "A vector set's files disagree on rows or widths",
  VECTOR_SET_TOO_LARGE: "A vector file is larger than 64 MiB",
  VECTOR_TEXT_SYNTAX: "A line of a vector file is not the expected number of fp32 words",
  DEMO_UNKNOWN_GPU: "A bundled vector folder names a GPU that no profile maps to",
  // Claims
  CLAIM_INVALID: "A claim record breaks the schema or the strict parser (line and JSON path " +
    "named), or `claims append` facts disagree",
  CLAIM_VERSION: "A claim record has a predicate type this release does not read",
  HISTORY_INVALID: "A serving history blob is not its exact canonical encoding, is over a limit " +
    "or contradicts itself",
  LOG_CHAIN: "A claim log line breaks the chain (sequence number or previous digest)",
  LOG_EMPTY: "The claim log has no records",
  LOG_SYNTAX: "A claim log line is not strict JSON",
  LOG_TOO_LARGE: "The claim log exceeds its byte or record limit",
  LOG_TOO_SHORT: "The log has fewer records than the newer checkpoint commits to",
  LOG_LOCKED: "Another running append holds the log's lock (the message names its process; retry " +
    "when it ends). A lock file that a killed append left is held by no process and is taken " +
    "over; a file at the lock's name that no append wrote (anything but an empty file or a " +
    "process id line) is refused and left as it is",
  // Audits
  AUDIT_K: "k is not an integer in 1..population",
  AUDIT_ROOT_MISMATCH: "The log's Merkle root differs from the committed root given",
  AUDIT_SEED: "The audit seed cannot be derived from the inputs",
  GEMM_DTYPE: "The operands of `gemm` are not both BF16 or both F16",
  GEMM_SHAPE: "The operands of `gemm` are not 2-D or their K differ",
  GEMM_TOO_LARGE: "The `gemm` output would exceed `--max-output-mib`",
  GEMM_UNSUPPORTED: "The GPU profile has no MMA datapath for the operands' format",
  RECIPE_INVALID: "A recipe file does not describe a GEMM recipe, or is named after a bundled " +
    "recipe whose body it does not have (in an audit: a record naming one FAILs)",
  SCENARIO_INVALID: "A prover scenario is malformed, or makes an honest record that FAILs",
  SCENARIO_UNCOVERED: "A scenario record's GEMM shape is not covered by its dispatch catalog",
  SCENARIO_UNSUPPORTED: "A scenario record needs something the emulator does not model",
  // Attestation
  BAD_BASE64: "A base64 field does not decode",
  BAD_ENVELOPE: "An attestation (DSSE envelope, Sigstore bundle) is malformed, or is a trust root",
  BAD_KEY:
    "A key is not an Ed25519 PKCS#8 (private) or SPKI (public) key of the right length (a key of another algorithm, private or public, is named)",
  BAD_PEM:
    "A PEM file is not one strict block with its label: the line and what was found are named (a byte order mark, a Unicode space, text around the block, another label), or it is empty",
  BAD_STATEMENT: "An in-toto statement is malformed, or (bundle) is not an audit verdict",
  BAD_TIMESTAMP: "A time is not RFC 3339 UTC to the second",
  BAD_TRUST_ROOT: "A trust root is malformed (unknown field, bad window, bad key)",
  ENVELOPE_TOO_LARGE: "An envelope or bundle exceeds its byte limit",
  KEYID_MISMATCH: "A trust root's `keyid` is not the SHA-256 of its public key",
  KEY_PERMISSIONS: "A private key file is readable or writable by group or others",
  // Pools
  ESTIMATE_FOREIGN: "A pilot result given to `audit estimate` is not an item of this plan",
  MERGE_ASSET_CONFLICT:
    "Workers used two versions (digests) of one asset, or one that is not the inspector's own",
  MERGE_CONFLICT: "Two results of one item differ in their canonical bytes",
  MERGE_FOREIGN: "A result belongs to another plan (another plan's digest, an item the plan " +
    "does not hold, or computed under another budget a record than the plan's)",
  MERGE_MISMATCH: "A result is about another record than its item",
  MERGE_REVERIFY_MISMATCH: "A result re-verified on the inspector's machine differs from the " +
    "worker's (nothing is signed)",
  MERGE_VERSION: "A result was computed by another build (another verifier version, or another " +
    "asset manifest: other code or tables)",
  NATS_CONNECT:
    "The NATS server cannot be reached, refused the credentials, or failed the TLS checks",
  BAD_NATS_ACCESS:
    "A `--nats-creds`, `--nats-ca`, `--nats-cert` or `--nats-cert-key` file is not what the option takes",
  NATS_SERVER:
    "The NATS server offers no JetStream, refused a stream operation or a work order (or " +
    "reported one as a duplicate: another client published under its id first), holds a stream " +
    "of another retention, storage or seal or with a purge or delete ban, or the connection closed (the client gave up " +
    "reconnecting) while a coordinator or worker used it",
  ORDER_INVALID: "A work order received from the pool is malformed",
  PLAN_INVALID: "A plan file is not its exact canonical bytes, carries no signature, or its " +
    "seed, sample or evidence do not recompute",
  PLAN_LOG_MISMATCH: "The claim log is not the one the plan (or work order) was made for",
  PLAN_SIGNATURE: "A plan is not signed by every `--key` that signs the verdict (`audit merge`, " +
    "`audit serve`), or such a signature does not verify over the plan as it reads now",
  RESULT_INCONSISTENT: "A result contradicts its own status (e.g. a PASS without its steps)",
  RESULT_INVALID: "A results line is not a canonical signed result, or is cut short",
  RESULT_SIGNATURE: "A result's signature does not verify over its exact bytes",
  RESULT_UNKNOWN_WORKER: "A result is signed by a key not given with `--worker-pub`",
  SIGNING_KEY_REFUSED:
    "The `--trust-root` given to `audit`, `audit merge` or `audit serve` would " +
    "count fewer signatures than `check` requires: no `--key` is an inspector key of the root " +
    "valid at the verdict's time and now (not listed, another role's, revoked, expired or not yet " +
    "valid), as `check` would find: nothing is signed",
  WORKER_KEY_REFUSED:
    "A worker key is one the inspector may not accept: the `--trust-root` given " +
    "to `audit`, `audit merge` or `audit serve` refuses a key that computed a result (a prover key " +
    "of the root, or an inspector key of it not valid at the verdict's time), as `check` would; " +
    "or a `--worker-pub` of `audit merge` or `audit serve` signed the plan (an inspector's key " +
    "never doubles as a worker key): nothing is signed or computed. A `bitaudit worker` whose " +
    "`--key` a work order names among the plan's signers does not exit: it says `worker: refused " +
    "an order: ...`, hands the order back and goes on",
  // Trust inputs
  ANNOUNCEMENT_LATE: "The announced round is not published after the announcement time (or " +
    "the announcement's RFC 3161 token dates it at or after the round)",
  ANNOUNCEMENT_MISMATCH: "The announcement names another checkpoint, k, chain, round or audit " +
    "id, is signed by none of the audit's `--key` files, is dated before the checkpoint it names " +
    "was signed (beyond the five minutes of clock skew every check allows), or its RFC 3161 " +
    "token covers none of its signatures; or the audit id has the announced form " +
    "(`announced-...`) and there is no announcement",
  BAD_ANNOUNCEMENT: "An announcement is malformed or not signed as required",
  BAD_BEACON: "A drand chain info or round is malformed, or a chain info does not hash to its " +
    "chain",
  BAD_CHECKPOINT: "A C2SP checkpoint is malformed or cannot be signed",
  BAD_NOTE: "A C2SP signed note is malformed",
  BAD_NOTE_KEY: "A note verifier key is malformed",
  BAD_TIMESTAMP_TOKEN:
    "An RFC 3161 time-stamp token is malformed, or (bundle) is not over the attestation's signature",
  BEACON_INVALID: "A drand round's signature does not verify, or its chain is not pinned",
  BEACON_TOO_EARLY: "The drand round was published before the checkpoint was signed",
  CHECKPOINT_MISMATCH:
    "The checkpoint commits to another size or root than the log's, or two checkpoints name different logs",
  CHECKPOINT_SIGNATURE:
    "The checkpoint has no valid (timestamped) signature by the prover key, or its cosignature states a time after 9999-12-31T23:59:59Z (`bad-timestamp`: no RFC 3339 time can write it)",
  // Verdict predicate
  VERDICT_ASSETS: "`check`: a verdict of this bitaudit release names an asset at another digest " +
    "than this release's manifest, or one it does not list (an install whose assets were changed " +
    "computed it): the attestation is INVALID",
  VERDICT_FIELD_MISSING: "A verdict predicate lacks a required field",
  VERDICT_FIELD_UNKNOWN: "A verdict predicate holds a field this release does not know",
  VERDICT_FIELD_TYPE: "A verdict predicate field has the wrong JSON type",
  VERDICT_FIELD_VALUE: "A verdict predicate field has a value out of range, or results that " +
    "contradict their status",
  // Models
  CHECKPOINT_AMBIGUOUS: "The checkpoint folder holds a `*.safetensors` besides its weight files " +
    "(`model.safetensors`, or the shards the index lists), which vLLM would load and HF " +
    "Transformers not",
  CHECKPOINT_DIGEST: "The weight files cannot be hashed",
  CHECKPOINT_DIR: "The checkpoint path is not a directory",
  CHECKPOINT_DUPLICATE_TENSOR:
    "A tensor is in two weight files, or two weight files are committed to the same blob",
  CHECKPOINT_LOAD_UNMODELLED:
    "The weights are loaded in a way bitaudit does not model: a tensor of another dtype than " +
    "BF16, F32 or F16 (loaders cast it; the F32 and F16 casts are modelled), an F32 or F16 " +
    "tensor holding a NaN (its cast's pattern depends on where it runs), a tensor the model does " +
    "not have (loaders drop or refuse it), or a weight file whose header departs from the format " +
    "in a way its reference reader accepts; the verifier reports such a record NOT_VERIFIED",
  CHECKPOINT_INDEX:
    "`model.safetensors.index.json` is inconsistent with the shards, names a shard that is not a `*.safetensors`, or sits beside a `model.safetensors`",
  CHECKPOINT_JSON: "`config.json` or the index is too large or not UTF-8 JSON",
  CHECKPOINT_MISSING_FILE: "The index names a weight file that is missing",
  CHECKPOINT_MISSING_TENSOR: "A tensor the config implies is missing",
  CHECKPOINT_NO_CONFIG: "The directory has no `config.json`",
  CHECKPOINT_NO_WEIGHTS: "The directory has neither `model.safetensors` nor an index",
  CHECKPOINT_ROW: "An embedding row outside the vocabulary was asked for",
  CHECKPOINT_SHAPE: "A tensor's shape differs from the one the config implies",
  CONFIG_FIELD: "A `config.json` field has the wrong type or is out of range",
  CONFIG_MODEL_TYPE: "`model_type` is not a supported family",
  CONFIG_READ: "`config.json` cannot be read, is over 1 MiB or is not UTF-8 JSON",
  SYNTH_TOO_LARGE: "`model synth`: one shard's tensors do not fit in memory (give more `--shards`)",
  CONFIG_UNSUPPORTED: "A config feature that is not modelled (a RoPE type, sliding window, " +
    "activation, dtype, unknown field, a size left to the config class's default, or a MoE " +
    "value HF builds but nobody deploys), refused by name",
  TOKENS_INVALID: "A token batch or sequence tokens file is malformed, or does not fit the " +
    "checkpoint or serving history (on a vLLM stack: a sequence longer than its max_model_len)",
  USAGE: "A model command lacks what it needs (e.g. `--sms` for a profile without an SM count, " +
    "`--kernel` for a catalog stack), or asks for a run its stack cannot make (a `--tp` its " +
    "layout cannot split the checkpoint over, a config its engine does not load: no " +
    "`architectures` on vLLM, a float `decoder_sparse_step` on Transformers 5)",
  // Usage
  USAGE_NUMBER: "An integer option is not decimal digits in its range",
  USAGE_AUDIT_ID: "`--audit-id` is not 1-128 of `A-Z a-z 0-9 . _ : -` (printable ASCII, as a " +
    "claim log id: no lookalike or control character)",
  USAGE_KEYS:
    "The same key is given twice (in a trust root: or as both `--pub` and `--prover`), `--worker-pub` cannot be read, or a key is given a role it may not have (the prover's key to sign or compute an audit, the plan's signer to `audit work`)",
  USAGE_NATS: "`--nats` is not a NATS URL (`nats://host:port` or `tls://host:port`)",
  USAGE_PATH: "A path given on the command line is empty, or `key generate --out` names a " +
    "folder (no file name)",
  USAGE_PLAN: "`plan` needs exactly one of `--confidence` or `--k`",
  USAGE_POLICY: "A `--require-*` value is malformed",
  USAGE_RANDOMNESS: "`--randomness` is not 2..1024 hex digits",
  USAGE_RECOMPUTE: "`--recompute` without `--log`, or a flag only a recomputation reads " +
    "(`check --threads`, `check --blobs`) without `--recompute`",
  USAGE_REPEATED: "An option that takes one value is given more than once (only options " +
    "taking several values, such as `--key <files...>`, may repeat)",
  USAGE_ROOT: "`--root` is not 64 hex digits (a log root)",
  USAGE_SHARD: "`--shard` is not `i/n` or `n`",
  USAGE_TIME:
    "`--time` is not an RFC 3339 UTC time to the second, is in the future, or (a verdict's) is before the drand round or the checkpoint the verdict rests on",
  USAGE_TRUST: "The trust inputs do not go together (e.g. `--announcement` without the " +
    "inspector's `--key`)",
});

/** Meanings of the codes that are not bitaudit errors (the host's and the parser's). */
export const HOST_MEANINGS: Readonly<Record<string, string>> = Object.freeze({
  PERMISSION: "Deno refused a permission the command needs (a flag of `deno run` is missing)",
  NOT_FOUND: "A file or folder the command needs does not exist",
  MEMORY: "The machine could not give the memory a computation needs (a buffer allocation " +
    "failed); no record is judged by it",
  FILES: "The process reached its limit of open files (raise `ulimit -n`); no record is judged " +
    "by it",
  USAGE: "The command line does not parse (an unknown option, a missing argument, no command)",
});
