/**
 * Claim records: one computation a prover states it ran, as an in-toto Statement v1 whose
 * predicate records the five factors of the governance protocol (hardware SKU, exact weights,
 * parallelism topology, software stack and kernels, batch composition), the inputs, the
 * fingerprint (SHA-256 of a named output tensor's raw little-endian bytes) and the record's place
 * in the log. Floats never appear: integers, hex digests and names only.
 *
 * The workload is a tagged union (`workload.kind`); this version defines `gemm`
 * (y = x W^T), the layer blocks `attention_block` and `ffn_block`, `model_forward` (a prefill
 * of a Qwen3 checkpoint fingerprinted at the last layer's hidden state) and `sequence` (one
 * sequence through the passes of a continuous-batching engine); other kinds are kept verbatim
 * and reported NOT_VERIFIED.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { canonicalJson } from "./canonical_json.ts";
import { sha256Hex } from "../sha256_hex.ts";
import { parseGemmWorkload } from "./gemm_workload.ts";
import { assertJsonSafe } from "./assert_json_safe.ts";
import {
  arrayValue,
  child,
  children,
  type Fields,
  fieldsOf,
  int,
  ints,
  onlyKnown,
  str,
  stringMap,
} from "../json_fields.ts";
import type { GemmWorkload } from "./gemm_workload.ts";
import { type BlockWorkload, parseBlockWorkload } from "./block_workload.ts";
import { type ModelForwardWorkload, parseModelForwardWorkload } from "./model_forward_workload.ts";
import { parseSequenceWorkload, type SequenceWorkload } from "./sequence_workload.ts";

/** A claim log's id: 1-128 letters, digits and `._:-` (no `/`, which names a record in it). */
export const LOG_ID_PATTERN: RegExp = Object.freeze(/^[A-Za-z0-9._:-]{1,128}$/);

/** in-toto Statement v1 type URI. */
export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
/** Predicate type of claim records (major version in the URI). */
export const CLAIM_PREDICATE_TYPE = "https://bitaudit.dev/inference-claim/v1";
/** Digest standing for "no previous record" (record 0). */
export const GENESIS_PREV: string = "0".repeat(64);

/**
 * A workload of a kind this version does not interpret (e.g. a future `decode_step`): kept
 * verbatim so the record still parses, hashes and chains; the verifier reports it NOT_VERIFIED.
 */
export interface OtherWorkload {
  /** Workload kind, lowercase identifier. */
  readonly kind: string;
  /** The remaining fields, as recorded (integers and strings only). */
  readonly [field: string]: unknown;
}

/** Any workload kind. */
export type Workload =
  | GemmWorkload
  | BlockWorkload
  | ModelForwardWorkload
  | SequenceWorkload
  | OtherWorkload;

/**
 * Tells whether a workload is the `gemm` kind this version interprets.
 *
 * @param w a parsed workload
 * @returns true for `gemm`
 * @example
 * ```ts
 * import { isGemmWorkload } from "./claim_record.ts";
 * if (isGemmWorkload({ kind: "model_forward" })) throw new Error();
 * ```
 */
export function isGemmWorkload(w: Workload): w is GemmWorkload {
  return w.kind === "gemm";
}

/**
 * Tells whether a workload is one of the layer-block kinds this version interprets.
 *
 * @param w a parsed workload
 * @returns true for `attention_block` and `ffn_block`
 * @example
 * ```ts
 * import { isBlockWorkload } from "./claim_record.ts";
 * if (isBlockWorkload({ kind: "gemm" })) throw new Error();
 * ```
 */
export function isBlockWorkload(w: Workload): w is BlockWorkload {
  return w.kind === "attention_block" || w.kind === "ffn_block";
}

/**
 * Tells whether a workload is the `model_forward` kind this version interprets.
 *
 * @param w a parsed workload
 * @returns true for `model_forward`
 * @example
 * ```ts
 * import { isModelForwardWorkload } from "./claim_record.ts";
 * if (isModelForwardWorkload({ kind: "gemm" })) throw new Error();
 * ```
 */
export function isModelForwardWorkload(w: Workload): w is ModelForwardWorkload {
  return w.kind === "model_forward";
}

/**
 * Tells whether a workload is the `sequence` kind this version interprets.
 *
 * @param w a parsed workload
 * @returns true for `sequence`
 * @example
 * ```ts
 * import { isSequenceWorkload } from "./claim_record.ts";
 * if (isSequenceWorkload({ kind: "gemm" })) throw new Error();
 * ```
 */
