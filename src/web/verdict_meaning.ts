/**
 * What a verdict means, in one plain sentence for people who do not read the statement.
 *
 * @module
 */
/**
 * Explains a signed verdict in plain language.
 *
 * @param p the verified predicate
 * @returns one sentence with the counts behind the verdict
 * @example
 * ```ts
 * import { verdictMeaning } from "./verdict_meaning.ts";
 * const s = verdictMeaning({ verdict: "FAILED", results: [{ status: "FAIL" }, { status: "PASS" }] });
 * if (!s.startsWith("Verdict FAILED: 1 of the 2 sampled records")) throw new Error(s);
 * ```
 */
export function verdictMeaning(
  p: { readonly verdict: string; readonly results: readonly { readonly status: string }[] },
): string {
  const k = p.results.length;
  const n = (s: string) => p.results.filter((r) => r.status === s).length;
  switch (p.verdict) {
    case "PASSED":
      return `Verdict PASSED: each of the ${k} sampled records was recomputed by the inspector and matched the prover's claim bit for bit.`;
    case "FAILED":
      return `Verdict FAILED: ${
        n("FAIL")
      } of the ${k} sampled records did not match what the prover claimed when recomputed; the claim log contains false claims.`;
    default:
      return `Verdict ${p.verdict}: no sampled record failed, but ${
        n("NOT_VERIFIED")
      } of the ${k} could not be verified (NOT_VERIFIED), so the audit does not vouch for the log.`;
  }
}
