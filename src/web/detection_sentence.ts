/**
 * The detection statement in one plain sentence (shared by the checker page, `report.md` and
 * `report.html`): how likely the audit's sample was to catch a false record, at the 1 % level the
 * verdict signs, said in records (F of N, the level rounded up to whole records), and counting
 * only the sampled records that were verified: a NOT_VERIFIED record was compared with nothing
 * and could catch nothing, whereas the signed statement counts the whole sample.
 *
 * @module
 */
import type { DetectionStatement } from "../verify/mod.ts";
import { VERIFIED_ASSUMPTION, type VerifiedDetection } from "./verified_detection.ts";

/**
 * Says what the sample could catch.
 *
 * @param detection the signed detection statement (population, k, levels)
 * @param v what the verified records catch (`verifiedDetection` of the statement and the sampled
 *   results, which the caller's other detection lines read too)
 * @param o `assumptionSaid`: the caller says what the verified records' figures assume right
 *   beside the sentence (the reports' table note, `verifiedCaveat`), so the sentence does not
 *   repeat it (default: it says it, as on the checker page's summary)
 * @returns the sentence, or null when the statement has no level with a false record
 * @example
 * ```ts
 * import { detectionSentence } from "./detection_sentence.ts";
 * import { verifiedDetection } from "./verified_detection.ts";
 * const d = {
 *   population: 6,
 *   k: 4,
 *   levels: [{ pFalse: "0.01", falseCount: 1, binomial: "0.039403", hypergeometric: "0.666666" }],
 * };
 * const all = detectionSentence(
 *   d,
 *   verifiedDetection(d, [{ status: "PASS" }, { status: "PASS" }, { status: "FAIL" }, { status: "PASS" }]),
 * );
 * if (!all!.startsWith("If 1 of the 6 records were false (1 %, rounded up to whole records)")) {
 *   throw new Error(all!);
 * }
 * const some = detectionSentence(
 *   d,
 *   verifiedDetection(d, [{ status: "PASS" }, { status: "NOT_VERIFIED" }, { status: "PASS" }, { status: "PASS" }]),
 * );
 * // 1/2, computed in doubles, is written one unit below: the text is never above the truth.
 * if (!some!.includes("the 3 verified records catch at least one with probability 0.499999, assuming")) {
 *   throw new Error(some!);
 * }
 * // Said beside it by the caller (the reports' table note): not repeated.
 * const said = detectionSentence(d, verifiedDetection(d, [{ status: "PASS" }, { status: "NOT_VERIFIED" }]), {
 *   assumptionSaid: true,
 * });
 * if (!said!.endsWith("the 1 verified records catch at least one with probability 0.166666.")) throw new Error(said!);
 * ```
 */
export function detectionSentence(
  detection: DetectionStatement,
  v: VerifiedDetection,
  o: { readonly assumptionSaid?: boolean | undefined } = {},
): string | null {
  const { population: n, k } = detection;
  const at = Math.max(0, detection.levels.findIndex((l) => l.pFalse === "0.01"));
  const level = detection.levels[at];
  if (level === undefined || level.falseCount < 1 || level.falseCount > n) return null;
  const f = level.falseCount;
  const exact = Math.abs(Number(level.pFalse) * n - f) < 1e-9;
  const share = `${percentText(Number(level.pFalse))}${
    exact ? "" : ", rounded up to whole records"
  }`;
  const falseOnes = `if ${f} of the ${n} records were false (${share})`;
  const { sampled, verified, hypergeometric } = v;
  if (verified === sampled) {
    return `${
      _cap(falseOnes)
    }, a sample of ${k} catches at least one with probability ${level.hypergeometric}.`;
  }
  const unverified = sampled - verified;
  const lead = `${unverified} of the ${sampled} sampled records ${
    unverified === 1 ? "was" : "were"
  } NOT_VERIFIED and could catch nothing (the signed figure, ${level.hypergeometric}, counts all ${k})`;
  if (verified === 0) return `${lead}: this audit could catch no false record.`;
  const p = hypergeometric[at];
  if (p === null || p === undefined) return `${lead}.`;
  const assuming = o.assumptionSaid === true ? "" : `, assuming ${VERIFIED_ASSUMPTION}`;
  return `${lead}: ${falseOnes}, the ${verified} verified records catch at least one with probability ${p}${assuming}.`;
}

function _cap(text: string): string {
  return `${text[0]!.toUpperCase()}${text.slice(1)}`;
}

/**
 * A share as the page and the reports write it: percent to six significant digits.
 *
 * @param p the share (0.01 for 1 %)
 * @returns the text
 * @example
 * ```ts
 * import { percentText } from "./detection_sentence.ts";
 * if (percentText(0.001) !== "0.1 %") throw new Error(percentText(0.001));
 * ```
 */
export function percentText(p: number): string {
  return `${Number((p * 100).toPrecision(6))} %`;
}
