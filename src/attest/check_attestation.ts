/**
 * Offline checking of a verdict attestation by a third party: signatures against a trust root
 * (each counted key valid and unrevoked at the stated time and at the verification time, or at
 * the time independent evidence shows: see `requiredInstants`), seed and sample recomputed from
 * the statement's own inputs, the worker keys of its results against the trust root (none a
 * prover's, none an inspector's invalid at the verdict's time), optionally the subjects against
 * the claim log, and optionally every sampled record recomputed independently.
 *
 * @module
 */
import type { ClaimLog } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import { quoteShort } from "../escape_text.ts";
import { type EvidenceLevel, type RecordResult, resultDifference } from "../verify/mod.ts";
import { decodeBase64 } from "./base64.ts";
import type { DsseEnvelope } from "./dsse.ts";
import { snapshotEnvelope } from "./_envelope_snapshot.ts";
import { countSigners } from "./count_signers.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import {
  requiredInstants,
  type SigningTimeEvidence,
  type SigningTimeSource,
} from "./signing_time.ts";
import { checkTrustInputs, type TrustLabels } from "./check_trust_inputs.ts";
import { checkSignatureTimestamp, trustedTsaAnchors } from "./timestamp/mod.ts";
import { trustedDrandChains } from "./beacon/mod.ts";
import { parseVerdictPredicate } from "./parse_verdict_predicate.ts";
import {
  IN_TOTO_PAYLOAD_TYPE,
  parseSignedStatement,
  parseStatement,
  type Statement,
} from "./statement.ts";
import { MAX_TRUST_ROOT_KEYS, type TrustRoot, type TrustRootKey } from "./trust_root.ts";
import {
  VERDICT_PREDICATE_TYPE,
  type VerdictPredicate,
  type VerdictResult,
  verdictResult,
} from "./verdict_predicate.ts";
import { type SignatureResult, verifyEnvelope } from "./verify_envelope.ts";
import { statementChecks } from "./statement_checks.ts";
import { checkWorkerKeys } from "./check_worker_keys.ts";
import { checkReleaseAssets, type ReleaseAssets } from "./compare_release_assets.ts";

/** One check and its outcome. */
export interface CheckItem {
  /** Name of the check, e.g. `signatures`, `predicate`, `seed`, `verdict`. */
  readonly check: string;
  /** Whether it passed. */
  readonly ok: boolean;
  /** What was found (one line; for a refused predicate `[CODE] message`). */
  readonly detail: string;
}

/**
 * What the attested audit applied to every record, read from the verdict: a recomputation must
 * apply the same for its result to be comparable (`audit.requireEvidence`; absent: no policy;
 * `audit.maxRecordProducts`; absent: the default budget).
 */
export interface RecomputePolicy {
  /** The weakest evidence a PASS may rest on (`VerifyContext.requireEvidence`). */
  readonly requireEvidence?: EvidenceLevel;
  /** The budget a record (`VerifyContext.maxRecordProducts`). */
  readonly maxRecordProducts?: number;
}

/**
 * Recomputes one sampled record independently, under the attested audit's `policy` (the CLI
 * passes `verifyRecord` over the log and the blob store, with the policy in its context; the
 * checker stays free of engines and file access so it also runs in a browser). The whole result
 * is compared with the attested one, not only its status.
 */
export type RecomputeRecord = (index: number, policy: RecomputePolicy) => Promise<RecordResult>;

/** The outcome of checking an attestation. */
export interface CheckReport {
  /** True only when every check passed. */
  readonly valid: boolean;
  /**
   * The verdict the statement states, if its predicate could be read: also when `valid` is false
   * (a genuine statement whose install's assets differ, or one whose verdict or sample check
   * failed), so it means nothing without `valid`.
   */
  readonly verdict: string | null;
  /** The audit id, if it could be read. */
  readonly auditId: string | null;
  /** Signature results. */
  readonly signatures: readonly SignatureResult[];
  /** Every check in order. */
  readonly checks: readonly CheckItem[];
  /** How the randomness and the commitment were established (once the payload verified). */
  readonly trust?: TrustLabels;
  /**
   * The time a given RFC 3161 token vouches the signature it covers existed at (RFC 3339), once
   * the token verified: it dates the signature, not the statement's stated `timeVerified`.
   */
  readonly tokenTime?: string;
}

