/**
 * Strict reading of a verdict predicate from a verified Statement: every field of
 * {@link VerdictPredicate} required (only the documented per-result fields optional), nothing else
 * allowed, each value of its JSON type, so that a checker never meets a missing or mistyped field.
 * Signed data must also mean what it says: each result agrees with its own status
 * (`resultInconsistency`), names a worker key the predicate lists, and the re-verified indices are
 * sampled results that a worker returned.
 *
 * @module
 */
import { announcementOf, beaconOf, checkpointOf } from "./_verdict_trust_fields.ts";
import { ANNOUNCED_ID_PREFIX } from "./announcement/mod.ts";
import {
  AUDIT_ID_PATTERN,
  AUDIT_ID_RULE,
  AUDIT_SEED_DOMAIN,
  type AuditVerdict,
  type DetectionStatement,
  ELEMENT_BITS,
  type EvidenceLevel,
  FAIL_FINDINGS,
  isVerdictEngine,
  MAX_COMPONENT_TEXT,
  MAX_RESULT_TEXT,
  type ProverObligation,
  readBudget,
  type RecordStatus,
  RESULT_NAME,
  resultInconsistency,
  SAMPLE_ALGORITHM,
  WORKER_ENGINES,
} from "../verify/mod.ts";
import { InputError } from "../errors.ts";
import { LOG_ID_PATTERN } from "../claims/mod.ts";
import { decodeBase64 } from "./base64.ts";
import { keyId } from "./key_id.ts";
import { decodeSpki } from "./spki.ts";
import type {
  VerdictAudit,
  VerdictDifference,
  VerdictPredicate,
  VerdictResult,
  VerdictSfuUse,
  VerdictWorkerKey,
  VerdictWorkers,
} from "./verdict_predicate.ts";
import {
  fieldsOf,
  intOf,
  isJsonObject,
  quoteKey,
  typeError,
  type VerdictPredicateCode,
} from "./_verdict_fields.ts";

export type { VerdictPredicateCode };

/** Each union as a record, so that a new member is a compile error here until it is allowed. */
const VERDICTS: Record<AuditVerdict, true> = { PASSED: true, FAILED: true, INCONCLUSIVE: true };
const STATUSES: Record<RecordStatus, true> = { PASS: true, FAIL: true, NOT_VERIFIED: true };
const OBLIGATIONS: Record<ProverObligation, true> = { "committed-input": true };
const LEVELS: Record<EvidenceLevel, true> = {
  "derived-from-source": true,
  "checked-against-peer": true,
  "measured-on-gpu": true,
};
const SFU_STATUSES: Record<VerdictSfuUse["status"], true> = {
  "model-only": true,
  "histogram-matched": true,
  "spot-checked": true,
  "exhaustive-on-gpu": true,
  "ieee-exact": true,
};

/**
 * Reads a verdict predicate (the `predicate` of a Statement whose `predicateType` is
 * `VERDICT_PREDICATE_TYPE`), refusing anything that is not exactly the contract.
 *
 * @param value the parsed predicate
 * @returns a fresh typed copy
 * @throws {InputError} with a `VerdictPredicateCode`, naming the first bad field's path
 * @example
 * ```ts
 * import { parseVerdictPredicate } from "./parse_verdict_predicate.ts";
 * import { InputError } from "../errors.ts";
 * try {
 *   parseVerdictPredicate({ verdict: "PASSED" });
 *   throw new Error("accepted");
 * } catch (e) {
 *   if (!(e instanceof InputError) || e.code !== "VERDICT_FIELD_MISSING") throw e;
 * }
 * ```
 */
export function parseVerdictPredicate(value: unknown): VerdictPredicate {
  const p = fieldsOf(value, "predicate", [
    "verifier",
    "timeVerified",
    "audit",
    "detection",
    "results",
    "verdict",
    "workers",
    "assets",
  ]);
  const v = fieldsOf(p.get("verifier"), "predicate.verifier", [
    "id",
    "version",
    "engine",
    "runtime",
  ]);
  const predicate: VerdictPredicate = {
    verifier: {
      id: v.str("id"),
      version: v.str("version"),
      engine: _engine(v.str("engine")),
      runtime: v.str("runtime"),
    },
    timeVerified: p.str("timeVerified"),
    audit: _audit(p.get("audit")),
    detection: _detection(p.get("detection")),
    results: p.list("results", _result),
    verdict: p.oneOf("verdict", VERDICTS),
    workers: _workers(p.get("workers")),
    assets: _assets(p.get("assets")),
  };
  _attribution(predicate);
  return predicate;
}

function _workers(value: unknown): VerdictWorkers {
  const w = fieldsOf(value, "predicate.workers", ["keys", "reverified"]);
  return {
    keys: w.list("keys", (x, where): VerdictWorkerKey => {
      const k = fieldsOf(x, where, ["keyid", "publicKey"]);
      const keyid = k.str("keyid");
      const publicKey = k.str("publicKey");
      let id = "";
      try {
        id = keyId(decodeSpki(decodeBase64(publicKey)));
      } catch {
        _value(`${where}.publicKey`, "is not a base64 Ed25519 SPKI key");
      }
      if (id !== keyid) _value(`${where}.keyid`, "is not the SHA-256 of its publicKey");
      return { keyid, publicKey };
    }),
    reverified: w.list("reverified", (x, where) => intOf(x, where)),
  };
}

