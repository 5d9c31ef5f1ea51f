/**
 * Strict shape checks for the attest folder's JSON documents (envelopes, trust roots), reporting
 * through the caller's coded error.
 *
 * @module
 */

/** Raises the caller's coded error with a one-line reason. */
export type Bad = (why: string) => never;

/**
 * Requires a plain object holding only known fields.
 *
 * @param v parsed value
 * @param options `where` (path for messages), `known` field names, `bad` error raiser
 * @returns the object
 * @example
 * ```ts
 * import { jsonObject } from "./json_shape.ts";
 * const bad = (why: string): never => { throw new Error(why); };
 * jsonObject({ a: 1 }, { where: "x", known: ["a"], bad });
 * ```
 */
export function jsonObject(
  v: unknown,
  options: { where: string; known: readonly string[]; bad: Bad },
): Record<string, unknown> {
  const { where, known, bad } = options;
  if (typeof v !== "object" || v === null || Array.isArray(v)) bad(`'${where}' is not an object`);
  for (const key of Object.keys(v as object)) {
    if (!known.includes(key)) bad(`'${where}' has unknown field '${key}'`);
  }
  return v as Record<string, unknown>;
}

/**
 * Requires a string field.
 *
 * @param obj object under validation
 * @param options `key`, `where` (path of the object), `bad` error raiser
 * @returns the string
 * @example
 * ```ts
 * import { jsonString } from "./json_shape.ts";
 * const bad = (why: string): never => { throw new Error(why); };
 * if (jsonString({ a: "x" }, { key: "a", where: "o", bad }) !== "x") throw new Error();
 * ```
 */
export function jsonString(
  obj: Record<string, unknown>,
  options: { key: string; where: string; bad: Bad },
): string {
  const v = obj[options.key];
  if (typeof v !== "string") {
    options.bad(`'${options.where}.${options.key}' is missing or not a string`);
  }
  return v as string;
}