export function isSequenceWorkload(w: Workload): w is SequenceWorkload {
  return w.kind === "sequence";
}

/** The claim predicate. */
export interface ClaimPredicate {
  /** Place in the log: log id, sequence number, digest of the previous record. */
  readonly log: { readonly logId: string; readonly seq: number; readonly prev: string };
  /** Hardware SKU: GPU profile id and the sha256 of the profile file, and the GPU count. */
  readonly hardware: {
    readonly profile: string;
    readonly profileSha256: string;
    readonly count: number;
  };
  /** Software stack name and component versions (free-form strings). */
  readonly software: {
    readonly stack: string;
    readonly components: Readonly<Record<string, string>>;
  };
  /**
   * Parallelism topology: tensor, pipeline, expert and data parallel degrees, and (tp above 1)
   * the all-reduce every call site of the pass ran: `kind` and the settings that fix its order
   * (`ClaimedAllReduce` in `kernels/allreduce/`, which the verifier reads it with; optional at
   * tp = 2, where every implementation gives the same bits).
   */
  readonly parallelism: {
    readonly tp: number;
    readonly pp: number;
    readonly ep: number;
    readonly dp: number;
    readonly allReduce?: ClaimedAllReduceFields;
    /**
     * How the tensor-parallel GPUs are linked (tp above 1 only): what vLLM's all-reduce dispatch
     * reads, one of `INTERCONNECTS` in `kernels/allreduce/` (the verifier reads it; another name is
     * NOT_VERIFIED). Absent: the stack's stated setup holds.
     */
    readonly interconnect?: string;
  };
  /** Batch composition: rows of the forward pass (all requests batched together). */
  readonly batch: { readonly size: number };
  /** What was computed. */
  readonly workload: Workload;
  /** SHA-256 of the named output tensor's raw little-endian bytes. */
  readonly fingerprint: {
    readonly tensor: string;
    readonly dtype: string;
    readonly shape: readonly number[];
    readonly sha256: string;
  };
}

/** A claim record (an in-toto Statement). */
export interface ClaimRecord {
  /** The in-toto Statement type. */
  readonly _type: typeof STATEMENT_TYPE;
  /** The one subject: the record's log position and its fingerprint digest. */
  readonly subject: readonly [
    { readonly name: string; readonly digest: { readonly sha256: string } },
  ];
  /** The claim predicate type. */
  readonly predicateType: typeof CLAIM_PREDICATE_TYPE;
  /** What was computed, on what, and its output's fingerprint. */
  readonly predicate: ClaimPredicate;
}

/**
 * Builds a record from its predicate (the subject names the log position and carries the
 * fingerprint digest).
 *
 * @param predicate the predicate
 * @returns the record
 * @example
 * ```ts ignore
 * const record = makeClaimRecord(predicate);
 * ```
 */
export function makeClaimRecord(predicate: ClaimPredicate): ClaimRecord {
  return {
    _type: STATEMENT_TYPE,
    subject: [{
      name: `bitaudit-claim:${predicate.log.logId}/${predicate.log.seq}`,
      digest: { sha256: predicate.fingerprint.sha256 },
    }],
    predicateType: CLAIM_PREDICATE_TYPE,
    predicate,
  };
}

/**
 * Digest of a record: lowercase hex SHA-256 of its RFC 8785 canonical JSON.
 *
 * @param record a record (validated or freshly built)
 * @returns 64 hex digits
 * @throws {TypeError} when the record holds non-integer numbers
 * @example
 * ```ts
 * import { recordDigest } from "./claim_record.ts";
 * if (recordDigest({ b: 1, a: "x" } as never) !== recordDigest({ a: "x", b: 1 } as never)) throw new Error();
 * ```
 */