/** Results agree with their status; workers and re-verified indices are accounted for. */
function _attribution(p: VerdictPredicate): void {
  const keys = new Set(p.workers.keys.map((k) => k.keyid));
  if (keys.size !== p.workers.keys.length) _value("predicate.workers.keys", "lists a key twice");
  const used = new Set<string>();
  // With worker keys recorded, a result without one is an item no worker returned, which a merge
  // records as NOT_VERIFIED: a PASS or FAIL there names no one who computed it.
  const attributed = p.results.some((r) => r.worker !== undefined);
  p.results.forEach((r, i) => {
    const where = `predicate.results[${i}]`;
    // The layer chain is not part of the signed form (`firstDivergence` stays in the report).
    const why = resultInconsistency(r, { chain: false });
    if (why !== null) _value(where, `contradicts itself: ${why}`);
    if (r.worker === undefined) {
      if (attributed && r.status !== "NOT_VERIFIED") {
        _value(
          `${where}.status`,
          `is ${r.status} with no worker, where the other results name theirs (an item no ` +
            "worker returned is NOT_VERIFIED)",
        );
      }
      return;
    }
    if (!keys.has(r.worker)) _value(`${where}.worker`, "is not a listed worker key");
    used.add(r.worker);
  });
  if (used.size !== keys.size) _value("predicate.workers.keys", "lists a key no result names");
  const returned = new Set(p.results.filter((r) => r.worker !== undefined).map((r) => r.index));
  const seen = new Set<number>();
  p.workers.reverified.forEach((index, i) => {
    const where = `predicate.workers.reverified[${i}]`;
    if (!returned.has(index) || seen.has(index)) {
      _value(where, "is not a sampled result a worker returned, once");
    }
    seen.add(index);
  });
}

/** The audited log's id, as a claim log's (it names the statement's subjects). */
function _logId(text: string): string {
  if (!LOG_ID_PATTERN.test(text)) {
    _value("predicate.audit.logId", "is not a claim log id (1-128 of A-Z a-z 0-9 . _ : -)");
  }
  return text;
}

function _value(where: string, why: string): never {
  throw new InputError("VERDICT_FIELD_VALUE", `Cannot read verdict predicate: '${where}' ${why}`);
}

function _audit(value: unknown): VerdictAudit {
  const a = fieldsOf(value, "predicate.audit", [
    "auditId",
    "logId",
    "population",
    "logRoot",
    "beacon",
    "seedDerivation",
    "seed",
    "algorithm",
    "k",
    "selected",
    "checkpoint",
    "announcement",
    "requireEvidence",
    "maxRecordProducts",
  ], ["checkpoint", "announcement", "requireEvidence", "maxRecordProducts"]);
  const auditId = a.str("auditId");
  // Printable ASCII only: a lookalike of 'announced-' (U+2011) would pass the rule below.
  if (!AUDIT_ID_PATTERN.test(auditId)) {
    _value("predicate.audit.auditId", `is not an audit id (${AUDIT_ID_RULE})`);
  }
  // An announced id reads as derived from an announcement: without one, nothing derived it (with
  // one, `check` compares it with the announcement's).
  if (auditId.startsWith(ANNOUNCED_ID_PREFIX) && !a.has("announcement")) {
    _value(
      "predicate.audit.auditId",
      `starts with '${ANNOUNCED_ID_PREFIX}' but the verdict carries no announcement it derives from`,
    );
  }
  return {
    auditId,
    logId: _logId(a.str("logId")),
    population: a.int("population"),
    logRoot: a.str("logRoot"),
    beacon: beaconOf(a.get("beacon")),
    ...(a.has("checkpoint") ? { checkpoint: checkpointOf(a.get("checkpoint")) } : {}),
    ...(a.has("announcement") ? { announcement: announcementOf(a.get("announcement")) } : {}),
    seedDerivation: _exactly(a.str("seedDerivation"), {
      where: "predicate.audit.seedDerivation",
      want: AUDIT_SEED_DOMAIN,
    }),
    seed: a.str("seed"),
    algorithm: _exactly(a.str("algorithm"), {
      where: "predicate.audit.algorithm",
      want: SAMPLE_ALGORITHM,
    }),
    k: _sampleSize(a.int("k")),
    selected: a.list("selected", (x, where) => intOf(x, where)),
    ...(a.has("requireEvidence") ? { requireEvidence: a.oneOf("requireEvidence", LEVELS) } : {}),
    ...(a.has("maxRecordProducts")
      ? readBudget(a.int("maxRecordProducts"), {
        where: "predicate.audit.maxRecordProducts",
        bad: (why) => {
          throw new InputError("VERDICT_FIELD_VALUE", `Cannot read verdict predicate: ${why}`);
        },
      })
      : {}),
  };
}

/**
 * A signed name of what `check` itself uses (the seed derivation, the sampling algorithm): `check`
 * recomputes the seed and sample with its own, so a verdict naming another would state a method
 * nobody checked.
 */