/**
 * Checks an attestation.
 *
 * The envelope and the trust root's key list are read once, into copies that every check reads
 * (an object whose fields change between reads cannot have its keys judged at one payload's
 * signing time and its signatures verified over another's); keys are judged at the stated
 * `timeVerified`, which must be the signed statement's.
 *
 * @param envelope parsed DSSE envelope (an object that is not one of an envelope's JSON types is
 *   an invalid attestation: an `envelope` check that fails)
 * @param options trust root; `threshold` of distinct inspector signatures (default 1); `log` to
 *   confirm subjects; `recompute` to re-run each sampled record (only together with `log`);
 *   `timestamp`, an RFC 3161 token (DER) over one of the envelope's signatures: keys are then
 *   judged valid and unrevoked at the token's time instead of the verification time;
 *   `timeSources`, other independent signing-time evidence; `now` the verification time
 *   (default the clock); `release`, the checker's own release: a verdict that names it is held
 *   to its manifest (an `assets` check per asset that differs, `[VERDICT_ASSETS]`; a verdict of
 *   another release gets an `assets` line saying it was not compared)
 * @returns the report (invalid attestations are results, not exceptions)
 * @throws {InputError} `BAD_TRUST_ROOT` when the trust root's pinned drand chains or TSA anchors
 *   are malformed, or it has no array of at most `MAX_TRUST_ROOT_KEYS` keys
 * @throws {RangeError} when `threshold` is not an integer >= 1, or `recompute` comes without
 *   `log` (nothing would be recomputed, and a report without a recompute check would read as one
 *   that recomputed)
 * @example
 * ```ts ignore
 * const report = await checkAttestation(envelope, { trustRoot, log });
 * ```
 */
