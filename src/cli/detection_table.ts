/**
 * The detection table of `report.md` and `report.html`: the signed statement, said to count all k
 * sampled records, and beside it what the verified ones catch when some were NOT_VERIFIED (a
 * NOT_VERIFIED record was compared with nothing and could catch nothing).
 *
 * @module
 */
import type { DetectionStatement } from "../verify/mod.ts";
import { verifiedCaveat, type VerifiedDetection } from "../web/mod.ts";

/** A table's header and rows of plain text (escaped by whoever writes them). */
export interface DetectionTable {
  /** Column names. */
  readonly header: readonly string[];
  /** One row per level: rate, F, the signed binomial and hypergeometric, then the verified. */
  readonly rows: readonly (readonly string[])[];
  /**
   * What the verified records' figures assume (`verifiedCaveat`), said once under the table where
   * they are shown and some were verified; null otherwise.
   */
  readonly note: string | null;
}

/**
 * Builds the table.
 *
 * @param detection the signed detection statement
 * @param v what the verified records catch (`verifiedDetection` of the statement and the sampled
 *   results, which the report's other detection lines read too)
 * @returns header and rows; the verified records' column, and the note of what it assumes, only
 *   when some sampled were not verified
 * @example
 * ```ts
 * import { detectionTable } from "./detection_table.ts";
 * import { verifiedDetection } from "../web/mod.ts";
 * const d = {
 *   population: 6,
 *   k: 2,
 *   levels: [{ pFalse: "0.01", falseCount: 1, binomial: "0.019900", hypergeometric: "0.333333" }],
 * };
 * const t = detectionTable(d, verifiedDetection(d, [{ status: "PASS" }, { status: "NOT_VERIFIED" }]));
 * if (t.header[4] !== "by the 1 verified: hypergeometric" || t.rows[0]![4] !== "0.166666") {
 *   throw new Error(JSON.stringify(t));
 * }
 * if (!t.note?.startsWith("The figures by the 1 verified records assume")) throw new Error(t.note!);
 * ```
 */
export function detectionTable(
  detection: DetectionStatement,
  v: VerifiedDetection,
): DetectionTable {
  const all = v.verified === v.sampled;
  const signed = all
    ? `P(catch >= 1) by the ${detection.k} sampled, all verified: binomial`
    : `signed, counting all ${detection.k} sampled: binomial`;
  return {
    header: [
      "false records",
      "F",
      signed,
      "hypergeometric",
      ...(all ? [] : [`by the ${v.verified} verified: hypergeometric`]),
    ],
    rows: detection.levels.map((l, i) => [
      l.pFalse,
      String(l.falseCount),
      l.binomial,
      l.hypergeometric,
      ...(all ? [] : [v.hypergeometric[i] ?? "unknown"]),
    ]),
    note: all || v.verified === 0 ? null : verifiedCaveat(v.verified),
  };
}
