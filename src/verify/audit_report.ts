/**
 * The outcome of an audit: everything its verdict statement binds.
 *
 * @module
 */
import type { EvidenceLevel } from "../hardware/mod.ts";
import type { DetectionStatement } from "./detection.ts";
import type { AuditVerdict, RecordResult } from "./record_result.ts";

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
  /**
   * The evidence policy the audit applied to every record (`--require-evidence`): a record whose
   * recomputation matched but rests on a component known less well is NOT_VERIFIED. Absent: none
   * (sharded audits apply none).
   */
  readonly requireEvidence?: EvidenceLevel;
  /**
   * The budget a record the audit applied (its plan's `maxRecordProducts`, from
   * `--max-record-products`): a record predicted over it was NOT_VERIFIED before anything was
   * computed. Absent: the default, `MAX_RECORD_PRODUCTS`.
   */
  readonly maxRecordProducts?: number;
}
