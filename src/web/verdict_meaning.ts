/**
 * What a verdict means, in a few words and in one plain sentence, for people who do not read the
 * statement.
 *
 * @module
 */
/**
 * Explains a signed verdict in plain language, naming who recomputed the results: the signer
 * itself, or (a sharded audit) worker keys whose signed results the signer merged, of which it
 * recomputed a share again (`workers.reverified`). A worker key is the signer's delegate, not a
 * key of the reader's trust root: the sentence says so rather than calling every result the
 * inspector's own.
 *
 * @param p the verified predicate (`worker` on each result and `workers.reverified` as the
 *   verdict statement carries them; absent: the signer recomputed every result)
 * @returns one or two sentences with the counts behind the verdict
 * @example
 * ```ts
 * import { verdictMeaning } from "./verdict_meaning.ts";
 * const s = verdictMeaning({ verdict: "FAILED", results: [{ status: "FAIL" }, { status: "PASS" }] });
 * if (!s.startsWith("Verdict FAILED: 1 of the 2 sampled records")) throw new Error(s);
 * const w = verdictMeaning({
 *   verdict: "PASSED",
 *   results: [{ status: "PASS", worker: "ab" }, { status: "PASS" }],
 *   workers: { reverified: [] },
 * });
 * if (!w.includes("1 of them by worker key(s) ab")) throw new Error(w);
 * ```
 */
export function verdictMeaning(
  p: {
    readonly verdict: string;
    readonly results: readonly { readonly status: string; readonly worker?: string }[];
    readonly workers?: { readonly reverified: readonly number[] };
  },
): string {
  const k = p.results.length;
  const n = (s: string) => p.results.filter((r) => r.status === s).length;
  const byWorkers = p.results.filter((r) => r.worker !== undefined).length;
  const who = byWorkers === 0 ? "by the inspector" : "";
  const main = (() => {
    switch (p.verdict) {
      case "PASSED":
        return `Verdict PASSED: each of the ${k} sampled records was recomputed${
          who === "" ? "" : ` ${who}`
        } and matched the prover's claim bit for bit.`;
      case "FAILED":
        return `Verdict FAILED: ${
          n("FAIL")
        } of the ${k} sampled records did not match what the prover claimed when recomputed; the claim log contains false claims.`;
      default:
        return `Verdict ${p.verdict}: no sampled record failed, but ${
          n("NOT_VERIFIED")
        } of the ${k} could not be verified (NOT_VERIFIED), so the audit does not vouch for the log.`;
    }
  })();
  if (byWorkers === 0) return main;
  const keys = [...new Set(p.results.flatMap((r) => r.worker === undefined ? [] : [r.worker]))];
  const again = p.workers?.reverified.length ?? 0;
  return `${main} Sharded audit: ${byWorkers} of them by worker key(s) ${
    keys.map((id) => id.slice(0, 16)).join(", ")
  } whose signed results the inspector merged, ${again} of those recomputed again by the inspector itself${
    byWorkers < k ? "; the rest by the inspector" : ""
  }.`;
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
