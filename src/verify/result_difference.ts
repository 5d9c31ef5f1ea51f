/**
 * Where two results of one record first differ, said in one line: the field (down to the array
 * entry and its key, e.g. `evidence[1].level`) and both values, quoted short and escaped (either
 * side may come from a file nobody vouches for). Whoever recomputes a result that someone else
 * computed or attested (`audit merge --reverify`, `check --recompute`) compares the whole result,
 * not only its status: a result says more than PASS (how well each component it rests on is
 * known, the SFU functions it used, what a FAIL found), and each of those is what a policy reads.
 *
 * @module
 */
import { canonicalJson } from "../claims/mod.ts";
import { escapeForTerminal, quoteShort } from "../escape_text.ts";

/**
 * Names the first difference between two results of one record, or `null` when they are equal
 * as canonical JSON (RFC 8785: the order of keys does not matter).
 *
 * @param a the first result (e.g. the attested one)
 * @param b the second result (e.g. the one recomputed here)
 * @param o `fields`: the fields compared, in the order they are looked at (a field absent from
 *   both is equal; any other field is not compared); `labels`: how the two sides are named
 *   (default `attested`, `recomputed`)
 * @returns `<path>: <label a> <value>, <label b> <value>`, or null
 * @example
 * ```ts
 * import { resultDifference } from "./result_difference.ts";
 * const a = { status: "PASS", evidence: [{ component: "datapath", level: "measured-on-gpu" }] };
 * const b = { status: "PASS", evidence: [{ component: "datapath", level: "derived-from-source" }] };
 * const why = resultDifference(a, b, { fields: ["status", "evidence"] });
 * if (why !== "evidence[0].level: attested 'measured-on-gpu', recomputed 'derived-from-source'") {
 *   throw new Error(why ?? "equal");
 * }
 * ```
 */
export function resultDifference(
  a: object,
  b: object,
  o: { readonly fields: readonly string[]; readonly labels?: readonly [string, string] },
): string | null {
  const [la, lb] = o.labels ?? ["attested", "recomputed"];
  const x = a as Readonly<Record<string, unknown>>;
  const y = b as Readonly<Record<string, unknown>>;
  for (const field of o.fields) {
    const at = _difference(x[field], y[field], field);
    // The path's keys are the result's own: escaped as any text read from a file.
    if (at !== null) {
      return `${escapeForTerminal(at.path)}: ${la} ${_show(at.a)}, ${lb} ${_show(at.b)}`;
    }
  }
  return null;
}

/** Deepest path at which two JSON values differ, with the values there; null when equal. */
function _difference(
  a: unknown,
  b: unknown,
  path: string,
): { path: string; a: unknown; b: unknown } | null {
  if (_same(a, b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = _difference(a[i], b[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    return { path: `${path} entries`, a: a.length, b: b.length };
  }
  if (_isObject(a) && _isObject(b)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.hasOwn(a, k))];
    for (const k of keys) {
      const d = _difference(a[k], b[k], `${path}.${k}`);
      if (d !== null) return d;
    }
  }
  return { path, a, b };
}

function _same(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return _text(a) === _text(b);
}

/** Canonical JSON text (not strict: this compares data, it digests nothing). */
function _text(v: unknown): string {
  return new TextDecoder().decode(canonicalJson(v, { strict: false }));
}

function _isObject(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value as a message shows it: absent as `none`, anything else quoted short. */
function _show(v: unknown): string {
  if (v === undefined) return "none";
  if (typeof v === "number") return String(v);
  return quoteShort(typeof v === "string" ? v : _text(v), 64);
}
