/**
 * The evidence rule of `--require-evidence`, in one place: the audit applies it to each record
 * whose recomputation matched (such a record is then NOT_VERIFIED), and `check` applies it to the
 * PASS results of a verdict that records the policy (a PASS that falls short contradicts it).
 *
 * @module
 */
import {
  type ComponentEvidence,
  type EvidenceLevel,
  meetsEvidence,
  weakestEvidence,
} from "../hardware/mod.ts";

/**
 * Says how a result's evidence falls short of a required level: its weakest component (the first
 * of the weakest level) when that is known less well, or that it lists none (nothing then shows
 * the level is met); `null` when every component meets it.
 *
 * @param evidence the components a recomputation rested on, with their levels (absent: none listed)
 * @param min the weakest level a PASS may rest on
 * @returns a phrase naming the shortfall, or null
 * @example
 * ```ts
 * import { evidenceShortfall } from "./evidence_shortfall.ts";
 * const e = [
 *   { component: "datapath a100 mma-bf16-fp32", level: "measured-on-gpu" },
 *   { component: "GEMM kernel (recipe kwalk)", level: "derived-from-source" },
 * ] as const;
 * if (evidenceShortfall(e, "derived-from-source") !== null) throw new Error();
 * const why = evidenceShortfall(e, "measured-on-gpu");
 * if (why !== "it rests on GEMM kernel (recipe kwalk), derived-from-source, below the required measured-on-gpu") {
 *   throw new Error(why ?? "met");
 * }
 * ```
 */
export function evidenceShortfall(
  evidence: readonly ComponentEvidence[] | undefined,
  min: EvidenceLevel,
): string | null {
  const weak = weakestEvidence(evidence ?? []);
  if (weak === null) return `it lists no evidence, so nothing shows the required ${min}`;
  return meetsEvidence(weak.level, min)
    ? null
    : `it rests on ${weak.component}, ${weak.level}, below the required ${min}`;
}
