/**
 * An audit: derive the seed from the committed log root and public randomness, draw the sample,
 * run the recompute-and-compare pipeline on every sampled record, and decide the verdict.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import type { ClaimLog } from "../claims/mod.ts";
import { bytesToHex } from "../claims/mod.ts";
import { type DetectionStatement, detectionStatement } from "./detection.ts";
import { type AuditVerdict, auditVerdict, type RecordResult } from "./record_result.ts";
import { SAMPLE_ALGORITHM, sampleIndices } from "./sample_indices.ts";
import { AUDIT_SEED_DOMAIN, deriveSeed } from "./seed.ts";
import { type VerifyContext, verifyRecord } from "./verify_record.ts";

/** What an audit starts from. */
export interface AuditInputs {
  /** The claim log (parsed and chain-checked). */
  readonly log: ClaimLog;
  /** Audit identifier chosen by the inspector. */
  readonly auditId: string;
  /** Public randomness fixed after the log was committed (hex). */
  readonly randomness: string;
  /** Beacon round of that randomness. */
  readonly round: number;
  /** Sample size. */
  readonly k: number;
  /** The root the prover committed to, if known: the log must match it. */
  readonly expectedRoot?: string;
  /** Called after each record with (done, total). */
  readonly onProgress?: (done: number, total: number) => void;
}

/** The outcome of an audit (everything the verdict statement binds). */
export interface AuditReport {
  /** Audit identifier (bound into the seed). */
  readonly auditId: string;
  /** The audited claim log's id. */
  readonly logId: string;
  /** Records in the log. */
  readonly population: number;
  /** Merkle root of the log (hex). */
  readonly root: string;
  /** Beacon randomness (hex). */
  readonly randomness: string;
  /** Beacon round. */
  readonly round: number;
  /** How the seed was derived (names the domain and inputs). */
  readonly seedDerivation: string;
  /** The sampling seed (hex). */
  readonly seed: string;
  /** The sampling algorithm's name. */
  readonly algorithm: string;
  /** Indices in selection order. */
  readonly selected: readonly number[];
  /** One result per selected record, in selection order. */
  readonly results: readonly RecordResult[];
  /** PASSED, FAILED or NOT_VERIFIED over all results. */
  readonly verdict: AuditVerdict;
  /** What a sample of this size can detect. */
  readonly detection: DetectionStatement;
}

/**
 * Runs an audit.
 *
 * @param ctx verification context (assets, blobs, walker)
 * @param inputs log, audit id, randomness, round, k; `onProgress(done, total)` after each record
 * @returns the report
 * @throws {InputError} `AUDIT_ROOT_MISMATCH`, `AUDIT_K` for a bad sample size
 * @example
 * ```ts ignore
 * const report = await runAudit(ctx, { log, auditId: "a1", randomness, round, k: 50 });
 * ```
 */
export async function runAudit(
  ctx: VerifyContext,
  inputs: AuditInputs,
): Promise<AuditReport> {
  const { log, auditId, randomness, round, k, onProgress } = inputs;
  if (inputs.expectedRoot !== undefined && inputs.expectedRoot !== log.root) {
    throw new InputError(
      "AUDIT_ROOT_MISMATCH",
      `Cannot audit: the log's root ${log.root} differs from the committed ${inputs.expectedRoot}`,
    );
  }
  const population = log.records.length;
  if (!Number.isInteger(k) || k < 1 || k > population) {
    throw new InputError(
      "AUDIT_K",
      `Cannot audit: k must be an integer in 1..${population}, got ${k}`,
    );
  }
  let seed: Uint8Array;
  try {
    seed = deriveSeed({ auditId, logRoot: log.root, randomness, round });
  } catch (e) {
    throw new InputError("AUDIT_SEED", `Cannot derive the audit seed: ${(e as Error).message}`);
  }
  const { selected } = sampleIndices(seed, { population, k });
  const results: RecordResult[] = [];
  for (const index of selected) {
    results.push(await verifyRecord(ctx, { log, index }));
    onProgress?.(results.length, selected.length);
  }
  return {
    auditId,
    logId: log.records[0]!.predicate.log.logId,
    population,
    root: log.root,
    randomness,
    round,
    seedDerivation: AUDIT_SEED_DOMAIN,
    seed: bytesToHex(seed),
    algorithm: SAMPLE_ALGORITHM,
    selected,
    results,
    verdict: auditVerdict(results),
    detection: detectionStatement(population, { k }),
  };
}
