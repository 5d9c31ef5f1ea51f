/**
 * Field readers of the verdict predicate's strict parser, on the project's one JSON kit
 * (`src/json_fields.ts`): each refusal is an `InputError` whose code says whether a field is
 * missing, unknown, of the wrong JSON type or out of its set.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import {
  arr,
  type FieldFail,
  type FieldFailKind,
  fieldsOf as kitFieldsOf,
  has,
  intValue,
  oneOf as kitOneOf,
  onlyKnown,
  requireFields,
  str,
} from "../json_fields.ts";

/**
 * Why a verdict predicate was refused: a required field is absent, a field is not part of the
 * contract, a value has the wrong JSON type, or a value of the right type is out of its set or range.
 */
export type VerdictPredicateCode =
  | "VERDICT_FIELD_MISSING"
  | "VERDICT_FIELD_UNKNOWN"
  | "VERDICT_FIELD_TYPE"
  | "VERDICT_FIELD_VALUE";

/** An object under validation: its known fields checked, readers that name the field's path. */
export interface VerdictFields {
  /** Whether the field is present (for optional fields). */
  has(key: string): boolean;
  /** The raw value. */
  get(key: string): unknown;
  /** A string field. */
  str(key: string): string;
  /** A non-negative safe integer field. */
  int(key: string): number;
  /** A string field restricted to the keys of `allowed`. */
  oneOf<T extends string>(key: string, allowed: Readonly<Record<T, true>>): T;
  /** An array field, each item read by `item` with its path. */
  list<T>(key: string, item: (value: unknown, where: string) => T): T[];
}

/**
 * Checks an object's fields against the contract (nothing unknown, nothing required missing) and
 * returns readers for them.
 *
 * @param value the parsed value
 * @param where its path, e.g. `predicate.audit`
 * @param known every field the contract allows
 * @param optional those of `known` that may be absent
 * @returns the readers
 * @throws {InputError} `VERDICT_FIELD_MISSING`, `VERDICT_FIELD_UNKNOWN`, `VERDICT_FIELD_TYPE`
 * @example
 * ```ts
 * import { fieldsOf } from "./_verdict_fields.ts";
 * if (fieldsOf({ k: 3 }, "p", ["k"]).int("k") !== 3) throw new Error();
 * ```
 */
export function fieldsOf(
  value: unknown,
  where: string,
  known: readonly string[],
  optional: readonly string[] = [],
): VerdictFields {
  const f = kitFieldsOf(value, where, _FAIL);
  onlyKnown(f, known);
  requireFields(f, known.filter((k) => !optional.includes(k)));
  return {
    has: (key) => has(f, key),
    get: (key) => f.obj[key],
    str: (key) => str(f, key),
    int: (key) => intOf(f.obj[key], `${where}.${key}`),
    oneOf: <T extends string>(key: string, allowed: Readonly<Record<T, true>>): T =>
      kitOneOf(f, key, Object.keys(allowed) as T[]),
    list: (key, item) => arr(f, key).map((x, i) => item(x, `${where}.${key}[${i}]`)),
  };
}

/**
 * Reads a non-negative safe integer.
 *
 * @param value the value
 * @param where its path
 * @returns the integer
 * @throws {InputError} `VERDICT_FIELD_TYPE` for a non-number, `VERDICT_FIELD_VALUE` otherwise
 * @example
 * ```ts
 * import { intOf } from "./_verdict_fields.ts";
 * if (intOf(7, "p.k") !== 7) throw new Error();
 * ```
 */
export function intOf(value: unknown, where: string): number {
  if (typeof value === "number" && !Number.isSafeInteger(value)) {
    _FAIL(where, `is ${value}, expected an integer >= 0`, "range");
  }
  return intValue(value, {
    path: where,
    fail: _FAIL,
    range: { min: 0, max: Number.MAX_SAFE_INTEGER },
  });
}

/**
 * Whether a parsed value is a JSON object (not null, not an array).
 *
 * @param v the value
 * @returns true for an object
 * @example
 * ```ts
 * import { isJsonObject } from "./_verdict_fields.ts";
 * if (isJsonObject([]) || !isJsonObject({})) throw new Error();
 * ```
 */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Refuses a value of the wrong JSON type.
 *
 * @param where its path
 * @param expected what the contract wants, e.g. `a string`
 * @param value what was found
 * @throws {InputError} `VERDICT_FIELD_TYPE`, always
 * @example
 * ```ts
 * import { typeError } from "./_verdict_fields.ts";
 * try { typeError("p.k", "an integer", "3"); } catch (e) {
 *   if ((e as { code?: string }).code !== "VERDICT_FIELD_TYPE") throw e;
 * }
 * ```
 */
export function typeError(where: string, expected: string, value: unknown): never {
  const got = value === undefined
    ? "nothing"
    : value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : `a ${typeof value}`;
  _FAIL(where, `is ${got}, expected ${expected}`, "type");
}

/**
 * JSON-quotes text from the input for a message, escaping DEL and C1 controls too (they steer
 * terminals).
 *
 * @param text the text
 * @returns the quoted text, printable ASCII and non-control characters only
 * @example
 * ```ts
 * import { quoteKey } from "./_verdict_fields.ts";
 * if (quoteKey("a\u009bb") !== '"a\\u009bb"') throw new Error(quoteKey("a\u009bb"));
 * ```
 */
export function quoteKey(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

const _CODES: Record<FieldFailKind, VerdictPredicateCode> = {
  missing: "VERDICT_FIELD_MISSING",
  unknown: "VERDICT_FIELD_UNKNOWN",
  type: "VERDICT_FIELD_TYPE",
  range: "VERDICT_FIELD_VALUE",
};

/** The kit's error hook for verdict predicates: one code per kind of refusal. */
const _FAIL: FieldFail = (path, why, kind) => {
  const text = kind === "missing" ? "is missing" : why;
  throw new InputError(_CODES[kind], `Cannot read verdict predicate: '${path}' ${text}`);
};