export async function checkAttestation(
  envelope: DsseEnvelope,
  options: {
    trustRoot: TrustRoot;
    threshold?: number;
    log?: ClaimLog;
    recompute?: RecomputeRecord;
    timestamp?: Uint8Array;
    timeSources?: readonly SigningTimeSource[];
    now?: Date;
    release?: ReleaseAssets;
  },
): Promise<CheckReport> {
  const threshold = options.threshold ?? 1;
  if (!Number.isSafeInteger(threshold) || threshold < 1) {
    throw new RangeError(`Cannot check attestation: threshold ${threshold} is not an integer >= 1`);
  }
  if (options.recompute !== undefined && options.log === undefined) {
    throw new RangeError(
      "Cannot check attestation: recompute needs the claim log the records are read from",
    );
  }
  const trustRoot = _trustRootCopy(options.trustRoot);
  // The pinned chains and authorities are read first, as the checks below read them: a malformed
  // entry is the trust root's fault (BAD_TRUST_ROOT), never a failed check of the attestation.
  trustedDrandChains(trustRoot.drand);
  trustedTsaAnchors(trustRoot.tsa);
  const checks: CheckItem[] = [];
  const add = (check: string, ok: boolean, detail: string) => checks.push({ check, ok, detail });
  const labels: { trust?: TrustLabels; tokenTime?: string } = {};
  const done = (p: VerdictPredicate | null, sigs: readonly SignatureResult[]): CheckReport => ({
    valid: checks.length > 0 && checks.every((c) => c.ok),
    verdict: p?.verdict ?? null,
    auditId: p?.audit.auditId ?? null,
    signatures: sigs,
    checks,
    ...labels,
  });
  let env: DsseEnvelope;
  try {
    env = snapshotEnvelope(envelope);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    add("envelope", false, e.message);
    return done(null, []);
  }
  if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE) {
    // Nothing vouches for the text: quoted and short, so it cannot pose as a line of its own.
    add(
      "payloadType",
      false,
      `expected ${IN_TOTO_PAYLOAD_TYPE}, got ${quoteShort(env.payloadType, 16)}`,
    );
    return done(null, []);
  }
  // The stated signing time is read from the payload; it alone cannot clear a revoked key.
  let claimedTime: string;
  let verified: Awaited<ReturnType<typeof verifyEnvelope>> | undefined;
  try {
    const bytes = decodeBase64(env.payload, { alphabet: "any" });
    // A payload above what anyone may hand over to be read unsigned is read only once an
    // inspector key of the trust root is seen to have signed it (`UNSIGNED_READ_BYTES`).
    if (bytes.length > UNSIGNED_READ_BYTES) {
      const pre = verified = await _verifiedBy(env, trustRoot);
      if (!pre.signatures.some((x) => x.verifiedBy !== null)) {
        add(
          "signatures",
          false,
          `0 valid inspector signatures over a payload of ${bytes.length} bytes (above ` +
            `${UNSIGNED_READ_BYTES}, it is read only once one is)`,
        );
        return done(null, pre.signatures);
      }
    }
    const unverified = parseStatement(bytes);
    // Another statement (an announcement, a claim) handed over as a verdict: said as such, not
    // as its missing verification time.
    if (unverified.predicateType !== VERDICT_PREDICATE_TYPE) {
      add(
        "predicate",
        false,
        `predicateType is ${quoteShort(String(unverified.predicateType), 80)}, not a verdict's ` +
          `${VERDICT_PREDICATE_TYPE}`,
      );
      return done(null, []);
    }
    claimedTime = String((unverified.predicate as { timeVerified?: unknown })?.timeVerified ?? "");
  } catch {
    add("statement", false, "payload is not an in-toto Statement");
    return done(null, []);
  }
  let stated: number;
  try {
    stated = parseRfc3339(claimedTime);
  } catch {
    add("time", false, `timeVerified ${quoteShort(claimedTime)} is not an RFC 3339 time`);
    return done(null, []);
  }
  const evidence: SigningTimeEvidence[] = [];
  // An RFC 3161 token over a signature: the TSA's time replaces the verification time for the
  // key that made that signature (and for no other).
  if (options.timestamp !== undefined) {
    const t = await checkSignatureTimestamp(env, {
      token: options.timestamp,
      trustRoot,
    });
    add(
      "timestamp",
      !("why" in t),
      "why" in t ? t.why : `RFC 3161 token: signature ${t.signature} existed at ${t.time}`,
    );
    if ("why" in t) return done(null, []);
    labels.tokenTime = t.time;
    evidence.push({ kind: "rfc3161", time: parseRfc3339(t.time), signature: t.signature });
  }
  for (const source of options.timeSources ?? []) {
    const e = await source.evidence(env, trustRoot);
    if (e !== null) evidence.push(e);
  }
  const now = (options.now ?? new Date()).getTime();
  const future = requiredInstants(stated, { now, evidence: [] });
  if ("refused" in future) {
    add("time", false, future.refused);
    return done(null, []);
  }
  verified ??= await _verifiedBy(env, trustRoot);
  const v = _signers({
    verified,
    otherRole: await _otherRoleSigner(env, { verified, trustRoot }),
    trustRoot,
    threshold,
    instants: (entry) =>
      requiredInstants(stated, { now, evidence: evidence.filter((e) => e.signature === entry) }),
    evidenced: evidence.map((e) => e.signature),
  });
  add("signatures", v.verified, v.detail);
  if (!v.verified) return done(null, v.signatures);
  let st: Statement;
  try {
    st = parseSignedStatement(v.payload); // the verified bytes, never the envelope again
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    add("statement", false, e.message);
    return done(null, v.signatures);
  }
  if (st.predicateType !== VERDICT_PREDICATE_TYPE) {
    add("predicate", false, `predicateType must be ${VERDICT_PREDICATE_TYPE}`);
    return done(null, v.signatures);
  }
  let p: VerdictPredicate;
  try {
    p = parseVerdictPredicate(st.predicate);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    add("predicate", false, `[${e.code}] ${e.message}`);
    return done(null, v.signatures);
  }
  // The keys were judged at the time read before the signatures were checked: only the signed
  // statement's own time may stand for it.
  if (p.timeVerified !== claimedTime) {
    add(
      "time",
      false,
      `the keys were judged at ${quoteShort(claimedTime)}, not at the signed timeVerified ` +
        quoteShort(p.timeVerified),
    );
    return done(null, v.signatures);
  }
  statementChecks(st.subject, p, add);
  checkWorkerKeys(p, {
    trustRoot,
    signers: v.signatures.flatMap((s) => s.verifiedBy ?? []),
    add,
  });
  labels.trust = await checkTrustInputs(p.audit, {
    trustRoot,
    now: new Date(now),
    add,
    verdictTime: parseRfc3339(p.timeVerified),
  });
  if (options.release !== undefined) checkReleaseAssets(p, { release: options.release, add });
  const logMatches = options.log !== undefined && _checkLog(p, options.log, add);
  if (options.recompute !== undefined && options.log !== undefined) {
    // Only a log that is the attested one can be recomputed from: another log's records (or a
    // shorter log) say nothing about the attested results.
    if (!logMatches) add("recompute", false, "skipped: the claim log is not the attested one");
    // The policy the audit applied is applied again: without it, a record the audit found below
    // its required evidence (NOT_VERIFIED) would recompute as a PASS, and one over its budget
    // would be recomputed (or one within it refused).
    const policy: RecomputePolicy = {
      ...(p.audit.requireEvidence === undefined
        ? {}
        : { requireEvidence: p.audit.requireEvidence }),
      ...(p.audit.maxRecordProducts === undefined
        ? {}
        : { maxRecordProducts: p.audit.maxRecordProducts }),
    };
    for (const r of logMatches ? p.results : []) {
      const again = await options.recompute(r.index, policy);
      // Every field the recomputation yields is the checker's own: the evidence levels a
      // `--require-evidence` policy reads, the SFU functions, what a FAIL found, the reason.
      // The status first (said on its own), then the first other field that differs.
      const why = resultDifference(r, verdictResult(again), { fields: RECOMPUTED_FIELDS });
      // A status that differs comes with the recomputation's own reason (a blob missing from
      // the checker's copy reads otherwise as the attestation's fault).
      add(
        `recompute[${r.index}]`,
        again.status === r.status && why === null,
        `attested ${r.status}, recomputed ${again.status}${
          again.status !== r.status
            ? `: ${quoteShort(again.reason, 200)}`
            : why === null
            ? ""
            : `; ${why}`
        }`,
      );
    }
  }
  return done(p, v.signatures);
}

