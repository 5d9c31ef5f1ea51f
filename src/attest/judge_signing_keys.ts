/**
 * The keys about to sign a verdict, judged by the trust root `check` will read it with: the
 * signatures rule of `check` (`countSigners`) run on them before anything is signed, so that an
 * inspector does not sign a verdict every reader finds INVALID ("0 valid inspector signature(s)")
 * because its `--key` is not an inspector key of their root, or is one revoked, expired or not yet
 * valid at the verdict's time or at the signer's clock (a verdict dated ahead of that clock, within
 * the skew `check` allows, is judged at both: a key whose window starts between them would fail
 * every check made before its start).
 *
 * @module
 */
import { countSigners } from "./count_signers.ts";
import { keyId } from "./key_id.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { requiredInstants } from "./signing_time.ts";
import type { TrustRoot } from "./trust_root.ts";

/** What {@link judgeSigningKeys} finds. */
export interface SigningKeysJudgement {
  /** The key ids `check` would count as signers, in signing order. */
  readonly counted: readonly string[];
  /**
   * Why `check` would count fewer than it requires (one line: the count, the threshold and each
   * key not counted with its reason), or null.
   */
  readonly refusal: string | null;
}

/**
 * Counts the signers `check` would count on a verdict these keys sign, stated at `time`: a
 * signature by a key verifies with the trust root's inspector key of the same bytes (its key id)
 * and no other, and each such key is judged at the instants `check` judges an entry without
 * signing-time evidence (`requiredInstants`: the stated time and the verification time, here the
 * signer's clock, the earliest a reader may check it; a stated time more than the allowed clock
 * skew after that clock is refused, as `check` refuses it).
 *
 * @param keys the signing keys' public halves (32 bytes each)
 * @param o the trust root, the verdict's `time` (RFC 3339), the signer's clock `now` (default the
 *   clock) and the `threshold` of signers `check` requires (default 1, `check`'s)
 * @returns the counted keys and, where they are fewer than the threshold, why
 * @throws {InputError} `BAD_TIMESTAMP` when `time` is not RFC 3339
 * @example
 * ```ts
 * import { buildTrustRoot } from "./build_trust_root.ts";
 * import { generateKeyPair } from "./generate_key_pair.ts";
 * import { judgeSigningKeys } from "./judge_signing_keys.ts";
 * import { parseTrustRoot } from "./trust_root.ts";
 * const key = await generateKeyPair();
 * const other = await generateKeyPair();
 * const root = parseTrustRoot(
 *   JSON.stringify(buildTrustRoot([key.publicKey], { start: "2026-01-01T00:00:00Z" })),
 * );
 * const o = { trustRoot: root, time: "2026-03-01T00:00:00Z" };
 * if (judgeSigningKeys([key.publicKey], o).refusal !== null) throw new Error();
 * if (!/^0 valid/.test(judgeSigningKeys([other.publicKey], o).refusal ?? "")) throw new Error();
 * ```
 */
export function judgeSigningKeys(
  keys: readonly Uint8Array[],
  o: {
    readonly trustRoot: TrustRoot;
    readonly time: string;
    readonly now?: Date;
    readonly threshold?: number;
  },
): SigningKeysJudgement {
  const stated = parseRfc3339(o.time);
  const now = (o.now ?? new Date()).getTime();
  const ids = keys.map((k) => keyId(k));
  const roles = new Map(o.trustRoot.keys.map((k) => [k.keyid, k.role]));
  const verifiedBy = ids.map((id) => roles.get(id) === "inspector" ? id : null);
  const count = countSigners(verifiedBy, {
    trustRoot: o.trustRoot,
    instants: () => requiredInstants(stated, { now, evidence: [] }),
  });
  const threshold = o.threshold ?? 1;
  if (count.counted.length >= threshold) return { counted: count.counted, refusal: null };
  const why = ids.flatMap((id, i) => {
    if (count.counted.includes(id)) return [];
    const role = roles.get(id);
    const what = role === undefined
      ? "is not in the trust root"
      : `is a ${role} key of the trust root, not an inspector's`;
    // A key the root holds as an inspector's and not counted was refused at an instant.
    return verifiedBy[i] === null ? [`key ${id.slice(0, 16)}… ${what}`] : [count.refused.get(id)!];
  });
  return {
    counted: count.counted,
    refusal: `${count.counted.length} valid inspector signature(s) of the ${threshold} required: ` +
      [...new Set(why)].join("; "),
  };
}
