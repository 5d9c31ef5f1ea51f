/**
 * `check`'s view of an announced audit: the announcement envelope carried in the attestation must
 * be signed by an inspector key valid when it was announced, and name exactly the checkpoint, k,
 * chain, round and (derived) audit id the audit used, with the round after the announcement. With
 * an RFC 3161 token over the announcement's signature, "when it was announced" is the TSA's time,
 * not the inspector's.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "../../claims/mod.ts";
import { quoteShort } from "../../escape_text.ts";
import { decodeBase64 } from "../base64.ts";
import { parseEnvelope } from "../envelope.ts";
import { keyValidAt } from "../key_valid_at.ts";
import { parseSignedStatement, parseStatement } from "../statement.ts";
import type { TrustRoot } from "../trust_root.ts";
import { verifyEnvelope } from "../verify_envelope.ts";
import { parseSignedNote } from "../note/mod.ts";
import { parseRfc3339 } from "../rfc3339.ts";
import { checkSignatureTimestamp } from "../timestamp/mod.ts";
import { type Announcement, parseAnnouncement } from "./announcement.ts";

/** What the audit used, to compare with the announcement. */
export interface AnnouncedAudit {
  /** The audit id the verdict records. */
  readonly auditId: unknown;
  /** The sample size the verdict records. */
  readonly k: unknown;
  /** The signed checkpoint the verdict binds, if any (a `CheckpointBinding`, or its JSON). */
  readonly checkpoint?: {
    readonly note?: unknown;
    readonly origin?: unknown;
    readonly treeSize?: unknown;
    readonly rootHash?: unknown;
  };
  /** The drand round the verdict binds, if any (a `DrandBinding`, or its JSON). */
  readonly drand?: {
    readonly chainHash?: unknown;
    readonly round?: unknown;
    readonly roundTime?: unknown;
  };
}

/**
 * Verifies an announcement envelope (as parsed JSON) and compares it with the audit.
 *
 * @param envelope the DSSE envelope object recorded in the attestation
 * @param options trust root, the audit's values, an RFC 3161 token over the announcement's
 *   signature when there is one (its time then replaces the stated `announcedAt`), and `now`, the
 *   verification time (default the clock): without a token the key must be valid at the stated
 *   time and now
 * @returns `why` when it fails, else the announcement (and the token's time)
 * @example
 * ```ts ignore
 * const r = await checkAnnouncement(audit.announcement.envelope, { trustRoot, audit });
 * ```
 */
export async function checkAnnouncement(
  envelope: unknown,
  options: { trustRoot: TrustRoot; audit: AnnouncedAudit; timestamp?: Uint8Array; now?: Date },
): Promise<{ why: string } | { announcement: Announcement; timestampedAt?: string }> {
  const { trustRoot, audit } = options;
  let a: Announcement;
  let stamped: string | undefined;
  try {
    const env = parseEnvelope(JSON.stringify(envelope));
    const unverified = parseStatement(decodeBase64(env.payload, { alphabet: "any" }));
    let at = String((unverified.predicate as { announcedAt?: unknown })?.announcedAt ?? "");
    let entry: number | undefined;
    if (options.timestamp !== undefined) {
      // A TSA's time replaces the inspector's for the signature it covers, and only for that one:
      // that signature's key is judged then, and the time must precede the round.
      const t = await checkSignatureTimestamp(env, { token: options.timestamp, trustRoot });
      if ("why" in t) return { why: `the announcement's RFC 3161 timestamp: ${t.why}` };
      at = stamped = t.time;
      entry = t.signature;
    }
    // Without a token the time is the inspector's word: its key must also be valid now.
    const now = options.now ?? new Date();
    const valid = (keyid: string, time: Date | string) =>
      keyValidAt(trustRoot, { keyid, time, role: "inspector" }).valid;
    const keys = trustRoot.keys
      .filter((k) => valid(k.keyid, at) && (entry !== undefined || valid(k.keyid, now)))
      .map((k) => k.publicKey);
    const v = await verifyEnvelope(env, { trustedKeys: keys });
    if (entry !== undefined && v.signatures[entry]?.verifiedBy == null) {
      return {
        why: `the announcement's RFC 3161 timestamp covers signature ${entry}, ` +
          `which no inspector key valid at ${at} made`,
      };
    }
    if (!v.verified) {
      return {
        why: `no inspector key valid at ${at}${
          entry === undefined ? " and at the verification time" : ""
        } signed the announcement`,
      };
    }
    a = parseAnnouncement(parseSignedStatement(v.payload));
    // Without a token the keys were judged at the stated time: it must be the signed one.
    if (entry === undefined && a.announcedAt !== at) {
      return { why: `the keys were judged at ${quoteShort(at)}, not at the signed announcedAt` };
    }
  } catch (e) {
    return { why: `malformed announcement (${(e as Error).message})` };
  }
  const cp = audit.checkpoint;
  const d = audit.drand;
  if (cp === undefined || d === undefined) {
    return { why: "an announcement needs a beacon and a checkpoint" };
  }
  let bodySha: string;
  try {
    bodySha = bytesToHex(sha256(new TextEncoder().encode(parseSignedNote(String(cp.note)).text)));
  } catch {
    return { why: "the audit's checkpoint note is malformed" };
  }
  if (a.auditId !== audit.auditId) return { why: `the audit id is not the announced ${a.auditId}` };
  if (a.k !== audit.k) return { why: `k is not the announced ${a.k}` };
  if (
    a.checkpoint.bodySha256 !== bodySha || a.checkpoint.origin !== cp.origin ||
    a.checkpoint.treeSize !== cp.treeSize || a.checkpoint.rootHash !== cp.rootHash
  ) return { why: "the checkpoint is not the announced one" };
  if (
    a.beacon.chainHash !== d.chainHash || a.beacon.round !== d.round ||
    a.beacon.roundTime !== d.roundTime
  ) return { why: "the drand round is not the announced one" };
  if (stamped !== undefined) {
    if (parseRfc3339(stamped) >= parseRfc3339(a.beacon.roundTime)) {
      return { why: `the announcement was timestamped ${stamped}, not before the round` };
    }
    return { announcement: a, timestampedAt: stamped };
  }
  return { announcement: a };
}
