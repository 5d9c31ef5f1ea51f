/**
 * The `workers` check of `check`: the keys that computed a verdict's results, judged against the
 * reader's trust root. The predicate lists each worker key and names one on every result it
 * returned, but only the signing inspector vouches for them: a key the trust root lists as a
 * prover's (the prover computing the audit of its own claims), or as an inspector's that is
 * revoked or outside its window at the verdict's time, may not stand behind any result. A key the
 * trust root does not list stays allowed: the inspector vouches for the workers it merged.
 *
 * @module
 */
import type { AddCheck } from "./check_trust_inputs.ts";
import { keyValidAt } from "./key_valid_at.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import type { TrustRoot } from "./trust_root.ts";
import type { VerdictPredicate } from "./verdict_predicate.ts";

/** Refused worker keys named one by one in the check's line; the rest are counted. */
export const MAX_NAMED_WORKER_REFUSALS = 4;

/**
 * Judges each worker key of a verified predicate and reports one `workers` check through `add`.
 * A key that is a counted signer of the envelope was judged by the `signatures` check (at the
 * instants its signature was judged at) and is not judged again; any other key of the trust root
 * fails the check when its role is `prover`, or when it is an inspector key not valid at the
 * verdict's `timeVerified` (`keyValidAt`: not yet valid, expired or revoked).
 *
 * @param p the verified predicate (its `workers.keys`, `results[].worker` and `timeVerified`)
 * @param o `trustRoot`, the reader's; `signers`, the key ids whose signatures counted;
 *   `add`, told the check's name, outcome and detail (one line)
 * @throws {InputError} `BAD_TIMESTAMP` when `p.timeVerified` is not RFC 3339 (a parsed predicate's
 *   always is)
 * @example
 * ```ts
 * import { checkWorkerKeys } from "./check_worker_keys.ts";
 * const lines: string[] = [];
 * checkWorkerKeys(
 *   { timeVerified: "2026-01-01T00:00:00Z", results: [], workers: { keys: [], reverified: [] } },
 *   { trustRoot: { mediaType: "m", keys: [] }, signers: [], add: (c, ok, d) => lines.push(`${ok} ${c}: ${d}`) },
 * );
 * if (!lines[0]!.startsWith("true workers: no worker keys recorded")) throw new Error(lines[0]);
 * ```
 */
export function checkWorkerKeys(
  p: Pick<VerdictPredicate, "timeVerified" | "results" | "workers">,
  o: { trustRoot: TrustRoot; signers: readonly string[]; add: AddCheck },
): void {
  const keys = p.workers.keys;
  if (keys.length === 0) {
    o.add("workers", true, "no worker keys recorded: the signer computed every result");
    return;
  }
  const at = parseRfc3339(p.timeVerified);
  const when = new Date(at).toISOString().replace(/\.000Z$/, "Z");
  const counts = { own: 0, inspector: 0, unlisted: 0 };
  const refused: string[] = [];
  for (const { keyid } of keys) {
    const why = _refusal(keyid, { ...o, at, when });
    if (why !== null) {
      const n = p.results.filter((r) => r.worker === keyid).length;
      refused.push(
        `worker key ${keyid.slice(0, 16)}…, which computed ${n} of the ${p.results.length} ` +
          `results, ${why}`,
      );
    } else if (o.signers.includes(keyid)) counts.own++;
    else if (o.trustRoot.keys.some((k) => k.keyid === keyid)) counts.inspector++;
    else counts.unlisted++;
  }
  if (refused.length > 0) {
    const more = refused.length - MAX_NAMED_WORKER_REFUSALS;
    o.add(
      "workers",
      false,
      [
        ...refused.slice(0, MAX_NAMED_WORKER_REFUSALS),
        ...(more > 0 ? [`${more} more worker key(s) refused`] : []),
      ].join("; "),
    );
    return;
  }
  const parts = [
    ...(counts.own > 0 ? [`${counts.own} the signer's own`] : []),
    ...(counts.inspector > 0
      ? [`${counts.inspector} inspector key(s) of your trust root valid at ${when}`]
      : []),
    ...(counts.unlisted > 0
      ? [
        `${counts.unlisted} not in your trust root (the signing inspector vouches for the workers ` +
        "it merged)",
      ]
      : []),
  ];
  o.add(
    "workers",
    true,
    `${keys.length} worker key(s): ${parts.join(", ")}; none is a prover key of your trust root`,
  );
}

/** Why the trust root refuses a worker key, or null (a signer, unlisted, or valid then). */
function _refusal(
  keyid: string,
  o: { trustRoot: TrustRoot; signers: readonly string[]; at: number; when: string },
): string | null {
  const listed = o.trustRoot.keys.filter((k) => k.keyid === keyid);
  if (listed.some((k) => k.role === "prover")) {
    return "is a prover key of your trust root: the prover may not compute the audit of its " +
      "own claims";
  }
  if (listed.length === 0 || o.signers.includes(keyid)) return null;
  const v = keyValidAt(o.trustRoot, { keyid, time: new Date(o.at), role: "inspector" });
  return v.valid
    ? null
    : `is an inspector key of your trust root, ${v.reason} at the verdict's time ${o.when}`;
}
