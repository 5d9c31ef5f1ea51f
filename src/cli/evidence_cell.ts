/**
 * The report cell of a result's evidence: its weakest level and the component that has it.
 *
 * @module
 */
import { type ComponentEvidence, weakestEvidence } from "../verify/mod.ts";

/**
 * Renders the weakest evidence of a result as plain text (callers escape it for their format).
 *
 * @param evidence the result's evidence list, if any
 * @returns e.g. `derived-from-source: decoder layer (llama)`, or `none` when no recomputation ran
 * @example
 * ```ts
 * import { evidenceCell } from "./evidence_cell.ts";
 * if (evidenceCell(undefined) !== "none") throw new Error();
 * ```
 */
export function evidenceCell(evidence: readonly ComponentEvidence[] | undefined): string {
  const w = evidence === undefined ? null : weakestEvidence(evidence);
  return w === null ? "none" : `${w.level}: ${w.component}`;
}
