/**
 * Field readers for validating parsed JSON documents with errors that name the bad field.
 *
 * @module
 */

/** A JSON object being validated, with its path for error messages. */
export interface Fields {
  /** Path of this object, e.g. `profile.tensorCore.datapaths[2]`. */
  readonly path: string;
  /** The object itself. */
  readonly obj: Readonly<Record<string, unknown>>;
}

/**
 * Wraps a value as an object to validate.
 *
 * @param value parsed JSON value
 * @param path path for error messages
 * @returns the wrapper
 * @throws {TypeError} when the value is not a plain object
 * @example
 * ```ts
 * import { fieldsOf, str } from "./json_fields.ts";
 * if (str(fieldsOf({ id: "a100" }, "profile"), "id") !== "a100") throw new Error();
 * ```
 */
export function fieldsOf(value: unknown, path: string): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`Cannot read '${path}': expected an object, got ${_kind(value)}`);
  }
  return { path, obj: value as Record<string, unknown> };
}

/**
 * Rejects fields that the schema does not know (typos must not pass silently).
 *
 * @param f object under validation
 * @param allowed known field names
 * @throws {RangeError} naming the first unknown field
 * @example
 * ```ts
 * import { fieldsOf, onlyKnown } from "./json_fields.ts";
 * onlyKnown(fieldsOf({ id: 1 }, "x"), ["id"]);
 * ```
 */
export function onlyKnown(f: Fields, allowed: readonly string[]): void {
  for (const key of Object.keys(f.obj)) {
    if (!allowed.includes(key)) {
      throw new RangeError(`Cannot read '${f.path}.${key}': unknown field`);
    }
  }
}

/**
 * Reads a required string field.
 *
 * @param f object under validation
 * @param key field name
 * @param pattern optional regular expression the value must match
 * @returns the string
 * @throws {TypeError} when missing or not a string; {RangeError} when the pattern does not match
 * @example
 * ```ts
 * import { fieldsOf, str } from "./json_fields.ts";
 * str(fieldsOf({ id: "h100" }, "p"), "id", /^[a-z0-9-]+$/);
 * ```
 */
export function str(f: Fields, key: string, pattern?: RegExp): string {
  const v = f.obj[key];
  if (typeof v !== "string") {
    throw new TypeError(`Cannot read '${f.path}.${key}': expected a string, got ${_kind(v)}`);
  }
  if (pattern !== undefined && !pattern.test(v)) {
    throw new RangeError(`Cannot read '${f.path}.${key}': '${v}' does not match ${pattern}`);
  }
  return v;
}

/**
 * Reads a required integer field within bounds.
 *
 * @param f object under validation
 * @param key field name
 * @param range inclusive bounds
 * @returns the integer
 * @throws {TypeError} when missing or not an integer; {RangeError} when out of bounds
 * @example
 * ```ts
 * import { fieldsOf, int } from "./json_fields.ts";
 * if (int(fieldsOf({ k: 16 }, "p"), "k", { min: 1, max: 64 }) !== 16) throw new Error();
 * ```
 */
export function int(f: Fields, key: string, range: { min: number; max: number }): number {
  const v = f.obj[key];
  if (typeof v !== "number" || !Number.isInteger(v)) {
    throw new TypeError(`Cannot read '${f.path}.${key}': expected an integer, got ${_kind(v)}`);
  }
  if (v < range.min || v > range.max) {
    throw new RangeError(
      `Cannot read '${f.path}.${key}': expected ${range.min}..${range.max}, got ${v}`,
    );
  }
  return v;
}

/**
 * Reads a required string field restricted to a set of values.
 *
 * @param f object under validation
 * @param key field name
 * @param values allowed values
 * @returns the value
 * @throws {TypeError} when not a string; {RangeError} when not one of `values`
 * @example
 * ```ts
 * import { fieldsOf, oneOf } from "./json_fields.ts";
 * oneOf(fieldsOf({ r: "rz" }, "p"), "r", ["rz", "rne"] as const);
 * ```
 */
export function oneOf<T extends string>(f: Fields, key: string, values: readonly T[]): T {
  const v = str(f, key);
  if (!(values as readonly string[]).includes(v)) {
    throw new RangeError(
      `Cannot read '${f.path}.${key}': expected one of ${values.join(", ")}, got '${v}'`,
    );
  }
  return v as T;
}

/**
 * Reads a required array field.
 *
 * @param f object under validation
 * @param key field name
 * @returns the array
 * @throws {TypeError} when missing or not an array
 * @example
 * ```ts
 * import { arr, fieldsOf } from "./json_fields.ts";
 * if (arr(fieldsOf({ xs: [1] }, "p"), "xs").length !== 1) throw new Error();
 * ```
 */
export function arr(f: Fields, key: string): readonly unknown[] {
  const v = f.obj[key];
  if (!Array.isArray(v)) {
    throw new TypeError(`Cannot read '${f.path}.${key}': expected an array, got ${_kind(v)}`);
  }
  return v;
}

/**
 * Reads a required array of strings.
 *
 * @param f object under validation
 * @param key field name
 * @returns the strings
 * @throws {TypeError} when not an array of strings
 * @example
 * ```ts
 * import { fieldsOf, strings } from "./json_fields.ts";
 * strings(fieldsOf({ s: ["a"] }, "p"), "s");
 * ```
 */
export function strings(f: Fields, key: string): readonly string[] {
  const a = arr(f, key);
  a.forEach((v, i) => {
    if (typeof v !== "string") {
      throw new TypeError(
        `Cannot read '${f.path}.${key}[${i}]': expected a string, got ${_kind(v)}`,
      );
    }
  });
  return a as readonly string[];
}

function _kind(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}
