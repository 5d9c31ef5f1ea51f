/**
 * Strict reading of a verdict predicate from a verified Statement: every field of
 * {@link VerdictPredicate} required (only `results[].sfu` optional), nothing else allowed, each
 * value of its JSON type, so that a checker never meets a missing or mistyped field.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import type { AuditVerdict, DetectionStatement, RecordStatus } from "../verify/mod.ts";
import type {
  VerdictAudit,
  VerdictDifference,
  VerdictPredicate,
  VerdictResult,
  VerdictSfuUse,
} from "./verdict_predicate.ts";

/**
 * Why a verdict predicate was refused: a required field is absent, a field is not part of the
 * contract, a value has the wrong JSON type, or a value of the right type is out of its set or range.
 */
export type VerdictPredicateCode =
  | "VERDICT_FIELD_MISSING"
  | "VERDICT_FIELD_UNKNOWN"
  | "VERDICT_FIELD_TYPE"
  | "VERDICT_FIELD_VALUE";

/** Each union as a record, so that a new member is a compile error here until it is allowed. */
const VERDICTS: Record<AuditVerdict, true> = { PASSED: true, FAILED: true, INCONCLUSIVE: true };
const STATUSES: Record<RecordStatus, true> = { PASS: true, FAIL: true, NOT_VERIFIED: true };
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
 * @throws {InputError} with a {@link VerdictPredicateCode}, naming the first bad field's path
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
  const p = _object(value, "predicate", [
    "verifier",
    "timeVerified",
    "audit",
    "detection",
    "results",
    "verdict",
    "assets",
  ]);
  const v = _object(p.get("verifier"), "predicate.verifier", [
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
  const a = _object(value, "predicate.audit", [
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
  ]);
  const b = _object(a.get("beacon"), "predicate.audit.beacon", ["randomness", "round"]);
  return {
    auditId: a.str("auditId"),
    logId: a.str("logId"),
    population: a.int("population"),
    logRoot: a.str("logRoot"),
    beacon: { randomness: b.str("randomness"), round: b.int("round") },
    seedDerivation: a.str("seedDerivation"),
    seed: a.str("seed"),
    algorithm: a.str("algorithm"),
    k: a.int("k"),
    selected: a.list("selected", (x, where) => _int(x, where)),
  };
}

function _detection(value: unknown): DetectionStatement {
  const d = _object(value, "predicate.detection", ["population", "k", "levels"]);
  return {
    population: d.int("population"),
    k: d.int("k"),
    levels: d.list("levels", (x, where) => {
      const l = _object(x, where, ["pFalse", "falseCount", "binomial", "hypergeometric"]);
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
  const r = _object(value, where, [
    "index",
    "record",
    "status",
    "reason",
    "claimed",
    "recomputed",
    "firstDifference",
    "sfu",
  ], ["sfu"]);
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
  if (!r.has("sfu")) return result;
  return {
    ...result,
    sfu: r.list("sfu", (x, at) => {
      const u = _object(x, at, ["fn", "model", "status"]);
      return { fn: u.str("fn"), model: u.str("model"), status: u.oneOf("status", SFU_STATUSES) };
    }),
  };
}

function _difference(value: unknown, where: string): VerdictDifference {
  const f = _object(value, where, ["index", "claimed", "recomputed"]);
  return { index: f.int("index"), claimed: f.str("claimed"), recomputed: f.str("recomputed") };
}

function _assets(value: unknown): Record<string, string> {
  const where = "predicate.assets";
  if (!_isObject(value)) _typeError(where, "an object", value);
  const entries = Object.entries(value);
  for (const [path, digest] of entries) {
    if (typeof digest !== "string") _typeError(`${where}[${_quote(path)}]`, "a string", digest);
  }
  // fromEntries defines own properties, so a key such as "__proto__" stays data.
  return Object.fromEntries(entries) as Record<string, string>;
}

/** An object under validation: its known fields checked, readers that name the field's path. */
interface _Fields {
  has(key: string): boolean;
  get(key: string): unknown;
  str(key: string): string;
  int(key: string): number;
  oneOf<T extends string>(key: string, allowed: Readonly<Record<T, true>>): T;
  list<T>(key: string, item: (value: unknown, where: string) => T): T[];
}

function _object(
  value: unknown,
  where: string,
  known: readonly string[],
  optional: readonly string[] = [],
): _Fields {
  if (!_isObject(value)) {
    if (value === undefined) _error("VERDICT_FIELD_MISSING", `'${where}' is missing`);
    _typeError(where, "an object", value);
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      _error("VERDICT_FIELD_UNKNOWN", `'${where}' has unknown field ${_quote(key)}`);
    }
  }
  for (const key of known) {
    if (!Object.hasOwn(value, key) && !optional.includes(key)) {
      _error("VERDICT_FIELD_MISSING", `'${where}.${key}' is missing`);
    }
  }
  const path = (key: string) => `${where}.${key}`;
  return {
    has: (key) => Object.hasOwn(value, key),
    get: (key) => value[key],
    str: (key) => {
      const v = value[key];
      if (typeof v !== "string") _typeError(path(key), "a string", v);
      return v;
    },
    int: (key) => _int(value[key], path(key)),
    oneOf: <T extends string>(key: string, allowed: Readonly<Record<T, true>>): T => {
      const v = value[key];
      if (typeof v !== "string") _typeError(path(key), "a string", v);
      if (!Object.hasOwn(allowed, v)) {
        const set = Object.keys(allowed).join(", ");
        _error("VERDICT_FIELD_VALUE", `'${path(key)}' is ${_quote(v)}, expected one of ${set}`);
      }
      return v as T;
    },
    list: (key, item) => {
      const v = value[key];
      if (!Array.isArray(v)) _typeError(path(key), "an array", v);
      return v.map((x, i) => item(x, `${path(key)}[${i}]`));
    },
  };
}

function _int(value: unknown, where: string): number {
  if (typeof value !== "number") _typeError(where, "an integer", value);
  if (!Number.isSafeInteger(value) || value < 0) {
    _error("VERDICT_FIELD_VALUE", `'${where}' is ${value}, expected an integer >= 0`);
  }
  return value;
}

function _isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function _typeError(where: string, expected: string, value: unknown): never {
  const got = value === undefined
    ? "nothing"
    : value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : `a ${typeof value}`;
  _error("VERDICT_FIELD_TYPE", `'${where}' is ${got}, expected ${expected}`);
}

/** JSON-quotes text from the input, escaping DEL and C1 controls too (they steer terminals). */
function _quote(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function _error(code: VerdictPredicateCode, why: string): never {
  throw new InputError(code, `Cannot read verdict predicate: ${why}`);
}
