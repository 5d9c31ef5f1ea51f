/**
 * RFC 8785 JSON Canonicalization Scheme (JCS) bytes, the input of every record digest.
 *
 * @module
 */
import canonicalize from "canonicalize";
import { assertJsonSafe } from "./assert_json_safe.ts";

/** Options of {@link canonicalJson}. */
export interface CanonicalJsonOptions {
  /**
   * Refuse everything outside the strict record subset (see `assertJsonSafe`): non-integer numbers,
   * integers beyond ±(2^53 − 1), `undefined`, functions, non-plain objects. Default `true`.
   * With `false` the value is serialized exactly as RFC 8785 prescribes for any JSON value
   * (floats in ECMAScript `Number.prototype.toString` form, `undefined` members dropped).
   */
  readonly strict?: boolean;
}

/**
 * Serializes a value as RFC 8785 canonical JSON and returns its UTF-8 bytes.
 *
 * JCS (RFC 8785 §3.2): no whitespace, object members sorted by the UTF-16 code units of their
 * names (§3.2.3), strings escaped as ECMAScript `JSON.stringify` does (§3.2.2.2), numbers in
 * ECMAScript shortest form (§3.2.2.3). The same value always gives the same bytes, whatever the
 * order its keys were inserted in, so `sha256Hex(canonicalJson(record))` is a stable digest.
 *
 * @param value a JSON value (in strict mode: the record subset)
 * @param options `strict` (default `true`)
 * @returns the canonical UTF-8 bytes
 * @throws {TypeError} in strict mode naming the JSON path of the first refused value (e.g.
 *   `$.fingerprint.layer`); in both modes for NaN, ±Infinity, cycles, lone surrogates and values
 *   with no JSON form at the top level
 * @example
 * ```ts
 * import { canonicalJson } from "./canonical_json.ts";
 * const text = new TextDecoder().decode(canonicalJson({ b: [true, null], a: "é", c: 10 }));
 * if (text !== '{"a":"é","b":[true,null],"c":10}') throw new Error(text);
 * ```
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): Uint8Array {
  if (options.strict ?? true) assertJsonSafe(value);
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new TypeError(`Cannot canonicalize value: ${why}`, { cause: e });
  }
  if (text === undefined) {
    throw new TypeError(`Cannot canonicalize value: a ${typeof value} has no JSON form`);
  }
  return new TextEncoder().encode(text);
}