/**
 * The fields of an attested result that a recomputation of its record yields besides its status,
 * in the order a difference is looked for: everything but `worker` (who computed it, which no
 * recomputation says). A record, so that a field added to results is a compile error here until
 * it is compared.
 */
const RECOMPUTED: Readonly<Record<Exclude<keyof VerdictResult, "status" | "worker">, true>> = {
  index: true,
  record: true,
  finding: true,
  obligation: true,
  claimed: true,
  recomputed: true,
  firstDifference: true,
  evidence: true,
  sfu: true,
  reason: true,
};
const RECOMPUTED_FIELDS = Object.keys(RECOMPUTED);

/**
 * The trust root as the checks read it, its key list read once and copied: an array of at most
 * {@link MAX_TRUST_ROOT_KEYS} keys, as `parseTrustRoot` gives (one built by hand with a length of
 * 2^32 - 1 took minutes to filter).
 */
function _trustRootCopy(root: TrustRoot): TrustRoot {
  const bad = (why: string): never => {
    throw new InputError("BAD_TRUST_ROOT", `Cannot check attestation: the trust root ${why}`);
  };
  if (typeof root !== "object" || root === null) bad("is not an object");
  const { mediaType, keys, drand, tsa } = root;
  if (!Array.isArray(keys)) bad("has no array of keys");
  if (keys.length > MAX_TRUST_ROOT_KEYS) {
    bad(`lists ${keys.length} keys, more than ${MAX_TRUST_ROOT_KEYS}`);
  }
  const copy: TrustRootKey[] = [];
  for (let i = 0; i < keys.length; i++) {
    if (!Object.hasOwn(keys, i)) bad(`has no key at index ${i} of its list`);
    copy.push(keys[i]!);
  }
  return Object.freeze({
    mediaType,
    keys: Object.freeze(copy),
    ...(drand === undefined ? {} : { drand }),
    ...(tsa === undefined ? {} : { tsa }),
  });
}

/** The envelope's signatures checked against every inspector key of the trust root. */
function _verifiedBy(
  envelope: DsseEnvelope,
  trustRoot: TrustRoot,
): ReturnType<typeof verifyEnvelope> {
  const inspectors = trustRoot.keys.filter((k) => k.role === "inspector");
  return verifyEnvelope(envelope, { trustedKeys: inspectors.map((k) => k.publicKey) });
}

/**
 * Where no inspector key verifies a signature: the first key of another role in the trust root
 * that does (a key listed as a prover's signed the verdict), named so that the refusal does not
 * read as a changed statement; null otherwise.
 */
async function _otherRoleSigner(
  envelope: DsseEnvelope,
  o: { verified: Awaited<ReturnType<typeof verifyEnvelope>>; trustRoot: TrustRoot },
): Promise<{ keyid: string; role: string } | null> {
  if (o.verified.signatures.some((s) => s.verifiedBy !== null)) return null;
  const others = o.trustRoot.keys.filter((k) => k.role !== "inspector");
  if (others.length === 0) return null;
  const v = await verifyEnvelope(envelope, { trustedKeys: others.map((k) => k.publicKey) });
  const by = v.signatures.find((s) => s.verifiedBy !== null)?.verifiedBy ?? null;
  const key = by === null ? undefined : others.find((k) => k.keyid === by);
  return key === undefined ? null : { keyid: key.keyid, role: key.role };
}

/**
 * Largest payload read before its signatures are checked (for the stated signing time): 1 MiB,
 * far below `MAX_ENVELOPE_BYTES`; a larger one must first carry a signature an inspector key of
 * the trust root verifies. Hostile JSON costs far more memory than its bytes (16 MiB of `{},`
 * took over a gigabyte to parse), and verifying a signature first costs little.
 */
