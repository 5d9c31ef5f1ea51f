/**
 * What a verdict means, in a few words and in one plain sentence, for people who do not read the
 * statement.
 *
 * @module
 */
import type { FailFinding } from "../verify/mod.ts";

/**
 * Explains a signed verdict in plain language, naming who recomputed the results: the signer
 * itself (a result with no `worker`, or one whose worker key is a signer's own key, as a
 * single-process audit records it), or (a sharded audit) worker keys whose signed results the
 * signer merged, of which it recomputed a share again (`workers.reverified`), and how many planned
 * items no worker returned. A worker key is the signer's delegate, not a key of the reader's trust
 * root: the sentence says so rather than calling every result the inspector's own.
 *
 * @param p the verified predicate (`worker` and `finding` on each result and
 *   `workers.reverified` as the verdict statement carries them: a FAILED verdict counts its FAILs
 *   by what each found)
 * @param o `signers`: key ids of the keys whose signatures counted (a worker key among them is
 *   the inspector's own)
 * @returns one or two sentences with the counts behind the verdict
 * @example
 * ```ts
 * import { verdictMeaning } from "./verdict_meaning.ts";
 * const s = verdictMeaning({
 *   verdict: "FAILED",
 *   results: [{ status: "FAIL", finding: "committed-input" }, { status: "PASS" }],
 * });
 * if (!s.startsWith("Verdict FAILED: 1 of the 2 sampled records could not be recomputed")) {
 *   throw new Error(s);
 * }
 * const w = verdictMeaning({
 *   verdict: "PASSED",
 *   results: [{ status: "PASS", worker: "ab" }, { status: "PASS", worker: "cd" }],
 *   workers: { reverified: [] },
 * }, { signers: ["cd"] });
 * if (!w.includes("1 of them by worker key(s) ab") || !w.includes("1 by the inspector")) {
 *   throw new Error(w);
 * }
 * ```
 */
export function verdictMeaning(
  p: {
    readonly verdict: string;
    readonly results: readonly {
      readonly status: string;
      readonly worker?: string;
      readonly finding?: string;
    }[];
    readonly workers?: { readonly reverified: readonly number[] };
  },
  o: { readonly signers?: readonly string[] } = {},
): string {
  const k = p.results.length;
  const n = (s: string) => p.results.filter((r) => r.status === s).length;
  const own = new Set(o.signers ?? []);
  const delegated = p.results.filter((r) => r.worker !== undefined && !own.has(r.worker));
  const byInspector = p.results.filter((r) => r.worker !== undefined && own.has(r.worker)).length;
  // With worker keys recorded, a result without one is an item no worker returned (a merge marks
  // it NOT_VERIFIED); without any, the statement predates worker keys: the signer computed all.
  const recorded = delegated.length + byInspector > 0;
  const missing = recorded ? p.results.filter((r) => r.worker === undefined).length : 0;
  const allOwn = delegated.length === 0 && missing === 0;
  const main = (() => {
    switch (p.verdict) {
      case "PASSED":
        return `Verdict PASSED: each of the ${k} sampled records was recomputed${
          allOwn ? " by the inspector" : ""
        } and matched the prover's claim bit for bit.`;
      case "FAILED":
        return _failed(p.results);
      default:
        return `Verdict ${p.verdict}: no sampled record failed, but ${
          n("NOT_VERIFIED")
        } of the ${k} could not be verified (NOT_VERIFIED), so the audit does not vouch for the log.`;
    }
  })();
  if (allOwn) return main;
  const parts: string[] = [];
  if (delegated.length > 0) {
    const keys = [...new Set(delegated.map((r) => r.worker!))];
    const again = p.workers?.reverified.length ?? 0;
    parts.push(
      `Sharded audit: ${delegated.length} of them by worker key(s) ${
        keys.map((id) => id.slice(0, 16)).join(", ")
      } whose signed results the inspector merged, ${again} of those recomputed again by the inspector itself`,
    );
  }
  if (byInspector > 0) {
    parts.push(`${byInspector}${parts.length === 0 ? " of them" : ""} by the inspector`);
  }
  if (missing > 0) parts.push(`${missing} with no result from any worker (NOT_VERIFIED)`);
  const text = parts.join("; ");
  return `${main} ${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/**
 * What a FAIL found, by its `finding`, in words that hold for it: only a recomputation that
 * differed (fingerprint, layer chain, greedy token) "did not match when recomputed"; a missing or
 * corrupt committed input and a contradiction were found without any recomputed output.
 */
const _FOUND = {
  recomputed: "did not match what the prover claimed when recomputed",
  input:
    "could not be recomputed: an input the prover committed to was missing or did not match its digest (the prover must produce each one)",
  contradiction:
    "contradicted the stack, hardware or history they state, or the log (found without recomputing)",
  other: "failed",
} as const;

/** Each finding's group (a record over `FailFinding`: a new finding must be placed here). */
const _GROUP: Readonly<Record<FailFinding, keyof typeof _FOUND>> = {
  fingerprint: "recomputed",
  "layer-chain": "recomputed",
  "greedy-token": "recomputed",
  "committed-input": "input",
  contradiction: "contradiction",
};

function _found(finding: string | undefined): keyof typeof _FOUND {
  return finding !== undefined && Object.hasOwn(_GROUP, finding)
    ? _GROUP[finding as FailFinding]
    : "other";
}

/** The FAILED sentence: the failed records counted by what each FAIL found. */
function _failed(results: readonly { readonly status: string; readonly finding?: string }[]) {
  const fails = results.filter((r) => r.status === "FAIL");
  const groups = (Object.keys(_FOUND) as (keyof typeof _FOUND)[])
    .map((g) => [g, fails.filter((r) => _found(r.finding) === g).length] as const)
    .filter(([, count]) => count > 0);
  const what = groups.length <= 1
    ? _FOUND[groups[0]?.[0] ?? "other"]
    : `failed (${groups.map(([g, count]) => `${count} ${_FOUND[g]}`).join("; ")})`;
  return `Verdict FAILED: ${fails.length} of the ${results.length} sampled records ${what}; the claim log contains false claims.`;
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