export function recordDigest(record: ClaimRecord): string {
  return sha256Hex(canonicalJson(record));
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Validates a parsed record strictly: every object of the record may hold only its known fields
 * (except the free-form `software.components`, the recipe descriptor and workloads of kinds this
 * version does not interpret, which are kept verbatim), so the record built here, and thus its
 * digest, holds everything the parsed value held. Parse the line with `parseStrictJson` first:
 * duplicate keys and non-integer number forms are invisible after parsing.
 *
 * @param json parsed JSON value
 * @param where location for messages, e.g. `line 3`
 * @returns the record
 * @throws {InputError} `CLAIM_INVALID` or `CLAIM_VERSION` naming the field
 * @example
 * ```ts
 * import { parseClaimRecord } from "./claim_record.ts";
 * import { InputError } from "../errors.ts";
 * try {
 *   parseClaimRecord({}, "line 1");
 *   throw new Error("accepted");
 * } catch (e) {
 *   if (!(e instanceof InputError) || e.code !== "CLAIM_INVALID") throw e;
 * }
 * ```
 */
export function parseClaimRecord(json: unknown, where: string): ClaimRecord {
  const bad = (path: string, why: string): never => {
    throw new InputError("CLAIM_INVALID", `Cannot read claim (${where}): '${path}' ${why}`);
  };
  const r = fieldsOf(json, "$", bad);
  if (r.obj._type !== STATEMENT_TYPE) bad("$._type", `must be '${STATEMENT_TYPE}'`);
  if (r.obj.predicateType !== CLAIM_PREDICATE_TYPE) {
    throw new InputError(
      "CLAIM_VERSION",
      `Cannot read claim (${where}): unsupported predicateType ${
        JSON.stringify(String(r.obj.predicateType).slice(0, 100))
      }`,
    );
  }
  onlyKnown(r, ["_type", "subject", "predicateType", "predicate"]);
  const p = child(r, "predicate", [
    "log",
    "hardware",
    "software",
    "parallelism",
    "batch",
    "workload",
    "fingerprint",
  ]);
  const count = { min: 0, max: Number.MAX_SAFE_INTEGER };
  const degree = { min: 1, max: Number.MAX_SAFE_INTEGER };
  const log = child(p, "log", ["logId", "seq", "prev"]);
  const hw = child(p, "hardware", ["profile", "profileSha256", "count"]);
  const sw = child(p, "software", ["stack", "components"]);
  const par = child(p, "parallelism", ["tp", "pp", "ep", "dp", "allReduce", "interconnect"]);
  const fp = child(p, "fingerprint", ["tensor", "dtype", "shape", "sha256"]);
  const predicate: ClaimPredicate = {
    log: {
      logId: str(log, "logId", LOG_ID_PATTERN),
      seq: int(log, "seq", count),
      prev: str(log, "prev", HEX64),
    },
    hardware: {
      profile: str(hw, "profile", /^[a-z0-9][a-z0-9-]{0,63}$/),
      profileSha256: str(hw, "profileSha256", HEX64),
      count: int(hw, "count", degree),
    },
    software: {
      stack: str(sw, "stack", TEXT),
      components: stringMap(sw, "components", TEXT, { pattern: TEXT, max: MAX_COMPONENTS }),
    },
    parallelism: _parallelism(par, { bad }),
    batch: { size: int(child(p, "batch", ["size"]), "size", degree) },
    workload: _workload(p.obj.workload, { where, bad }),
    fingerprint: {
      tensor: str(fp, "tensor", TEXT),
      dtype: str(fp, "dtype", TEXT),
      shape: ints(fp, "shape", count),
      sha256: str(fp, "sha256", HEX64),
    },
  };
  const subjects = children(r, "subject", ["name", "digest"]);
  if (subjects.length !== 1) bad("$.subject", "must hold one entry");
  const subject = subjects[0]!;
  const digest = str(child(subject, "digest", ["sha256"]), "sha256");
  const record = makeClaimRecord(predicate);
  if (str(subject, "name") !== record.subject[0].name || digest !== predicate.fingerprint.sha256) {
    bad("$.subject[0]", "must name the log position and carry the fingerprint digest");
  }
  return record;
}

/**
 * A record's all-reduce as JSON: a `kind` and only the fields an implementation's settings use
 * (`protocol`, `chunkBytes`, `rings`, `trees`); their meaning is checked by the verifier.
 */
export interface ClaimedAllReduceFields {
  /** Implementation name, e.g. `nccl-ring`. */
  readonly kind: string;
  /** Other settings, by name. */
  readonly [field: string]: unknown;
}

/** Most ranks of one parallel dimension a record may claim. */
const MAX_DEGREE = 4096;

function _parallelism(
  par: Fields,
  o: { readonly bad: (path: string, why: string) => never },
): ClaimPredicate["parallelism"] {
  const range = { min: 1, max: MAX_DEGREE };
  const read = (key: string) => int(par, key, range);
  const tp = read("tp");
  const degrees = { tp, pp: read("pp"), ep: read("ep"), dp: read("dp") };
  let base: ClaimPredicate["parallelism"] = degrees;
  if (par.obj.interconnect !== undefined) {
    const at = "$.predicate.parallelism.interconnect";
    if (tp < 2) o.bad(at, "is only meaningful with tp above 1");
    base = { ...degrees, interconnect: str(par, "interconnect", /^[a-z0-9][a-z0-9-]{0,63}$/) };
  }
  if (par.obj.allReduce === undefined) return base;
  const path = "$.predicate.parallelism.allReduce";
  if (tp < 2) o.bad(path, "is only meaningful with tp above 1");
  return { ...base, allReduce: _allReduceFields(par.obj.allReduce, { path, bad: o.bad }) };
}

/**
 * The fields of a recorded all-reduce: a kind and its settings, and for `vllm-dispatch` the NCCL
 * settings of the messages the dispatch sends there (`nccl`, the same fields, not nested again).
 */
function _allReduceFields(
  value: unknown,
  o: {
    readonly path: string;
    readonly bad: (path: string, why: string) => never;
    readonly nested?: boolean;
  },
): ClaimedAllReduceFields {
  const { path } = o;
  const a = fieldsOf(value, path, o.bad);
  onlyKnown(a, ["kind", "protocol", "chunkBytes", "rings", "trees", ...(o.nested ? [] : ["nccl"])]);
  const out: Record<string, unknown> = { kind: str(a, "kind", /^[a-z0-9][a-z0-9-]{0,63}$/) };
  if (a.obj.protocol !== undefined) out.protocol = str(a, "protocol", /^(simple|ll|ll128)$/);
  if (a.obj.chunkBytes !== undefined) {
    out.chunkBytes = int(a, "chunkBytes", { min: 1, max: 1 << 30 });
  }
  const rank = { min: 0, max: MAX_DEGREE - 1 };
  const one = (key: string) => {
    const list = a.obj[key];
    if (!Array.isArray(list) || list.length !== 1) o.bad(`${path}.${key}`, "must hold one channel");
    return arrayValue(list, { path: `${path}.${key}`, fail: o.bad, max: 1 });
  };
  const ranks = (v: unknown, at: string, max: number) => {
    if (!Array.isArray(v) || v.length > max) o.bad(at, `must be a list of at most ${max} ranks`);
    return arrayValue(v, { path: at, fail: o.bad, max }).map((r, i) =>
      int({ path: at, obj: { [i]: r }, fail: o.bad } as Fields, String(i), rank)
    );
  };
  if (a.obj.rings !== undefined) {
    out.rings = one("rings").map((r, i) => ranks(r, `${path}.rings[${i}]`, MAX_DEGREE));
  }
  if (a.obj.trees !== undefined) {
    out.trees = one("trees").map((t, i) => {
      const f = fieldsOf(t, `${path}.trees[${i}]`, o.bad);
      onlyKnown(f, ["down"]);
      const down = f.obj.down;
      if (!Array.isArray(down) || down.length > MAX_DEGREE) {
        o.bad(`${f.path}.down`, "must be a list");
      }
      const subtrees = arrayValue(down, { path: `${f.path}.down`, fail: o.bad, max: MAX_DEGREE });
      return { down: subtrees.map((d, r) => ranks(d, `${f.path}.down[${r}]`, 3)) };
    });
  }
  if (a.obj.nccl !== undefined) {
    out.nccl = _allReduceFields(a.obj.nccl, { path: `${path}.nccl`, bad: o.bad, nested: true });
  }
  return Object.freeze(out as ClaimedAllReduceFields);
}

/**
 * Free text of a claim (names, versions): 1 to 200 characters, counted as code points, as the
 * published schema's `maxLength` counts them (an emoji is one, not two UTF-16 units).
 */
const TEXT = /^.{1,200}$/su;
/** Most components a record may name (each name and value 1 to 200 characters). */
const MAX_COMPONENTS = 128;

function _workload(
  json: unknown,
  ctx: { where: string; bad: (path: string, why: string) => never },
): Workload {
  const kind = (json as { kind?: unknown } | null)?.kind;
  if (kind === "gemm" || typeof json !== "object" || json === null || Array.isArray(json)) {
    return parseGemmWorkload(json, ctx);
  }
  if (kind === "attention_block" || kind === "ffn_block") return parseBlockWorkload(json, ctx);
  if (kind === "model_forward") return parseModelForwardWorkload(json, ctx);
  if (kind === "sequence") return parseSequenceWorkload(json, ctx);
  if (typeof kind !== "string" || !/^[a-z][a-z0-9_]{0,63}$/.test(kind)) {
    return ctx.bad("$.predicate.workload.kind", "must be a lowercase identifier");
  }
  try {
    assertJsonSafe(json, "$.predicate.workload");
  } catch (e) {
    return ctx.bad("$.predicate.workload", (e as Error).message);
  }
  return Object.freeze({ ...(json as Record<string, unknown>), kind });
}
