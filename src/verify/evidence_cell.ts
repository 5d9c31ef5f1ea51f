/**
 * The report cell of a result's evidence: its weakest level and every component that has it.
 *
 * @module
 */
import { type ComponentEvidence, weakestEvidence } from "../hardware/mod.ts";

/**
 * Renders the weakest evidence of a result as plain text (callers escape it for their format):
 * the level, then each component at that level, so that a record resting on several
 * source-derived components (a vLLM pass: its GEMM kernels, layer kernels, attention and
 * all-reduce) names them all rather than the first.
 *
 * @param evidence the result's evidence list, if any
 * @returns e.g. `derived-from-source: GEMM kernels (catalog c); decoder layer (llama)`, or `none`
 *   when no recomputation ran
 * @example
 * ```ts
 * import { evidenceCell } from "./evidence_cell.ts";
 * if (evidenceCell(undefined) !== "none") throw new Error();
 * const cell = evidenceCell([
 *   { component: "a", level: "derived-from-source" },
 *   { component: "b", level: "measured-on-gpu" },
 *   { component: "c", level: "derived-from-source" },
 * ]);
 * if (cell !== "derived-from-source: a; c") throw new Error(cell);
 * ```
 */
export function evidenceCell(evidence: readonly ComponentEvidence[] | undefined): string {
  const w = evidence === undefined ? null : weakestEvidence(evidence);
  if (w === null) return "none";
  const at = evidence!.filter((e) => e.level === w.level).map((e) => e.component);
  return `${w.level}: ${at.join("; ")}`;
}
