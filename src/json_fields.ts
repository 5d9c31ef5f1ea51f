/**
 * Typed field readers for validating parsed JSON documents with errors that name the bad field.
 * Together with `parseStrictJson` (json_strict.ts) this is the one JSON kit of the project: the
 * strict parser refuses what a reader could not see (duplicate keys, non-integer number forms,
 * lone surrogates), the readers refuse unknown fields and wrong types.
 *
 * Errors go through the object's `fail` hook, so a document family reports its own coded error
 * (a claim line says `CLAIM_INVALID` and its line); the default raises `TypeError` (wrong type)
 * or `RangeError` (value out of range) with "Cannot read '<path>': <why>".
 *
 * @module
 */
import { escapeForTerminal, shortInQuotes } from "./escape_text.ts";

/**
 * Why a field is refused: absent though required (`missing`), not part of the schema (`unknown`),
 * of the wrong JSON type (`type`), or of the right type but out of its set or range (`range`).
 */
export type FieldFailKind = "missing" | "unknown" | "type" | "range";

/** Raises the caller's error for the field at `path`; `kind` says which rule it broke. */
export type FieldFail = (path: string, why: string, kind: FieldFailKind) => never;

/** A JSON object being validated, with its path for error messages. */
export interface Fields {
  /** Path of this object, e.g. `profile.tensorCore.datapaths[2]`. */
  readonly path: string;
  /** The object itself. */
  readonly obj: Readonly<Record<string, unknown>>;
  /** Error raiser (default: `TypeError` / `RangeError`). */
  readonly fail: FieldFail;
}

/**
 * The default {@link FieldFail}: `TypeError` (missing or wrong type) or `RangeError` (unknown
 * field or value out of range), "Cannot read '<path>': <why>".
 */
export const THROW_BUILTIN: FieldFail = (path, why, kind) => {
  const message = `Cannot read '${path}': ${why}`;
  throw kind === "type" || kind === "missing" ? new TypeError(message) : new RangeError(message);
};

/**
 * Wraps a value as an object to validate.
 *
 * @param value parsed JSON value
 * @param path path for error messages
 * @param fail error raiser (default {@link THROW_BUILTIN})
 * @returns the wrapper
 * @throws {TypeError} (through `fail`) when the value is not a plain object
 * @example
 * ```ts
 * import { fieldsOf, str } from "./json_fields.ts";
 * if (str(fieldsOf({ id: "a100" }, "profile"), "id") !== "a100") throw new Error();
 * ```
 */
export function fieldsOf(value: unknown, path: string, fail: FieldFail = THROW_BUILTIN): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(path, `expected an object, got ${_kind(value)}`, _typeOrMissing(value));
  }
  return { path, obj: value as Record<string, unknown>, fail };
}

/**
 * Reads a required object field, with the parent's path and error raiser.
 *
 * @param f object under validation
 * @param key field name
 * @param known when given, the only field names the child may hold
 * @returns the child wrapper
 * @throws (through `fail`) when missing, not an object, or holding an unknown field
 * @example
 * ```ts
 * import { child, fieldsOf, int } from "./json_fields.ts";
 * const batch = child(fieldsOf({ batch: { size: 4 } }, "p"), "batch", ["size"]);
 * if (int(batch, "size", { min: 1, max: 8 }) !== 4) throw new Error();
 * ```
 */
export function child(f: Fields, key: string, known?: readonly string[]): Fields {
  const c = fieldsOf(f.obj[key], `${f.path}.${key}`, f.fail);
  if (known !== undefined) onlyKnown(c, known);
  return c;
}

/**
 * Wraps each element of an array field as an object to validate.
 *
 * @param f object under validation
 * @param key field name
 * @param known when given, the only field names each element may hold
 * @returns the element wrappers, paths `key[i]`
 * @throws (through `fail`) when not an array of objects with known fields, or refused by
 *   {@link arr}
 * @example
 * ```ts
 * import { children, fieldsOf } from "./json_fields.ts";
 * if (children(fieldsOf({ xs: [{ a: 1 }] }, "p"), "xs", ["a"]).length !== 1) throw new Error();
 * ```
 */