function _exactly(text: string, o: { where: string; want: string }): string {
  if (text !== o.want) _value(o.where, `is not '${o.want}', the one check recomputes with`);
  return text;
}

/** The engine an audit names (`isVerdictEngine`): the page shows it, so a free text could boast. */
function _engine(text: string): string {
  if (!isVerdictEngine(text)) {
    _value(
      "predicate.verifier.engine",
      `is not an engine an audit names (${WORKER_ENGINES.join(", ")}, their '+' set, or none)`,
    );
  }
  return text;
}

/** An audit samples at least one record (`audit` refuses `--k 0`): a verdict on none says nothing. */
function _sampleSize(k: number): number {
  if (k < 1) _value("predicate.audit.k", "is 0: an audit samples at least one record");
  return k;
}

function _detection(value: unknown): DetectionStatement {
  const d = fieldsOf(value, "predicate.detection", ["population", "k", "levels"]);
  return {
    population: d.int("population"),
    k: d.int("k"),
    levels: d.list("levels", (x, where) => {
      const l = fieldsOf(x, where, ["pFalse", "falseCount", "binomial", "hypergeometric"]);
      return {
        pFalse: l.str("pFalse"),
        falseCount: l.int("falseCount"),
        binomial: l.str("binomial"),
        hypergeometric: l.str("hypergeometric"),
      };
    }),
  };
}

function _result(value: unknown, where: string): VerdictResult {
  const r = fieldsOf(value, where, [
    "index",
    "record",
    "status",
    "reason",
    "claimed",
    "recomputed",
    "firstDifference",
    "sfu",
    "evidence",
    "obligation",
    "finding",
    "worker",
  ], ["sfu", "evidence", "obligation", "finding", "worker"]);
  const result = {
    index: r.int("index"),
    record: _hex64(r.str("record"), `${where}.record`),
    status: r.oneOf("status", STATUSES),
    reason: _text(r.str("reason"), { where: `${where}.reason`, max: MAX_RESULT_TEXT }),
    claimed: _hex64(r.str("claimed"), `${where}.claimed`),
    recomputed: r.get("recomputed") === null
      ? null
      : _hex64(r.str("recomputed"), `${where}.recomputed`),
    firstDifference: r.get("firstDifference") === null
      ? null
      : _difference(r.get("firstDifference"), `${where}.firstDifference`),
  };
  return {
    ...result,
    ...(r.has("sfu")
      ? {
        sfu: r.list("sfu", (x, at) => {
          const u = fieldsOf(x, at, ["fn", "model", "status"]);
          return {
            fn: _name(u.str("fn"), `${at}.fn`),
            model: _name(u.str("model"), `${at}.model`),
            status: u.oneOf("status", SFU_STATUSES),
          };
        }),
      }
      : {}),
    ...(r.has("evidence")
      ? {
        evidence: r.list("evidence", (x, at) => {
          const e = fieldsOf(x, at, ["component", "level"]);
          const component = _text(e.str("component"), {
            where: `${at}.component`,
            max: MAX_COMPONENT_TEXT,
          });
          return { component, level: e.oneOf("level", LEVELS) };
        }),
      }
      : {}),
    ...(r.has("obligation") ? { obligation: r.oneOf("obligation", OBLIGATIONS) } : {}),
    ...(r.has("finding") ? { finding: r.oneOf("finding", FAIL_FINDINGS) } : {}),
    ...(r.has("worker") ? { worker: _hex64(r.str("worker"), `${where}.worker`) } : {}),
  };
}

/** A result's text as a verifier writes it: clipped, so a longer one was never a verifier's. */
function _text(text: string, o: { where: string; max: number }): string {
  if (text.length > o.max) _value(o.where, `is longer than ${o.max} characters`);
  return text;
}

/** An SFU function's or model's name: a short token (`RESULT_NAME`). */
function _name(text: string, where: string): string {
  if (!RESULT_NAME.test(text)) _value(where, `does not match ${RESULT_NAME}`);
  return text;
}

function _hex64(text: string, where: string): string {
  if (!/^[0-9a-f]{64}$/.test(text)) _value(where, "is not 64 lowercase hex digits");
  return text;
}

function _difference(value: unknown, where: string): VerdictDifference {
  const f = fieldsOf(value, where, ["index", "claimed", "recomputed"]);
  const bits = (key: string) => {
    const text = f.str(key);
    if (!ELEMENT_BITS.test(text)) _value(`${where}.${key}`, `does not match ${ELEMENT_BITS}`);
    return text;
  };
  return { index: f.int("index"), claimed: bits("claimed"), recomputed: bits("recomputed") };
}

function _assets(value: unknown): Record<string, string> {
  const where = "predicate.assets";
  if (!isJsonObject(value)) typeError(where, "an object", value);
  const entries = Object.entries(value);
  for (const [path, digest] of entries) {
    if (typeof digest !== "string") typeError(`${where}[${quoteKey(path)}]`, "a string", digest);
  }
  // fromEntries defines own properties, so a key such as "__proto__" stays data.
  return Object.fromEntries(entries) as Record<string, string>;
}