export const UNSIGNED_READ_BYTES = 1024 * 1024;

/**
 * Verifies the signatures with every inspector key of the trust root, then counts only the
 * signers whose key is valid at each instant its signature entry is judged at (`countSigners`:
 * an entry with evidence at the evidenced times, any other at the stated and the verification
 * time), naming the others and why. A key counts when one of its entries passes. Evidence over an entry that no
 * counted key made fails the check: it dates nothing the verdict rests on.
 */
function _signers(
  o: {
    verified: Awaited<ReturnType<typeof verifyEnvelope>>;
    otherRole: { keyid: string; role: string } | null;
    trustRoot: TrustRoot;
    threshold: number;
    instants: (entry: number) => ReturnType<typeof requiredInstants>;
    evidenced: readonly number[];
  },
): { verified: boolean; payload: Uint8Array; signatures: SignatureResult[]; detail: string } {
  const v = o.verified;
  const { counted, judged, entryRefusal, refused } = countSigners(
    v.signatures.map((s) => s.verifiedBy),
    o,
  );
  const signatures = v.signatures.map((s, entry) => {
    const why = entryRefusal[entry];
    return s.verifiedBy !== null && why !== null
      ? { keyid: s.keyid, valid: false, verifiedBy: null, reason: why!, refusedKey: s.verifiedBy }
      : s;
  });
  const stray = [...new Set(o.evidenced)].filter((entry) => {
    const s = signatures[entry];
    return s === undefined || s.verifiedBy === null;
  });
  // No key of the trust root verifies any signature over these bytes: said plainly, before any
  // note on timestamps (a token over a signature that does not verify says nothing more).
  const none = v.signatures.every((s) => s.verifiedBy === null);
  const detail = [
    `${counted.length} valid inspector signature(s)${
      o.threshold > 1 ? ` of the ${o.threshold} required` : ""
    }${judged.length > 0 ? `, keys valid: ${judged.join("; ")}` : ""}`,
    ...(none && v.signatures.length > 0
      ? [
        o.otherRole !== null
          ? `the signature verifies with key ${
            o.otherRole.keyid.slice(0, 16)
          }…, which your trust root lists as a ${o.otherRole.role} key, not an inspector's`
          : "no signature verifies over this payload with an inspector key of your trust root: " +
            "the statement was changed after it was signed, or another key signed it",
      ]
      : []),
    ...refused.values(),
    ...stray.map((entry) =>
      `the signing-time evidence covers signature ${entry}, which no counted inspector key made`
    ),
  ].join("; ");
  return {
    verified: counted.length >= o.threshold && stray.length === 0,
    payload: v.payload,
    signatures,
    detail,
  };
}

/** Adds the log checks; true when all of them pass. */
function _checkLog(
  p: VerdictPredicate,
  log: ClaimLog,
  add: (c: string, ok: boolean, d: string) => void,
): boolean {
  const root = log.root === p.audit.logRoot;
  add(
    "log-root",
    root,
    root
      ? "claim log root equals the attested root"
      : `claim log root ${log.root.slice(0, 16)}… differs from the attested ` +
        `${p.audit.logRoot.slice(0, 16)}…`,
  );
  const size = log.records.length === p.audit.population;
  add(
    "log-size",
    size,
    size
      ? `${log.records.length} records`
      : `${log.records.length} records, the attested population ${p.audit.population}`,
  );
  // Each result names its record by digest and repeats the record's claimed fingerprint; the
  // audit names the log's id. Compared only on a log of the attested size (the log-size check
  // says so otherwise): an index past the end names no record.
  const logId = log.records[0]?.predicate.log.logId;
  const bad = size
    ? p.results.filter((r) =>
      log.digests[r.index] !== r.record ||
      log.records[r.index]!.predicate.fingerprint.sha256 !== r.claimed
    )
    : p.results;
  const idOk = logId === p.audit.logId;
  const records = bad.length === 0 && idOk;
  add(
    "log-records",
    records,
    records
      ? "every sampled record's digest and claimed fingerprint, and the log id, match the log"
      : !idOk
      ? `the attested log id ${quoteShort(p.audit.logId)} is not the log's ${
        quoteShort(logId ?? "")
      }`
      : !size
      ? "not compared: the log is not of the attested size (another log)"
      : `${bad.length} sampled record(s) differ from the log (digest or claimed fingerprint; a ` +
        "record changed in the log changes every later record's digest through the chain)",
  );
  return root && size && records;
}
