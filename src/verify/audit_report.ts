/**
 * The outcome of an audit: everything its verdict statement binds.
 *
 * @module
 */
import type { DetectionStatement } from "./detection.ts";
import type { AuditVerdict, RecordResult } from "./record_result.ts";

/** The outcome of an audit (everything the verdict statement binds). */
export interface AuditReport {
  readonly auditId: string;
  readonly logId: string;
  readonly population: number;
  readonly root: string;
  readonly randomness: string;
  readonly round: number;
  readonly seedDerivation: string;
  readonly seed: string;
  readonly algorithm: string;
  /** Indices in selection order. */
  readonly selected: readonly number[];
  readonly results: readonly RecordResult[];
  readonly verdict: AuditVerdict;
  readonly detection: DetectionStatement;
}
