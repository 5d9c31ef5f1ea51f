/**
 * The verdict predicate: the one typed contract between the verifier that decides a verdict
 * (`verify/`: `runAudit`, `auditVerdict`) and everyone who signs or reads it. It binds the audit id,
 * the public randomness and derived seed, the sampled indices, the evidence policy the audit
 * applied (if any), the detection statement, each record's result, the verdict, the verifier's
 * version and the digest of every asset used.
 *
 * It lives in `attest/` because it is the schema of a signed document: `verify/` computes verdicts
 * and knows nothing of statements; `attest/` imports `verify/`, never the reverse.
 * {@link buildVerdictPredicate} writes it, `parseVerdictPredicate` reads it back strictly.
 *
 * @module
 */
import type {
  AuditReport,
  AuditVerdict,
  ComponentEvidence,
  DetectionStatement,
  EvidenceLevel,
  FailFinding,
  ProverObligation,
  RecordResult,
  RecordStatus,
} from "../verify/mod.ts";
import { encodeBase64 } from "./base64.ts";
import { keyId } from "./key_id.ts";
import { encodeSpki } from "./spki.ts";
import type { DrandBinding } from "./beacon/mod.ts";
import type { DsseEnvelope } from "./dsse.ts";
import type { CheckpointBinding } from "./note/mod.ts";

/** Predicate type of verdicts (major version in the URI). */
export const VERDICT_PREDICATE_TYPE = "https://bitaudit.dev/audit-verdict/v2";

/** Verifier identity recorded in a verdict. */
export interface VerifierInfo {
  /** bitaudit version. */
  readonly version: string;
  /** K-walk engine used (`wasm` or `reference`). */
  readonly engine: string;
  /** Runtime, e.g. `deno 2.9.6`. */
  readonly runtime: string;
}

/** One SFU function a recomputation depended on, with its model and validation status. */
export type VerdictSfuUse = NonNullable<AuditReport["results"][number]["sfu"]>[number];

/** The first element where recomputation and the prover's output differ (bit patterns in hex). */
export type VerdictDifference = {
  /** Flat element index. */
  readonly index: number;
  /** Prover's element bit pattern. */
  readonly claimed: string;
  /** Recomputed element bit pattern. */
  readonly recomputed: string;
};

/** One sampled record's result as signed. */
export type VerdictResult = {
  /** Index in the log. */
  readonly index: number;
  /** Record digest (sha256 hex of the canonical record). */
  readonly record: string;
  /** PASS only when recomputed and compared. */
  readonly status: RecordStatus;
  /** Why, for FAIL and NOT_VERIFIED (empty for PASS). */
  readonly reason: string;
  /** Claimed fingerprint (hex). */
  readonly claimed: string;
  /** Recomputed fingerprint, when recomputation ran. */
  readonly recomputed: string | null;
  /** First differing element, when the prover's full output was available. */
  readonly firstDifference: VerdictDifference | null;
  /** SFU functions used (absent when none was involved). */
  readonly sfu?: readonly VerdictSfuUse[];
  /** How each component the recomputation rested on is known (absent: no recomputation). */
  readonly evidence?: readonly ComponentEvidence[];
  /**
   * The prover obligation not met, when that is why the record FAILed (absent otherwise):
   * `committed-input`, a committed input tensor was missing or did not hash to its digest.
   * NOT_VERIFIED is kept for what the verifier cannot emulate.
   */
  readonly obligation?: ProverObligation;
  /** What a FAIL found (present exactly on FAIL). */
  readonly finding?: FailFinding;
  /** Key id of the worker key that computed and signed this result (absent: nobody returned it). */
  readonly worker?: string;
};

/** One worker key that computed results of the audit. */
export type VerdictWorkerKey = {
  /** `keyId(publicKey)`. */
  readonly keyid: string;
  /** Base64 of the key's SPKI DER (as in trust roots). */
  readonly publicKey: string;
};

/** Who computed the results, and which of them the signer recomputed itself. */
export type VerdictWorkers = {
  /** Every worker key named by a result, sorted by key id. */
  readonly keys: readonly VerdictWorkerKey[];
  /**
   * Log indices whose workers' results the signer recomputed itself before signing and found
   * identical (a seeded random share, `--reverify`), in selection order.
   */
  readonly reverified: readonly number[];
};

/**
 * What was sampled and how: everything needed to recompute the seed and the sample, and the
 * evidence policy the records were judged under.
 */
