/**
 * Exact shape checks for the documents an audit exchanges between its steps (plans, per-item
 * results): every field present with its type, nothing else.
 *
 * @module
 */
import { type InputCode, InputError } from "../errors.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";

/**
 * Expected type of each field: `string`, `count` (safe integer >= 0), `boolean`, `object`, `array`,
 * `string?` (a string or null), `object?` (an object or null), or a pattern the string value must match.
 */
export type Shape = Readonly<
  Record<
    string,
    "string" | "count" | "boolean" | "object" | "object?" | "array" | "string?" | RegExp
  >
>;

/**
 * Requires a plain object with exactly the shape's fields, each of the shape's type.
 *
 * @param value parsed JSON value
 * @param options `where` (path for messages), `shape`, `optional` field names that may be
 *   absent, `bad` (raises the caller's coded error)
 * @returns the object
 * @example
 * ```ts
 * import { exactObject } from "./_exact_object.ts";
 * const bad = (why: string): never => { throw new Error(why); };
 * exactObject({ n: 1, s: "a" }, { where: "x", shape: { n: "count", s: /^a$/ }, bad });
 * ```
 */
export function exactObject(
  value: unknown,
  options: {
    where: string;
    shape: Shape;
    optional?: readonly string[];
    bad: (why: string) => never;
  },
): Record<string, unknown> {
  const { where, shape, bad } = options;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return bad(`'${where}' must be an object`);
  }
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!Object.hasOwn(shape, key)) bad(`'${where}' has an unknown field '${_safe(key)}'`);
  }
  for (const [key, type] of Object.entries(shape)) {
    if (!Object.hasOwn(o, key)) {
      if (options.optional?.includes(key)) continue;
      bad(`'${where}.${key}' is missing`);
    }
    if (!_fits(o[key], type)) bad(`'${where}.${key}' is not ${_describe(type)}`);
  }
  return o;
}

function _fits(v: unknown, type: Shape[string]): boolean {
  if (type instanceof RegExp) return typeof v === "string" && type.test(v);
  switch (type) {
    case "string":
      return typeof v === "string";
    case "string?":
      return v === null || typeof v === "string";
    case "count":
      return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
    case "boolean":
      return typeof v === "boolean";
    case "object":
      return typeof v === "object" && v !== null && !Array.isArray(v);
    case "object?":
      return v === null || _fits(v, "object");
    case "array":
      return Array.isArray(v);
  }
}

function _describe(type: Shape[string]): string {
  if (type instanceof RegExp) return `a string matching ${type}`;
  return {
    string: "a string",
    "string?": "a string or null",
    count: "an integer >= 0",
    boolean: "a boolean",
    object: "an object",
    "object?": "an object or null",
    array: "an array",
  }[type];
}

/** Field names come from inputs: show printable ASCII only, at most 64 characters. */
function _safe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 64);
}

/**
 * Parses a document whose every byte is committed, strictly (`parseStrictJson`: nesting within
 * `MAX_JSON_DEPTH`, at most `maxValues` values, plain integers only), with the caller's coded
 * error: a document of another size or shape is refused while it is read, before its value is
 * built.
 *
 * @param text the document's text
 * @param options error `code`, the `action` for messages ("read plan 'p.json'") and the most
 *   values the document may hold (`maxValues`, default no limit beyond its length)
 * @returns the parsed value and the error raiser for further checks
 * @example
 * ```ts
 * import { readDocument } from "./_exact_object.ts";
 * const { value } = readDocument('{"a":1}', { code: "PLAN_INVALID", action: "read x" });
 * if ((value as { a: number }).a !== 1) throw new Error();
 * ```
 */
export function readDocument(
  text: string,
  options: { code: InputCode; action: string; maxValues?: number },
): { value: unknown; bad: (why: string) => never } {
  const bad = (why: string): never => {
    throw new InputError(options.code, `Cannot ${options.action}: ${why}`);
  };
  try {
    return { value: parseStrictJson(text, { maxValues: options.maxValues ?? Infinity }), bad };
  } catch (e) {
    if (!(e instanceof StrictJsonError)) throw e;
    const why = `${_safe(e.reason)} at '${_safe(e.path)}'`;
    return bad(e.strict ? why : `not valid JSON (${why})`);
  }
}

/**
 * Requires a document's text to be exactly its canonical encoding (so reformatting, reordering
 * and duplicate keys, which parse to the same value, are all refused).
 *
 * @param text the text as read
 * @param options `encode` (the canonical text of the parsed value) and `bad`
 * @example
 * ```ts
 * import { requireCanonical } from "./_exact_object.ts";
 * const bad = (why: string): never => { throw new Error(why); };
 * requireCanonical('{"a":1}', { encode: () => '{"a":1}', bad });
 * ```
 */
export function requireCanonical(
  text: string,
  options: { encode: () => string; bad: (why: string) => never },
): void {
  let canonical = "";
  try {
    canonical = options.encode();
  } catch (e) {
    options.bad((e as Error).message);
  }
  if (canonical !== text) {
    options.bad("not in canonical form (RFC 8785 JSON; duplicate keys are refused)");
  }
}
