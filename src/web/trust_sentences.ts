/**
 * Where the audit's randomness and commitment came from, in plain sentences (shared by the checker
 * page and `report.html`): a verified drand round or randomness the inspector typed in; the
 * prover's signed checkpoint or only the inspector's word for the log root; whether the audit was
 * announced before its round (shown only by an RFC 3161 timestamp from a time-stamp authority the
 * reader pins: a stated time is the inspector's word, and so is a token no pinned authority
 * signed).
 *
 * @module
 */
import type { CheckpointBinding, DrandBinding } from "../attest/mod.ts";

/** The trust inputs of an audit, as the verdict predicate or the audit command holds them. */
export interface TrustFacts {
  /** Round of the randomness. */
  readonly round: number | string;
  /** The verified drand round, when there was one. */
  readonly drand?: DrandBinding;
  /** The verified prover checkpoint, when there was one. */
  readonly checkpoint?: CheckpointBinding;
  /** Present when the audit was announced; `timestamp` when an RFC 3161 token covers it. */
  readonly announcement?: { readonly timestamp?: unknown };
}

/**
 * Describes the trust inputs.
 *
 * @param t round, drand binding, checkpoint binding, announcement
 * @param o `tsaChecked`: whether the announcement's token was verified against the time-stamp
 *   authorities a trust root pins (`check`, the checker page). `audit` has no trust root: it
 *   reads the token's time and imprint but accepts any authority's signature, so its report says
 *   the order is not yet vouched for (default: false)
 * @returns three sentences: randomness, commitment, announcement
 * @example
 * ```ts
 * import { trustSentences } from "./trust_sentences.ts";
 * const s = trustSentences({ round: 7 });
 * if (!s[0]!.includes("NOT from a verified beacon")) throw new Error(s[0]);
 * const a = trustSentences({ round: 7, announcement: { timestamp: "AA" } })[2]!;
 * if (!a.includes("did not check against a pinned one")) throw new Error(a);
 * ```
 */
export function trustSentences(
  t: TrustFacts,
  o: { readonly tsaChecked?: boolean } = {},
): string[] {
  const d = t.drand;
  const cp = t.checkpoint;
  return [
    d === undefined
      ? `The randomness (round ${t.round}) is NOT from a verified beacon: the inspector stated it.`
      : `The randomness is drand "${d.beaconId}" round ${d.round}, published ${d.roundTime}; its BLS signature was verified against the chain ${d.chainHash}.`,
    cp === undefined
      ? "No signed checkpoint: that the log was committed before the draw rests on the inspector's word."
      : `The prover signed the log (checkpoint "${cp.origin}", ${cp.treeSize} records) with key ${
        cp.proverKeyId.slice(0, 16)
      } at ${cp.signedAt} (the prover's stated time).`,
    t.announcement === undefined
      ? "The sample was not announced in advance."
      : t.announcement.timestamp === undefined
      ? "The audit id, k and round were announced at the inspector's stated time only (no timestamp: that the announcement came before the round is the inspector's word)."
      : o.tsaChecked === true
      ? "The audit id, k and round were announced and signed before the round, with an RFC 3161 timestamp (the time-stamp authority vouches for the order)."
      : "The audit id, k and round were announced with an RFC 3161 timestamp stating a time before the round, from a time-stamp authority this audit did not check against a pinned one (any authority's token, even a self-made one, reads so): `bitaudit check --trust-root` verifies it against the authorities your trust root pins.",
  ];
}