export type VerdictAudit = {
  /** Audit identifier chosen by the inspector. */
  readonly auditId: string;
  /** Claim log id. */
  readonly logId: string;
  /** Number of records in the log (N). */
  readonly population: number;
  /** Merkle root of the committed log (hex). */
  readonly logRoot: string;
  /**
   * Public randomness (hex) and its beacon round; `source` says whether it is a verified drand
   * round (`drand`, with the round in `drand`) or was typed in (`unverified`).
   */
  readonly beacon: {
    readonly randomness: string;
    readonly round: number;
    readonly source: "drand" | "unverified";
    readonly drand?: DrandBinding;
  };
  /** The prover's signed checkpoint the sample was drawn from, when the audit had one. */
  readonly checkpoint?: CheckpointBinding;
  /**
   * The inspector's announcement of this audit (a DSSE envelope), when it was announced, with an
   * RFC 3161 time-stamp response over its signature (base64 DER) when there is one.
   */
  readonly announcement?: { readonly envelope: DsseEnvelope; readonly timestamp?: string };
  /** Domain of the seed derivation. */
  readonly seedDerivation: string;
  /** Derived seed (hex). */
  readonly seed: string;
  /** Sampling algorithm id. */
  readonly algorithm: string;
  /** Sample size. */
  readonly k: number;
  /** Indices in selection order. */
  readonly selected: readonly number[];
  /**
   * The evidence policy the audit applied to every sampled record (`audit --require-evidence`):
   * a record whose recomputation matched but rests on a component known less well is
   * NOT_VERIFIED, so no PASS rests on less. Absent: no policy (sharded audits apply none).
   * `check --recompute` recomputes under the same policy.
   */
  readonly requireEvidence?: EvidenceLevel;
  /**
   * The budget a record the audit applied (`--max-record-products`, recorded in its plan): a
   * record predicted over it was NOT_VERIFIED before anything was computed. Absent: the default,
   * `MAX_RECORD_PRODUCTS`. `check --recompute` recomputes under the same budget.
   */
  readonly maxRecordProducts?: number;
};

/** The predicate of a verdict Statement ({@link VERDICT_PREDICATE_TYPE}). */
export type VerdictPredicate = {
  /** Who verified: `id` is `bitaudit` for this implementation. */
  readonly verifier: VerifierInfo & { readonly id: string };
  /** When (RFC 3339); also the time at which signing keys must be valid. */
  readonly timeVerified: string;
  /** The sample. */
  readonly audit: VerdictAudit;
  /** What a sample of this size detects. */
  readonly detection: DetectionStatement;
  /** One result per sampled index, in selection order. */
  readonly results: readonly VerdictResult[];
  /** The verdict the results imply (`auditVerdict`). */
  readonly verdict: AuditVerdict;
  /** Who computed the results. */
  readonly workers: VerdictWorkers;
  /** Asset path -> sha256 hex, the manifest included. */
  readonly assets: Readonly<Record<string, string>>;
};

/** Options of {@link buildVerdictPredicate}. */
export interface BuildVerdictPredicateOptions {
  /** Verifier identity. */
  readonly verifier: VerifierInfo;
  /** Asset digests (path -> sha256, including the manifest). */
  readonly assets: Readonly<Record<string, string>>;
  /** Verification time (RFC 3339). */
  readonly timeVerified: string;
  /** The verified drand round whose randomness the audit used (else `source: "unverified"`). */
  readonly drand?: DrandBinding;
  /** The verified prover checkpoint. */
  readonly checkpoint?: CheckpointBinding;
  /** The announcement envelope of an announced audit. */
  readonly announcement?: DsseEnvelope;
  /** An RFC 3161 time-stamp response (DER) over the announcement's signature. */
  readonly announcementTimestamp?: Uint8Array;
  /**
   * Who computed each result: `byResult` (key id per result of the report, null for an item
   * nobody returned), the worker public `keys` (32 bytes each) and the `reverified` log indices.
   * Default: nobody named, nothing re-verified.
   */
  readonly workers?: {
    readonly byResult: readonly (string | null)[];
    readonly keys: readonly Uint8Array[];
    readonly reverified: readonly number[];
  };
}

/**
 * Builds the verdict predicate of an audit report.
 *
 * @param report the audit report
 * @param options verifier info, asset digests and the verification time
 * @returns the predicate (plain data; the per-record pipeline traces are not part of it)
 * @example
 * ```ts
 * import { buildVerdictPredicate, parseVerdictPredicate } from "./mod.ts";
 * import { AUDIT_SEED_DOMAIN, detectionStatement, SAMPLE_ALGORITHM } from "../verify/mod.ts";
 * const fp = "55".repeat(32);
 * const report = {
 *   auditId: "a1", logId: "log-1", population: 1, root: "11".repeat(32), randomness: "22".repeat(32),
 *   round: 1, seedDerivation: AUDIT_SEED_DOMAIN, seed: "33".repeat(32), algorithm: SAMPLE_ALGORITHM,
 *   selected: [0],
 *   results: [{
 *     index: 0, digest: "44".repeat(32), status: "PASS", reason: "", claimed: fp, recomputed: fp,
 *     firstDifference: null, steps: [],
 *   }],
 *   verdict: "PASSED", detection: detectionStatement(1, { k: 1 }),
 * } as const;
 * const p = buildVerdictPredicate(report, {
 *   verifier: { version: "0.1.0", engine: "reference", runtime: "deno" },
 *   assets: { "tables/manifest.json": "66".repeat(32) },
 *   timeVerified: "2026-03-01T12:00:00Z",
 * });
 * if (parseVerdictPredicate(JSON.parse(JSON.stringify(p))).audit.k !== 1) throw new Error();
 * ```
 */
