/**
 * What the sampled records that were verified could catch, beside the signed detection statement:
 * the statement counts all k sampled records, whereas a NOT_VERIFIED record was compared with
 * nothing and could catch nothing. Shared by the checker page, `report.md`, `report.html` and the
 * demo's summary, so that none of them shows the signed figure as the detection achieved.
 *
 * @module
 */
import { type DetectionStatement, lowerHypergeometric, sixDecimalsDown } from "../verify/mod.ts";

/** The signed statement's levels recomputed for the verified records only. */
export interface VerifiedDetection {
  /** Records sampled (the results given). */
  readonly sampled: number;
  /** Of them, the records verified: PASS or FAIL. */
  readonly verified: number;
  /**
   * Per level of the statement, in its order: the probability that the verified records catch at
   * least one of its F false records (hypergeometric, N and F as signed, k = `verified`), written
   * as the signed figures are (lowered by its error bound, rounded down to six decimals: never
   * above the true value); null where the level's F or the count is not one of N's.
   */
  readonly hypergeometric: readonly (string | null)[];
}

/**
 * Recomputes each level of a detection statement for the sampled records that were verified.
 *
 * @param detection the signed detection statement (population, k, levels)
 * @param results the sampled results' statuses
 * @returns the verified count and each level's figure for it
 * @example
 * ```ts
 * import { verifiedDetection } from "./verified_detection.ts";
 * const d = {
 *   population: 6,
 *   k: 4,
 *   levels: [{ pFalse: "0.01", falseCount: 1, binomial: "0.039403", hypergeometric: "0.666666" }],
 * };
 * const v = verifiedDetection(d, [{ status: "PASS" }, { status: "NOT_VERIFIED" }, { status: "FAIL" }, { status: "PASS" }]);
 * // 3 of 6 records catch the 1 false one with probability 1/2, written one unit below.
 * if (v.verified !== 3 || v.hypergeometric[0] !== "0.499999") throw new Error(String(v.hypergeometric));
 * ```
 */
export function verifiedDetection(
  detection: DetectionStatement,
  results: readonly { readonly status: string }[],
): VerifiedDetection {
  const n = detection.population;
  const verified = results.filter((r) => r.status === "PASS" || r.status === "FAIL").length;
  const hypergeometric = detection.levels.map((l) =>
    _ofN(l.falseCount, n) && _ofN(verified, n)
      ? sixDecimalsDown(lowerHypergeometric(n, { falseCount: l.falseCount, k: verified }))
      : null
  );
  return { sampled: results.length, verified, hypergeometric };
}

/**
 * What the verified records' figures assume, wherever they are shown (the detection sentence, the
 * page's detection rows, the reports' tables): the sample is uniform over the log, but which of
 * the sampled records could be verified is not, and a prover may make a false record one this
 * verifier cannot check.
 */
export const VERIFIED_ASSUMPTION =
  "a false record is as likely as any other to be one this verifier can check";

/**
 * The caveat said once beside the verified records' per-level figures (the page's detection rows,
 * the tables of `report.md` and `report.html`).
 *
 * @param verified the sampled records that were verified (PASS or FAIL)
 * @returns the sentence
 * @example
 * ```ts
 * import { verifiedCaveat } from "./verified_detection.ts";
 * if (!verifiedCaveat(7).startsWith("The figures by the 7 verified records assume a false record")) {
 *   throw new Error(verifiedCaveat(7));
 * }
 * ```
 */
export function verifiedCaveat(verified: number): string {
  return `The figures by the ${verified} verified records assume ${VERIFIED_ASSUMPTION}.`;
}

/** Whether `count` is a count of N's records (an integer in [0, N]). */
function _ofN(count: number, n: number): boolean {
  return Number.isSafeInteger(n) && Number.isSafeInteger(count) && count >= 0 && count <= n;
}