export function children(f: Fields, key: string, known?: readonly string[]): Fields[] {
  return arr(f, key).map((v, i) => {
    const c = fieldsOf(v, `${f.path}.${key}[${i}]`, f.fail);
    if (known !== undefined) onlyKnown(c, known);
    return c;
  });
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
      // The name came from the input: escaped before it can reach a message.
      // Short, one line, and unable to close the quotes a message puts around the path.
      const name = shortInQuotes(key, 40);
      f.fail(`${f.path}.${name}`, "unknown field", "unknown");
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
    f.fail(`${f.path}.${key}`, `expected a string, got ${_kind(v)}`, _typeOrMissing(v));
  }
  if (pattern !== undefined && !pattern.test(v)) {
    f.fail(`${f.path}.${key}`, `${_quote(v)} does not match ${pattern}`, "range");
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
  return _int(f.obj[key], { path: `${f.path}.${key}`, fail: f.fail, range });
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
    f.fail(`${f.path}.${key}`, `expected one of ${values.join(", ")}, got ${_quote(v)}`, "range");
  }
  return v as T;
}

/**
 * Most items {@link arr} reads from one array unless its caller gives another bound: 2^24. No
 * document bitaudit reads holds an array near it (a claim line holds at most 2^20 values, a
 * plan about 2.1 million), and an array built by a caller can claim a length of 2^32 - 1 without
 * holding any item: its length is checked before any item is read.
 */
export const MAX_ARRAY_ITEMS = 1 << 24;

/**
 * Reads a required array field: a fresh array of its items, each read once, so that what was
 * checked is what the caller keeps.
 *
 * @param f object under validation
 * @param key field name
 * @param options `max`, the most items (default {@link MAX_ARRAY_ITEMS})
 * @returns a copy of the array
 * @throws {TypeError} (through `fail`) when missing or not an array; {RangeError} when longer
 *   than `max` or holding a hole (`[1, , 3]`, or a `length` set past its items: no parsed JSON
 *   array has one)
 * @example
 * ```ts
 * import { arr, fieldsOf } from "./json_fields.ts";
 * if (arr(fieldsOf({ xs: [1] }, "p"), "xs").length !== 1) throw new Error();
 * ```
 */
export function arr(f: Fields, key: string, options: { max?: number } = {}): readonly unknown[] {
  return arrayValue(f.obj[key], {
    path: `${f.path}.${key}`,
    fail: f.fail,
    max: options.max ?? MAX_ARRAY_ITEMS,
  });
}

/**
 * Reads an array value (an item of another array, a value outside an object) as {@link arr}
 * reads a field.
 *
 * @param v the value
 * @param ctx `path` for messages, `fail` error raiser, `max` the most items
 * @returns a copy of the array, each item read once
 * @throws (through `fail`) when not an array, longer than `max` or holding a hole
 * @example
 * ```ts
 * import { arrayValue, THROW_BUILTIN } from "./json_fields.ts";
 * const holes: unknown[] = [];
 * holes.length = 3;
 * try { arrayValue(holes, { path: "p", fail: THROW_BUILTIN, max: 9 }); throw new Error(); }
 * catch (e) { if (!(e instanceof RangeError)) throw e; }
 * ```
 */
export function arrayValue(
  v: unknown,
  ctx: { path: string; fail: FieldFail; max: number },
): unknown[] {
  if (!Array.isArray(v)) {
    ctx.fail(ctx.path, `expected an array, got ${_kind(v)}`, _typeOrMissing(v));
  }
  const n = v.length;
  if (n > ctx.max) ctx.fail(ctx.path, `expected at most ${ctx.max} items, got ${n}`, "range");
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    if (!Object.hasOwn(v, i)) {
      ctx.fail(`${ctx.path}[${i}]`, "expected an item, got a hole", "range");
    }
    out.push(v[i]);
  }
  return out;
}

/**
 * Reads a required array of strings.
 *
 * @param f object under validation
 * @param key field name
 * @returns the strings (a copy, as {@link arr} reads it)
 * @throws {TypeError} when not an array of strings; {RangeError} as {@link arr}
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
      f.fail(`${f.path}.${key}[${i}]`, `expected a string, got ${_kind(v)}`, "type");
    }
  });
  return a as readonly string[];
}

/**
 * Reads a required array of integers within bounds.
 *
 * @param f object under validation
 * @param key field name
 * @param range inclusive bounds of every element
 * @returns the integers
 * @throws (through `fail`) when not an array of integers in range, or refused by {@link arr}
 * @example
 * ```ts
 * import { fieldsOf, ints } from "./json_fields.ts";
 * if (ints(fieldsOf({ s: [2, 3] }, "p"), "s", { min: 0, max: 9 })[1] !== 3) throw new Error();
 * ```
 */
