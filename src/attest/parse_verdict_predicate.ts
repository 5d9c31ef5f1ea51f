/**
 * Strict reading of a verdict predicate from a verified Statement: every field of
 * {@link VerdictPredicate} required (only `results[].sfu` and `results[].obligation` optional), nothing else allowed, each
 * value of its JSON type, so that a checker never meets a missing or mistyped field.
 *
 * @module
 */
import { announcementOf, beaconOf, checkpointOf } from "./_verdict_trust_fields.ts";
import type {
  AuditVerdict,
  DetectionStatement,
  ProverObligation,
  RecordStatus,
} from "../verify/mod.ts";
import type {
  VerdictAudit,
  VerdictDifference,
  VerdictPredicate,
  VerdictResult,
  VerdictSfuUse,
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
 * try {
 *   parseVerdictPredicate({ verdict: "PASSED" });
 *   throw new Error("accepted");
 * } catch (e) {
 *   if ((e as { code?: string }).code !== "VERDICT_FIELD_MISSING") throw e;
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
    "assets",
  ]);
  const v = fieldsOf(p.get("verifier"), "predicate.verifier", [
    "id",
    "version",
    "engine",
    "runtime",
  ]);
  return {
    verifier: {
      id: v.str("id"),
      version: v.str("version"),
      engine: v.str("engine"),
      runtime: v.str("runtime"),
    },
    timeVerified: p.str("timeVerified"),
    audit: _audit(p.get("audit")),
    detection: _detection(p.get("detection")),
    results: p.list("results", _result),
    verdict: p.oneOf("verdict", VERDICTS),
    assets: _assets(p.get("assets")),
  };
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
  ], ["checkpoint", "announcement"]);
  return {
    auditId: a.str("auditId"),
    logId: a.str("logId"),
    population: a.int("population"),
    logRoot: a.str("logRoot"),
    beacon: beaconOf(a.get("beacon")),
    ...(a.has("checkpoint") ? { checkpoint: checkpointOf(a.get("checkpoint")) } : {}),
    ...(a.has("announcement") ? { announcement: announcementOf(a.get("announcement")) } : {}),
    seedDerivation: a.str("seedDerivation"),
    seed: a.str("seed"),
    algorithm: a.str("algorithm"),
    k: a.int("k"),
    selected: a.list("selected", (x, where) => intOf(x, where)),
  };
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
    "obligation",
  ], ["sfu", "obligation"]);
  const result = {
    index: r.int("index"),
    record: r.str("record"),
    status: r.oneOf("status", STATUSES),
    reason: r.str("reason"),
    claimed: r.str("claimed"),
    recomputed: r.get("recomputed") === null ? null : r.str("recomputed"),
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
            fn: u.str("fn"),
            model: u.str("model"),
            status: u.oneOf("status", SFU_STATUSES),
          };
        }),
      }
      : {}),
    ...(r.has("obligation") ? { obligation: r.oneOf("obligation", OBLIGATIONS) } : {}),
  };
}

function _difference(value: unknown, where: string): VerdictDifference {
  const f = fieldsOf(value, where, ["index", "claimed", "recomputed"]);
  return { index: f.int("index"), claimed: f.str("claimed"), recomputed: f.str("recomputed") };
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
