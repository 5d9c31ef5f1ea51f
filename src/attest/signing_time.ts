/**
 * The instants at which a signer's key must be valid. A signer's own statement of time
 * (`timeVerified`) cannot be trusted against revocation: a key revoked on 2026-06-01 could sign
 * today and state 2026-05-01. So, as Sigstore does for certificates without a trusted timestamp,
 * a key must be valid and unrevoked at verification time unless independent evidence of the
 * signing time is given (an RFC 3161 timestamp token, a transparency-log entry), in which case it
 * must be valid at the evidenced time. Without evidence the key must also be valid at the stated
 * time; a stated time after the verification time (beyond {@link MAX_CLOCK_SKEW_MS}) is always
 * refused. Evidence dates one signature entry, the bytes it covers, and so only the key that made
 * that entry: a token over one signature says nothing of when any other entry was made (another
 * key could have added it after its revocation), so every other entry is judged without evidence.
 *
 * @module
 */
import type { DsseEnvelope } from "./dsse.ts";
import type { TrustRoot } from "./trust_root.ts";

/** Clock difference tolerated between signer and verifier: 5 minutes. */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/** Verified, independent evidence that one signature entry existed at an instant. */
export interface SigningTimeEvidence {
  /** What the evidence is, e.g. `rfc3161` (for messages). */
  readonly kind: string;
  /** The evidenced instant, milliseconds since the Unix epoch. */
  readonly time: number;
  /**
   * Index of the envelope's signature entry whose bytes the evidence covers: the evidence dates
   * that entry alone.
   */
  readonly signature: number;
}

/**
 * A source of signing-time evidence (the hook for RFC 3161 timestamp authorities): given the
 * envelope and the trust root (which lists the authorities it trusts, `tsa`), returns evidence it
 * has verified, or `null` when it holds none for this envelope. It throws only on misuse; evidence
 * that does not verify is `null`.
 */
export interface SigningTimeSource {
  /**
   * Gives the verified signing-time evidence for an envelope.
   *
   * @param envelope the envelope whose signatures are timed
   * @param trustRoot the trust root of the check
   * @returns verified evidence, or `null`
   */
  evidence(envelope: DsseEnvelope, trustRoot: TrustRoot): Promise<SigningTimeEvidence | null>;
}

/** One instant a key must be valid at, with its label for messages. */
export interface RequiredInstant {
  /** `stated`, `verification` or the evidence kind. */
  readonly label: string;
  /** Milliseconds since the Unix epoch. */
  readonly time: number;
}

/**
 * Decides the instants the key that made one signature entry must be valid at.
 *
 * @param stated the signer's stated time (ms since the epoch)
 * @param options `now` (verification time, ms) and the verified `evidence` of that entry (may be
 *   empty; the caller passes only evidence whose `signature` is the entry judged)
 * @returns the instants, or `{refused}` with the reason when the stated time is in the future
 * @example
 * ```ts
 * import { requiredInstants } from "./signing_time.ts";
 * const now = Date.parse("2026-07-01T00:00:00Z");
 * const r = requiredInstants(Date.parse("2026-05-01T00:00:00Z"), { now, evidence: [] });
 * if (!("instants" in r) || r.instants[1]?.label !== "verification") throw new Error();
 * const f = requiredInstants(Date.parse("2099-01-01T00:00:00Z"), { now, evidence: [] });
 * if (!("refused" in f)) throw new Error();
 * ```
 */
export function requiredInstants(
  stated: number,
  options: { now: number; evidence: readonly SigningTimeEvidence[] },
): { instants: RequiredInstant[] } | { refused: string } {
  const { now, evidence } = options;
  if (stated > now + MAX_CLOCK_SKEW_MS) {
    return {
      refused: `the stated time ${new Date(stated).toISOString()} is after the verification time ${
        new Date(now).toISOString()
      }`,
    };
  }
  if (evidence.length > 0) {
    return { instants: evidence.map((e) => ({ label: e.kind, time: e.time })) };
  }
  const instants: RequiredInstant[] = [
    { label: "stated", time: stated },
    { label: "verification", time: now },
  ];
  return { instants };
}
