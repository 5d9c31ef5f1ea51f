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
  _check(value, path, new Set());
}

/** Recursive walk; `open` holds the containers on the current path (cycle guard). */
function _check(v: unknown, p: string, open: Set<object>): void {
  if (v === null || typeof v === "boolean") return;
  if (typeof v === "string") {
    if (!v.isWellFormed()) _fail(p, "string contains a lone surrogate");
    return;
  }
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) _fail(p, `expected an integer within ±(2^53 − 1), got ${v}`);
    return;
  }
  if (typeof v !== "object") _fail(p, `a ${typeof v} has no JSON form`);
  if (open.has(v)) _fail(p, "value contains itself (cycle)");
  open.add(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) _fail(`${p}[${i}]`, "array has a hole");
      _check(v[i], `${p}[${i}]`, open);
    }
  } else {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      _fail(p, `expected a plain object, got ${proto?.constructor?.name ?? "an exotic object"}`);
    }
    if (Object.getOwnPropertySymbols(v).length > 0) _fail(p, "object has symbol keys");
    for (const key of Object.keys(v)) {
      const child = `${p}${_member(key)}`;
      if (!key.isWellFormed()) _fail(child, "key contains a lone surrogate");
      _check((v as Record<string, unknown>)[key], child, open);
    }
  }
  open.delete(v);
}

/** Path segment for an object member: `.name` for identifiers, `["…"]` otherwise. */
function _member(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function _fail(path: string, why: string): never {
  throw new TypeError(`Cannot canonicalize '${path}': ${why}`);
}
