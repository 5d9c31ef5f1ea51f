/**
 * The strict JSON subset that bitaudit records may use before they are canonicalized.
 *
 * Records never carry floats (bit patterns and hashes are hex strings), so any non-integer number,
 * any integer outside ±(2^53 − 1), `undefined`, functions, symbols, bigints, lone surrogates and
 * objects that are not plain (`Date`, `Map`, typed arrays, class instances) are refused here
 * instead of being silently dropped or rewritten by `JSON.stringify`.
 *
 * @module
 */

/**
 * Checks that a value belongs to the strict JSON subset, recursively.
 *
 * Allowed: `null`, booleans, well-formed strings, safe integers (|n| ≤ 2^53 − 1), arrays without
 * holes, and plain objects (prototype `Object.prototype` or `null`) without symbol keys.
 *
 * @param value the value to check
 * @param path JSON path of `value` used in messages (default `"$"`)
 * @throws {TypeError} naming the JSON path of the first offending value, e.g. `$.a[2].b`
 * @example
 * ```ts
 * import { assertJsonSafe } from "./assert_json_safe.ts";
 * assertJsonSafe({ a: [1, "x", null, true] });
 * let caught = false;
 * try { assertJsonSafe({ a: [1, 0.5] }); } catch (e) { caught = e instanceof TypeError; }
 * if (!caught) throw new Error("0.5 must be refused");
 * ```
 */
export function assertJsonSafe(value: unknown, path = "$"): void {
  new _Walk(path).check(value);
}

/**
 * The recursive walk. The path of the value being checked is kept as segments (an array index or
 * an object key) and written out only when a refusal names it.
 */
class _Walk {
  /** Containers on the current path (cycle guard). */
  readonly open = new Set<object>();
  readonly segments: (number | string)[] = [];
  constructor(readonly root: string) {}

  check(v: unknown): void {
    if (v === null || typeof v === "boolean") return;
    if (typeof v === "string") {
      if (!v.isWellFormed()) this.fail("string contains a lone surrogate");
      return;
    }
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v)) this.fail(`expected an integer within ±(2^53 − 1), got ${v}`);
      return;
    }
    if (typeof v !== "object") this.fail(`a ${typeof v} has no JSON form`);
    if (this.open.has(v)) this.fail("value contains itself (cycle)");
    this.open.add(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        this.segments.push(i);
        if (!(i in v)) this.fail("array has a hole");
        this.check(v[i]);
        this.segments.pop();
      }
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        this.fail(`expected a plain object, got ${proto?.constructor?.name ?? "an exotic object"}`);
      }
      if (Object.getOwnPropertySymbols(v).length > 0) this.fail("object has symbol keys");
      for (const key of Object.keys(v)) {
        this.segments.push(key);
        if (!key.isWellFormed()) this.fail("key contains a lone surrogate");
        this.check((v as Record<string, unknown>)[key]);
        this.segments.pop();
      }
    }
    this.open.delete(v);
  }

  fail(why: string): never {
    let path = this.root;
    for (const s of this.segments) path += typeof s === "number" ? `[${s}]` : _member(s);
    throw new TypeError(`Cannot canonicalize '${path}': ${why}`);
  }
}

/** Path segment for an object member: `.name` for identifiers, `["…"]` otherwise. */
function _member(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