export function buildVerdictPredicate(
  report: AuditReport,
  options: BuildVerdictPredicateOptions,
): VerdictPredicate {
  const { version, engine, runtime } = options.verifier;
  return {
    verifier: { id: "bitaudit", version, engine, runtime },
    timeVerified: options.timeVerified,
    audit: {
      auditId: report.auditId,
      logId: report.logId,
      population: report.population,
      logRoot: report.root,
      beacon: {
        randomness: report.randomness,
        round: report.round,
        source: options.drand === undefined ? "unverified" : "drand",
        ...(options.drand === undefined ? {} : { drand: options.drand }),
      },
      ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }),
      ...(options.announcement === undefined ? {} : {
        announcement: {
          envelope: options.announcement,
          ...(options.announcementTimestamp === undefined
            ? {}
            : { timestamp: encodeBase64(options.announcementTimestamp) }),
        },
      }),
      seedDerivation: report.seedDerivation,
      seed: report.seed,
      algorithm: report.algorithm,
      k: report.selected.length,
      selected: report.selected,
      ...(report.requireEvidence === undefined ? {} : { requireEvidence: report.requireEvidence }),
      ...(report.maxRecordProducts === undefined
        ? {}
        : { maxRecordProducts: report.maxRecordProducts }),
    },
    detection: report.detection,
    results: report.results.map((r, j) => ({
      ...verdictResult(r),
      ...(_worker(options, j) === null ? {} : { worker: _worker(options, j)! }),
    })),
    verdict: report.verdict,
    workers: _workers(options),
    assets: options.assets,
  };
}

/**
 * One record's result as a verdict signs it, without the worker that computed it: every field a
 * recomputation of the record yields (its pipeline trace and first diverging layer stay out).
 * `buildVerdictPredicate` signs this; `checkAttestation` compares a result recomputed by the
 * checker with the attested one through it.
 *
 * @param r the record's result
 * @returns the signed form (plain data)
 * @example
 * ```ts
 * import { verdictResult } from "./verdict_predicate.ts";
 * const fp = "55".repeat(32);
 * const v = verdictResult({
 *   index: 0, digest: "44".repeat(32), status: "PASS", reason: "", claimed: fp, recomputed: fp,
 *   firstDifference: null, steps: [],
 *   evidence: [{ component: "datapath a100 mma-bf16-fp32", level: "measured-on-gpu" }],
 * });
 * if (v.record !== "44".repeat(32) || v.evidence?.length !== 1 || "steps" in v) throw new Error();
 * ```
 */
export function verdictResult(r: RecordResult): VerdictResult {
  return {
    index: r.index,
    record: r.digest,
    status: r.status,
    reason: r.reason,
    claimed: r.claimed,
    recomputed: r.recomputed,
    firstDifference: r.firstDifference,
    ...(r.sfu === undefined
      ? {}
      : { sfu: r.sfu.map(({ fn, model, status }) => ({ fn, model, status })) }),
    ...(r.evidence === undefined
      ? {}
      : { evidence: r.evidence.map(({ component, level }) => ({ component, level })) }),
    ...(r.obligation === undefined ? {} : { obligation: r.obligation }),
    ...(r.finding === undefined ? {} : { finding: r.finding }),
  };
}

function _worker(options: BuildVerdictPredicateOptions, j: number): string | null {
  return options.workers?.byResult[j] ?? null;
}

function _workers(options: BuildVerdictPredicateOptions): VerdictWorkers {
  const w = options.workers;
  if (w === undefined) return { keys: [], reverified: [] };
  const named = new Set(w.byResult.filter((id) => id !== null));
  const keys = w.keys
    .map((k) => ({ keyid: keyId(k), publicKey: encodeBase64(encodeSpki(k)) }))
    .filter((k) => named.has(k.keyid))
    .sort((a, b) => a.keyid < b.keyid ? -1 : a.keyid > b.keyid ? 1 : 0);
  return { keys, reverified: [...w.reverified] };
}
