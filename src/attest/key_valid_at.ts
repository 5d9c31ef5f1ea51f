/**
 * Whether a trust-root key may be relied on at a given instant.
 *
 * @module
 */
import { parseRfc3339 } from "./rfc3339.ts";
import type { KeyRole, TrustRoot } from "./trust_root.ts";

/** Query of {@link keyValidAt}. */
export interface KeyValidityQuery {
  /** Full 64-hex key id. */
  readonly keyid: string;
  /** The instant of signing: a `Date` or an RFC 3339 string. */
  readonly time: Date | string;
  /** When given, the key must also have this role. */
  readonly role?: KeyRole;
}

/** Answer of {@link keyValidAt}. */
export interface KeyValidity {
  /** Whether the key was valid at that time (and has the role, when asked). */
  readonly valid: boolean;
  /** Why not: `unknown key`, `wrong role`, `not yet valid`, `expired`, `revoked: <reason>`. */
  readonly reason?: string;
}

/**
 * Decides whether a key was valid at an instant: known, of the asked role, `start <= time`,
 * `time <= end` (when bounded), and not revoked at or before `time`.
 *
 * @param trustRoot parsed trust root
 * @param query `keyid`, `time` and optional `role`
 * @returns `{valid: true}` or `{valid: false, reason}`
 * @throws {TypeError} when `time` is an invalid `Date`
 * @throws {InputError} `BAD_TIMESTAMP` when `time` is a string that is not RFC 3339
 * @example
 * ```ts
 * import { keyValidAt } from "./key_valid_at.ts";
 * const root = { mediaType: "m", keys: [] };
 * const v = keyValidAt(root, { keyid: "00", time: "2026-01-01T00:00:00Z" });
 * if (v.valid || v.reason !== "unknown key") throw new Error();
 * ```
 */
export function keyValidAt(trustRoot: TrustRoot, query: KeyValidityQuery): KeyValidity {
  const t = _instant(query.time);
  const key = trustRoot.keys.find((k) => k.keyid === query.keyid);
  if (key === undefined) return { valid: false, reason: "unknown key" };
  if (query.role !== undefined && key.role !== query.role) {
    return { valid: false, reason: "wrong role" };
  }
  if (t < key.validFor.start) return { valid: false, reason: "not yet valid" };
  if (key.validFor.end !== undefined && t > key.validFor.end) {
    return { valid: false, reason: "expired" };
  }
  if (key.revoked !== undefined && key.revoked.time <= t) {
    return { valid: false, reason: `revoked: ${key.revoked.reason}` };
  }
  return { valid: true };
}

/**
 * Lists the public keys valid at an instant (optionally of one role), ready for `verifyEnvelope`.
 *
 * @param trustRoot parsed trust root
 * @param query `time` and optional `role`
 * @returns the 32-byte public keys, in trust-root order
 * @throws {TypeError} when `time` is an invalid `Date`
 * @throws {InputError} `BAD_TIMESTAMP` when `time` is a string that is not RFC 3339
 * @example
 * ```ts
 * import { trustedKeysAt } from "./key_valid_at.ts";
 * if (trustedKeysAt({ mediaType: "m", keys: [] }, { time: new Date() }).length !== 0) throw new Error();
 * ```
 */
export function trustedKeysAt(
  trustRoot: TrustRoot,
  query: Omit<KeyValidityQuery, "keyid">,
): Uint8Array[] {
  return trustRoot.keys
    .filter((k) => keyValidAt(trustRoot, { ...query, keyid: k.keyid }).valid)
    .map((k) => k.publicKey);
}

function _instant(time: Date | string): number {
  if (typeof time === "string") return parseRfc3339(time);
  if (!(time instanceof Date) || Number.isNaN(time.getTime())) {
    throw new TypeError("Cannot check key validity: time must be a valid Date or RFC 3339 string");
  }
  return time.getTime();
}
