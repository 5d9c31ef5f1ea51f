/**
 * What a verdict means, in a few words and in one plain sentence, for people who do not read the
 * statement.
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

/** How a verdict is shown: its own colour, apart from the attestation's validity. */
export type VerdictTone = "passed" | "failed" | "inconclusive";

/**
 * The verdict in a few words, as its own line beside (never inside) the attestation's validity:
 * a valid attestation can carry a FAILED verdict, which is a finding about the claim log.
 *
 * @param verdict `PASSED`, `FAILED` or `INCONCLUSIVE`
 * @returns the tone (colour) and the line
 * @example
 * ```ts
 * import { verdictHeadline } from "./verdict_meaning.ts";
 * const h = verdictHeadline("FAILED");
 * if (h.tone !== "failed" || !h.text.startsWith("Verdict FAILED: ")) throw new Error(h.text);
 * ```
 */
export function verdictHeadline(verdict: string): { tone: VerdictTone; text: string } {
  switch (verdict) {
    case "PASSED":
      return {
        tone: "passed",
        text: "Verdict PASSED: every sampled claim was recomputed and held",
      };
    case "FAILED":
      return { tone: "failed", text: "Verdict FAILED: the claim log holds false claims" };
    default:
      return {
        tone: "inconclusive",
        text: `Verdict ${verdict}: the audit does not vouch for the claim log`,
      };
  }
}
