/**
 * The audit announcement: before a drand round exists, the inspector signs which checkpoint it
 * will sample, how many records, and which chain and round will fix the randomness. The audit id
 * of an announced audit is not chosen: it is derived from (checkpoint, chain, round), so a second
 * announcement for the same checkpoint and round yields the same audit id and the same sample
 * (grinding over audit ids gains nothing); `k` is left out of the id because samples of different
 * sizes from one seed are prefixes of each other: announcing several k and keeping one gives a
 * sample no larger than that k, so a verifier's smallest accepted k (`check --require-sample`)
 * bounds the grinding, where k in the id would draw a fresh sample per k.
 *
 * Shape: a DSSE envelope over an in-toto Statement, subject = the checkpoint body by SHA-256, predicate type {@link ANNOUNCEMENT_PREDICATE_TYPE}.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, canonicalJson } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import type { Statement } from "../statement.ts";
import { STATEMENT_TYPE } from "../statement.ts";
import { parseRfc3339 } from "../rfc3339.ts";

/** Predicate type of audit announcements. */
export const ANNOUNCEMENT_PREDICATE_TYPE = "https://bitaudit.dev/audit-announcement/v1";

/** What an announcement commits to. */
export interface Announcement {
  /** Derived audit id ({@link announcedAuditId}). */
  readonly auditId: string;
  /** The prover's checkpoint: origin, size, root (hex), SHA-256 of its body (note text). */
  readonly checkpoint: {
    readonly origin: string;
    readonly treeSize: number;
    readonly rootHash: string;
    readonly bodySha256: string;
  };
  /** Records to sample. */
  readonly k: number;
  /** The drand chain and the (future) round whose randomness will fix the sample. */
  readonly beacon: {
    readonly chainHash: string;
    readonly round: number;
    readonly roundTime: string;
  };
  /** When the inspector announced, RFC 3339 UTC (must precede `beacon.roundTime`). */
  readonly announcedAt: string;
}

/**
 * The prefix of an audit id derived from an announcement ({@link announcedAuditId}): an audit id
 * that starts with it reads as announced, so it is taken only together with the announcement.
 */
export const ANNOUNCED_ID_PREFIX = "announced-";

/**
 * The audit id of an announced audit: `announced-` and the first 32 hex digits of SHA-256 over
 * the RFC 8785 JSON `{chainHash, bodySha256, round}`.
 *
 * @param o checkpoint note digest, chain hash and round
 * @returns the audit id
 * @example
 * ```ts
 * import { announcedAuditId } from "./announcement.ts";
 * const id = announcedAuditId({ bodySha256: "00".repeat(32), chainHash: "11".repeat(32), round: 5 });
 * if (!/^announced-[0-9a-f]{32}$/.test(id)) throw new Error();
 * ```
 */
export function announcedAuditId(
  o: { bodySha256: string; chainHash: string; round: number },
): string {
  const digest = sha256(
    canonicalJson({ chainHash: o.chainHash, bodySha256: o.bodySha256, round: o.round }),
  );
  return `${ANNOUNCED_ID_PREFIX}${bytesToHex(digest).slice(0, 32)}`;
}

/**
 * Builds the announcement statement.
 *
 * @param a the announcement (its `auditId` must be the derived one)
 * @returns the in-toto statement to sign
 * @throws {RangeError} when the audit id is not derived from the other fields or the round time
 *   is not after the announcement time
 * @example
 * ```ts ignore
 * const st = announcementStatement(announcement);
 * ```
 */
export function announcementStatement(a: Announcement): Statement {
  _consistent(a, (why) => {
    throw new RangeError(`Cannot build announcement: ${why}`);
  });
  return {
    _type: STATEMENT_TYPE,
    subject: [{
      name: `bitaudit-checkpoint:${a.checkpoint.origin}`,
      digest: { sha256: a.checkpoint.bodySha256 },
    }],
    predicateType: ANNOUNCEMENT_PREDICATE_TYPE,
    predicate: { ...a },
  };
}

/**
 * Reads an announcement from a verified statement strictly.
 *
 * @param st statement parsed from verified payload bytes
 * @returns the announcement
 * @throws {InputError} `BAD_ANNOUNCEMENT` for a value that is not a statement, another predicate
 *   type, unknown or missing fields, an audit id that is not derived, or a round not after the
 *   announcement
 * @example
 * ```ts ignore
 * const a = parseAnnouncement(parseStatement(verified.payload));
 * ```
 */
export function parseAnnouncement(st: Statement): Announcement {
  const bad = (why: string): never => {
    throw new InputError("BAD_ANNOUNCEMENT", `Cannot read announcement: ${why}`);
  };
  if (typeof st !== "object" || st === null || st.predicateType !== ANNOUNCEMENT_PREDICATE_TYPE) {
    bad("not an audit announcement");
  }
  const p = _fields(st.predicate, ["auditId", "checkpoint", "k", "beacon", "announcedAt"], bad);
  const cp = _fields(p.checkpoint, ["origin", "treeSize", "rootHash", "bodySha256"], bad);
  const b = _fields(p.beacon, ["chainHash", "round", "roundTime"], bad);
  const str = (v: unknown, re: RegExp, what: string) =>
    typeof v === "string" && re.test(v) ? v : bad(`'${what}' is malformed`);
  const int = (v: unknown, min: number, what: string) =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= min
      ? v
      : bad(`'${what}' is malformed`);
  const hex64 = /^[0-9a-f]{64}$/;
  const a: Announcement = {
    auditId: str(p.auditId, /^announced-[0-9a-f]{32}$/, "auditId"),
    checkpoint: {
      origin: str(cp.origin, /^[^\s+]{1,1024}$/u, "checkpoint.origin"),
      treeSize: int(cp.treeSize, 0, "checkpoint.treeSize"),
      rootHash: str(cp.rootHash, hex64, "checkpoint.rootHash"),
      bodySha256: str(cp.bodySha256, hex64, "checkpoint.bodySha256"),
    },
    k: int(p.k, 1, "k"),
    beacon: {
      chainHash: str(b.chainHash, hex64, "beacon.chainHash"),
      round: int(b.round, 1, "beacon.round"),
      roundTime: str(b.roundTime, /^[0-9TZ:.+-]{20,35}$/, "beacon.roundTime"),
    },
    announcedAt: str(p.announcedAt, /^[0-9TZ:.+-]{20,35}$/, "announcedAt"),
  };
  _consistent(a, bad);
  return a;
}

function _consistent(a: Announcement, bad: (why: string) => never): void {
  const id = announcedAuditId({
    bodySha256: a.checkpoint.bodySha256,
    chainHash: a.beacon.chainHash,
    round: a.beacon.round,
  });
  if (a.auditId !== id) bad(`the audit id is not ${id}`);
  let at: number;
  let rt: number;
  try {
    at = parseRfc3339(a.announcedAt);
    rt = parseRfc3339(a.beacon.roundTime);
  } catch {
    return bad("a time is not RFC 3339");
  }
  if (rt <= at) bad("the round is not after the announcement");
}

function _fields(
  v: unknown,
  known: readonly string[],
  bad: (why: string) => never,
): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return bad("not an object");
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!known.includes(k)) bad(`unknown field '${k}'`);
  for (const k of known) if (!(k in o)) bad(`missing field '${k}'`);
  return o;
}
