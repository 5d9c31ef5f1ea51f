/**
 * Field readers of the verdict predicate's strict parser: each refusal is an `InputError` whose
 * code says whether a field is missing, unknown, of the wrong JSON type or out of its set.
 *
 * @module
 */
import { InputError } from "../errors.ts";

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
  if (!isJsonObject(value)) {
    if (value === undefined) _error("VERDICT_FIELD_MISSING", `'${where}' is missing`);
    typeError(where, "an object", value);
  }
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      _error("VERDICT_FIELD_UNKNOWN", `'${where}' has unknown field ${quoteKey(key)}`);
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
      if (typeof v !== "string") typeError(path(key), "a string", v);
      return v;
    },
    int: (key) => intOf(value[key], path(key)),
    oneOf: <T extends string>(key: string, allowed: Readonly<Record<T, true>>): T => {
      const v = value[key];
      if (typeof v !== "string") typeError(path(key), "a string", v);
      if (!Object.hasOwn(allowed, v)) {
        const set = Object.keys(allowed).join(", ");
        _error("VERDICT_FIELD_VALUE", `'${path(key)}' is ${quoteKey(v)}, expected one of ${set}`);
      }
      return v as T;
    },
    list: (key, item) => {
      const v = value[key];
      if (!Array.isArray(v)) typeError(path(key), "an array", v);
      return v.map((x, i) => item(x, `${path(key)}[${i}]`));
    },
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
  if (typeof value !== "number") typeError(where, "an integer", value);
  if (!Number.isSafeInteger(value) || value < 0) {
    _error("VERDICT_FIELD_VALUE", `'${where}' is ${value}, expected an integer >= 0`);
  }
  return value;
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
  _error("VERDICT_FIELD_TYPE", `'${where}' is ${got}, expected ${expected}`);
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

function _error(code: VerdictPredicateCode, why: string): never {
  throw new InputError(code, `Cannot read verdict predicate: ${why}`);
}
