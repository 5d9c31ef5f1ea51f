/**
 * Strict readers of claim-predicate fields, bound to a `bad(path, why)` that throws: objects with
 * only the named keys, integers in a range, 64-digit lowercase hex digests, arrays of bounded
 * length. Every workload parser uses them, so a field is refused with the same words everywhere.
 *
 * @module
 */
import { arrayValue } from "../json_fields.ts";

const HEX64 = /^[0-9a-f]{64}$/;

/** The readers (each returns the checked value or calls `bad`, which throws). */
export interface PredicateReaders {
  /** A plain object; with `keys`, one holding no other key. */
  obj(v: unknown, path: string, keys?: readonly string[]): Record<string, unknown>;
  /** A safe integer in min..max. */
  int(v: unknown, path: string, min: number, max: number): number;
  /** A SHA-256 digest as 64 lowercase hex digits. */
  hex(v: unknown, path: string): string;
  /** An array of min..max entries, without holes: a copy, each entry read once. */
  list(v: unknown, path: string, min: number, max: number): unknown[];
}

/**
 * Binds the readers to a failure function.
 *
 * @param bad throws for a field (path and reason)
 * @returns the readers
 * @example
 * ```ts
 * import { predicateReaders } from "./predicate_readers.ts";
 * const r = predicateReaders((p, why) => { throw new Error(`${p} ${why}`); });
 * if (r.int(3, "x", 1, 5) !== 3) throw new Error();
 * ```
 */
export function predicateReaders(bad: (path: string, why: string) => never): PredicateReaders {
  return {
    obj(v, path, keys) {
      const o = typeof v === "object" && v !== null && !Array.isArray(v)
        ? v as Record<string, unknown>
        : bad(path, "must be an object");
      if (keys !== undefined) {
        for (const key of Object.keys(o)) {
          if (!keys.includes(key)) bad(`${path}.${key}`, "unknown field");
        }
      }
      return o;
    },
    int: (v, path, min, max) =>
      Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max
        ? v as number
        : bad(path, `must be an integer in ${min}..${max}`),
    hex: (v, path) =>
      typeof v === "string" && HEX64.test(v) ? v : bad(path, "must be 64 lowercase hex digits"),
    list: (v, path, min, max) =>
      Array.isArray(v) && v.length >= min && v.length <= max
        ? arrayValue(v, { path, fail: bad, max })
        : bad(path, `must be an array of ${min}..${max} entries`),
  };
}
