/**
 * The verdict Statement an inspector signs: an in-toto Statement v1 whose subjects are the
 * committed log root and the sampled records, and whose predicate is the {@link VerdictPredicate}.
 *
 * @module
 */
import type { AuditReport } from "../verify/mod.ts";
import { type Statement, STATEMENT_TYPE } from "./statement.ts";
import {
  buildVerdictPredicate,
  type BuildVerdictPredicateOptions,
  VERDICT_PREDICATE_TYPE,
  type VerdictPredicate,
} from "./verdict_predicate.ts";

/**
 * Builds the verdict statement.
 *
 * @param report the audit report
 * @param options verifier info, asset digests (path -> sha256, including the manifest), and the
 *   verification time (RFC 3339 UTC)
 * @returns the statement
 * @example
 * ```ts ignore
 * const st = verdictStatement(report, { verifier, assets, timeVerified: "2026-03-01T12:00:00Z" });
 * ```
 */
export function verdictStatement(
  report: AuditReport,
  options: BuildVerdictPredicateOptions,
): Statement<VerdictPredicate> {
  const subject = [
    { name: `claim-log-merkle-root:${report.logId}`, digest: { sha256: report.root } },
    ...report.results.map((r) => ({
      name: `bitaudit-claim:${report.logId}/${r.index}`,
      digest: { sha256: r.digest },
    })),
  ];
  return {
    _type: STATEMENT_TYPE,
    subject,
    predicateType: VERDICT_PREDICATE_TYPE,
    predicate: buildVerdictPredicate(report, options),
  };
}