export function ints(
  f: Fields,
  key: string,
  range: { min: number; max: number },
): readonly number[] {
  return arr(f, key).map((v, i) =>
    _int(v, { path: `${f.path}.${key}[${i}]`, fail: f.fail, range })
  );
}

/**
 * Reads a required object of string values (a free-form name -> text map).
 *
 * @param f object under validation
 * @param key field name
 * @param pattern optional regular expression every value must match
 * @param keys optional bounds on the names: a `pattern` every name must match and the `max`
 *   number of entries
 * @returns a fresh object holding the same entries
 * @throws (through `fail`) when not an object of strings, or outside the bounds
 * @example
 * ```ts
 * import { fieldsOf, stringMap } from "./json_fields.ts";
 * if (stringMap(fieldsOf({ c: { torch: "2.8" } }, "p"), "c").torch !== "2.8") throw new Error();
 * ```
 */
export function stringMap(
  f: Fields,
  key: string,
  pattern?: RegExp,
  keys?: { readonly pattern: RegExp; readonly max: number },
): Record<string, string> {
  const c: Fields = child(f, key);
  const out: Record<string, string> = {};
  const names = Object.keys(c.obj);
  if (keys !== undefined && names.length > keys.max) {
    c.fail(c.path, `expected at most ${keys.max} entries, got ${names.length}`, "range");
  }
  for (const k of names) {
    const v = c.obj[k];
    const path = `${c.path}[${_quote(k)}]`;
    if (keys !== undefined && !keys.pattern.test(k)) {
      c.fail(path, `the name does not match ${keys.pattern}`, "range");
    }
    if (typeof v !== "string") c.fail(path, `expected a string, got ${_kind(v)}`, "type");
    if (pattern !== undefined && !pattern.test(v)) {
      c.fail(path, `${_quote(v)} does not match ${pattern}`, "range");
    }
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true });
  }
  return out;
}

/**
 * Tells whether a field is present (for optional fields and variants).
 *
 * @param f object under validation
 * @param key field name
 * @returns true when the field is present
 * @example
 * ```ts
 * import { fieldsOf, has } from "./json_fields.ts";
 * if (has(fieldsOf({}, "p"), "end")) throw new Error();
 * ```
 */
export function has(f: Fields, key: string): boolean {
  return Object.hasOwn(f.obj, key);
}

/**
 * Fails for every name in `keys` the object does not hold (for schemas whose fields are all
 * required, so that a missing field is reported as missing before any type check).
 *
 * @param f object under validation
 * @param keys required field names
 * @throws (through `fail`, kind `missing`) naming the first absent field
 * @example
 * ```ts
 * import { fieldsOf, requireFields } from "./json_fields.ts";
 * requireFields(fieldsOf({ a: 1 }, "p"), ["a"]);
 * ```
 */
export function requireFields(f: Fields, keys: readonly string[]): void {
  for (const key of keys) {
    if (!Object.hasOwn(f.obj, key)) f.fail(`${f.path}.${key}`, "is missing", "missing");
  }
}

/**
 * Reads an integer value within bounds (an array item, a value outside an object).
 *
 * @param v the value
 * @param ctx `path` for messages, `fail` error raiser, inclusive `range`
 * @returns the integer
 * @throws (through `fail`) when not an integer in range
 * @example
 * ```ts
 * import { intValue, THROW_BUILTIN } from "./json_fields.ts";
 * if (intValue(3, { path: "p", fail: THROW_BUILTIN, range: { min: 0, max: 9 } }) !== 3) throw new Error();
 * ```
 */
export function intValue(
  v: unknown,
  ctx: { path: string; fail: FieldFail; range: { min: number; max: number } },
): number {
  return _int(v, ctx);
}

function _typeOrMissing(v: unknown): FieldFailKind {
  return v === undefined ? "missing" : "type";
}

function _int(
  v: unknown,
  ctx: { path: string; fail: FieldFail; range: { min: number; max: number } },
): number {
  const { path, range } = ctx;
  if (typeof v !== "number" || !Number.isInteger(v)) {
    ctx.fail(path, `expected an integer, got ${_kind(v)}`, _typeOrMissing(v));
  }
  if (v < range.min || v > range.max) {
    ctx.fail(path, `expected ${range.min}..${range.max}, got ${v}`, "range");
  }
  return v;
}

function _quote(v: string): string {
  return escapeForTerminal(JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}...` : v));
}

function _kind(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}
