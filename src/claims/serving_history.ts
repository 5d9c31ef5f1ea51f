/**
 * The serving-history blob of a `sequence` claim: for each forward pass that touched the
 * sequence, in order, the pass's shape facts and which entry is the sequence.
 *
 * ```
 * {"schema": "bitaudit.serving-history/v1",
 *  "passes": [{"entries": [[query, cached], ...],   (every entry of the pass, launch order)
 *              "self": i,                           (this sequence's entry)
 *              "rows": M,                           (rows of every GEMM and norm launch)
 *              "logitsRows": n,                     (entries that sample a token)
 *              "expertRows"?: [[count per expert] per MoE layer],
 *              "cascadePrefix"?: n}, ...]}         (vLLM cascade attention: the shared prefix)
 * ```
 * The blob is committed by its SHA-256 and must be exactly its RFC 8785 canonical encoding (one
 * byte string per history), parsed strictly and bounded before anything is allocated: its size
 * before it is decoded, and the place of each value as the parse reaches it, so a blob of another
 * shape is refused at its first value out of place instead of being parsed whole.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { type JsonKind, parseStrictJson, StrictJsonError } from "../json_strict.ts";
import { canonicalJson } from "./canonical_json.ts";
import { type HistoryBounds, readCanonicalHistory } from "./_canonical_history.ts";
import type { HistoryPass } from "./history_pass.ts";

export type { HistoryPass } from "./history_pass.ts";

/** Schema id of serving histories. */
export const SERVING_HISTORY_SCHEMA = "bitaudit.serving-history/v1";
/** Largest history blob accepted (bytes). */
export const MAX_HISTORY_BYTES = 64 << 20;
/** Largest number of entries over all passes of a history. */
export const MAX_HISTORY_ENTRIES = 1 << 22;
/** Largest number of passes of a history. */
export const MAX_HISTORY_PASSES = 1 << 16;
/** Largest number of entries of one pass. */
const MAX_PASS_ENTRIES = 4096;
/** Largest number of MoE layers of a pass's `expertRows`, and of experts of each. */
const MAX_MOE_LAYERS = 1024;
const MAX_EXPERTS = 4096;
const _PASS_KEYS = ["entries", "self", "rows", "logitsRows", "expertRows", "cascadePrefix"];

/**
 * Encodes a history (the prover's side): RFC 8785 canonical JSON.
 *
 * @param passes the passes
 * @returns the blob bytes
 * @example
 * ```ts
 * import { encodeServingHistory, parseServingHistory } from "./serving_history.ts";
 * const b = encodeServingHistory([{ entries: [{ query: 3, cached: 0 }], self: 0, rows: 3, logitsRows: 1 }]);
 * if (parseServingHistory(b)[0]!.rows !== 3) throw new Error();
 * ```
 */
export function encodeServingHistory(passes: readonly HistoryPass[]): Uint8Array {
  return canonicalJson({
    schema: SERVING_HISTORY_SCHEMA,
    passes: passes.map((p) => ({
      entries: p.entries.map((e) => [e.query, e.cached]),
      self: p.self,
      rows: p.rows,
      logitsRows: p.logitsRows,
      ...(p.expertRows === undefined ? {} : { expertRows: p.expertRows }),
      ...(p.cascadePrefix === undefined ? {} : { cascadePrefix: p.cascadePrefix }),
    })),
  });
}

/**
 * Parses a history blob strictly.
 *
 * @param bytes the blob
 * @returns the passes
 * @throws {InputError} `HISTORY_INVALID` for oversized, non-canonical or malformed blobs
 * @example
 * ```ts
 * import { parseServingHistory } from "./serving_history.ts";
 * let why = "";
 * try { parseServingHistory(new TextEncoder().encode("{}")); } catch (e) { why = (e as Error).message; }
 * if (!why.includes("schema")) throw new Error(why);
 * ```
 */
export function parseServingHistory(bytes: Uint8Array): HistoryPass[] {
  if (bytes.length > MAX_HISTORY_BYTES) {
    throw _bad(`${bytes.length} bytes exceed ${MAX_HISTORY_BYTES}`);
  }
  // A valid history's canonical bytes, read as they are; anything else takes the generic check,
  // which names what is wrong.
  return readCanonicalHistory(bytes, _BOUNDS) ?? parseServingHistoryGeneric(bytes);
}

/**
 * The generic check of {@link parseServingHistory} alone, without its fast reader of canonical
 * bytes: the same answer for every blob (a test holds the two to it), at the cost of a strict JSON
 * tree and a canonical re-encoding (gigabytes for a history at the limits).
 *
 * @param bytes the blob
 * @returns the passes
 * @throws {InputError} `HISTORY_INVALID` as {@link parseServingHistory}
 * @example
 * ```ts
 * import { encodeServingHistory, parseServingHistoryGeneric } from "./serving_history.ts";
 * const b = encodeServingHistory([{ entries: [{ query: 3, cached: 0 }], self: 0, rows: 3, logitsRows: 1 }]);
 * if (parseServingHistoryGeneric(b)[0]!.rows !== 3) throw new Error();
 * ```
 */
export function parseServingHistoryGeneric(bytes: Uint8Array): HistoryPass[] {
  if (bytes.length > MAX_HISTORY_BYTES) {
    throw _bad(`${bytes.length} bytes exceed ${MAX_HISTORY_BYTES}`);
  }
  // Said first: the decoder drops the mark, so the content's checks would name something else.
  if (_bom(bytes)) throw _bad(`it begins with a UTF-8 byte-order mark; ${_WRITE_IT}`);
  let json: unknown;
  const shape = _historyShape();
  try {
    json = parseStrictJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes), {
      admit: shape.admit,
    });
  } catch (e) {
    const refused = shape.refusal();
    if (e instanceof StrictJsonError && refused !== undefined) throw _bad(refused);
    if (e instanceof StrictJsonError || e instanceof TypeError) {
      throw _bad(`not strict JSON: ${e.message}; ${_WRITE_IT}`);
    }
    throw e;
  }
  const bad = (path: string, why: string): never => {
    throw _bad(`${path} ${why}`);
  };
  const obj = (v: unknown, path: string, keys: readonly string[], required: readonly string[]) => {
    const o = typeof v === "object" && v !== null && !Array.isArray(v)
      ? v as Record<string, unknown>
      : bad(path, "must be an object");
    for (const k of Object.keys(o)) {
      if (!keys.includes(k)) bad(`${path}.${k}`, "is an unknown field");
    }
    for (const k of required) if (!(k in o)) bad(`${path}.${k}`, "is missing");
    return o;
  };
  const int = (v: unknown, path: string, max: number) =>
    Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max
      ? v as number
      : bad(path, `must be an integer in 0..${max}`);
  const list = (v: unknown, path: string, max: number) =>
    Array.isArray(v) && v.length <= max ? v : bad(path, `must be an array of at most ${max}`);
  const top = obj(json, "$", ["schema", "passes"], ["schema", "passes"]);
  if (top.schema !== SERVING_HISTORY_SCHEMA) bad("$.schema", `must be '${SERVING_HISTORY_SCHEMA}'`);
  let entriesSeen = 0;
  const passes = list(top.passes, "$.passes", MAX_HISTORY_PASSES).map((p, i): HistoryPass => {
    const path = `$.passes[${i}]`;
    const o = obj(p, path, _PASS_KEYS, [
      "entries",
      "self",
      "rows",
      "logitsRows",
    ]);
    const raw = list(o.entries, `${path}.entries`, MAX_PASS_ENTRIES);
    // A pass computes this sequence's entry, so it holds one (issue 25: an empty pass reached
    // the replay, whose `entries[self]` was undefined).
    if (raw.length === 0) bad(`${path}.entries`, "must hold at least one entry (this sequence's)");
    entriesSeen += raw.length;
    if (entriesSeen > MAX_HISTORY_ENTRIES) {
      bad("$.passes", `hold over ${MAX_HISTORY_ENTRIES} entries`);
    }
    const entries = raw.map((e, j) => {
      const ep = `${path}.entries[${j}]`;
      if (!Array.isArray(e) || e.length !== 2) bad(ep, "must be [query, cached]");
      const pair = e as unknown[];
      return Object.freeze({
        query: int(pair[0], `${ep}[0]`, 1 << 20),
        cached: int(pair[1], `${ep}[1]`, 1 << 24),
      });
    });
    const self = int(o.self, `${path}.self`, entries.length - 1);
    const expert = o.expertRows === undefined
      ? undefined
      : list(o.expertRows, `${path}.expertRows`, MAX_MOE_LAYERS)
        .map((l, k) =>
          Object.freeze(
            list(l, `${path}.expertRows[${k}]`, MAX_EXPERTS).map((c, e) =>
              int(c, `${path}.expertRows[${k}][${e}]`, 1 << 20)
            ),
          )
        );
    return Object.freeze({
      entries: Object.freeze(entries),
      self,
      rows: int(o.rows, `${path}.rows`, 1 << 20),
      logitsRows: int(o.logitsRows, `${path}.logitsRows`, 4096),
      ...(expert === undefined ? {} : { expertRows: Object.freeze(expert) }),
      ...(o.cascadePrefix === undefined ? {} : {
        cascadePrefix: int(o.cascadePrefix, `${path}.cascadePrefix`, 1 << 24) ||
          bad(`${path}.cascadePrefix`, "must be at least 1 (leave it out without cascade)"),
      }),
    });
  });
  const canon = encodeServingHistory(passes);
  if (!_same(canon, bytes)) {
    bad("$", `is not the canonical (RFC 8785) encoding of its content (${_unlike(canon, bytes)})`);
  }
  return passes;
}

const _BOUNDS: HistoryBounds = Object.freeze({
  schema: SERVING_HISTORY_SCHEMA,
  passes: MAX_HISTORY_PASSES,
  entries: MAX_HISTORY_ENTRIES,
  passEntries: MAX_PASS_ENTRIES,
  moeLayers: MAX_MOE_LAYERS,
  experts: MAX_EXPERTS,
});

/**
 * Where a value may stand in a history and what it may be, checked as the parse reaches each value
 * (before reading it): the first value out of place (an unknown field, an array past its bound, an
 * object or array where a number belongs, entries past {@link MAX_HISTORY_ENTRIES} over all
 * passes) refuses the blob with the message the full check would give. So a blob costs what its
 * history-shaped values before the first misplaced one cost, never what millions of misplaced ones
 * would: 64 MiB of `{}` passes is refused at the 65,537th, not read to its 22 millionth.
 *
 * A value count could not do this: the largest honest history holds more values than such a blob.
 * Without expertRows it holds 3 + 65,536 x 7 (pass object, entries array, self, rows, logitsRows,
 * cascadePrefix, expertRows array) + 4,194,304 x 3 (an entry's array and its two numbers) =
 * 13,041,667 values, but expertRows counts (up to 1,024 lists of 4,096 a pass) are bounded only by
 * the blob's 64 MiB: an honest MoE history of decode passes, mostly `0,` counts, holds up to about
 * 33.5 million values, and 64 MiB of `{},` holds 22.4 million. Their places tell them apart.
 */
function _historyShape(): {
  admit: (path: readonly (string | number)[], kind: JsonKind) => string | undefined;
  refusal: () => string | undefined;
} {
  let entries = 0;
  let refusal: string | undefined;
  const refuse = (path: readonly (string | number)[], depth: number, why: string) => {
    refusal = `${_pathText(path, depth)} ${why}`;
    return refusal;
  };
  const array = (max: number) => `must be an array of at most ${max}`;
  const admit = (path: readonly (string | number)[], kind: JsonKind): string | undefined => {
    const d = path.length;
    const top = path[0], i = path[1], key = path[2], j = path[3], k = path[4];
    if (d === 0) return kind === "object" ? undefined : refuse(path, 0, "must be an object");
    if (typeof top !== "string") return refuse(path, 0, "must be an object");
    if (top === "schema") {
      return d === 1 && kind === "string"
        ? undefined
        : refuse(path, 1, `must be '${SERVING_HISTORY_SCHEMA}'`);
    }
    if (top !== "passes") return refuse(path, 1, "is an unknown field");
    if (d === 1) return kind === "array" ? undefined : refuse(path, 1, array(MAX_HISTORY_PASSES));
    if (typeof i !== "number" || i >= MAX_HISTORY_PASSES) {
      return refuse(path, 1, array(MAX_HISTORY_PASSES));
    }
    if (d === 2) return kind === "object" ? undefined : refuse(path, 2, "must be an object");
    if (typeof key !== "string" || !_PASS_KEYS.includes(key)) {
      return refuse(path, 3, "is an unknown field");
    }
    const max = key === "entries" ? MAX_PASS_ENTRIES : key === "expertRows" ? MAX_MOE_LAYERS : 0;
    if (d === 3) {
      if (max === 0) return kind === "number" ? undefined : refuse(path, 3, "must be an integer");
      return kind === "array" ? undefined : refuse(path, 3, array(max));
    }
    if (max === 0 || typeof j !== "number" || j >= max) return refuse(path, 3, array(max));
    const inner = key === "entries" ? "must be [query, cached]" : array(MAX_EXPERTS);
    if (d === 4) {
      if (kind !== "array") return refuse(path, 4, inner);
      if (key === "entries" && ++entries > MAX_HISTORY_ENTRIES) {
        return refuse(path, 1, `hold over ${MAX_HISTORY_ENTRIES} entries`);
      }
      return undefined;
    }
    if (d > 5 || typeof k !== "number" || k >= (key === "entries" ? 2 : MAX_EXPERTS)) {
      return refuse(path, 4, inner);
    }
    return kind === "number" ? undefined : refuse(path, 5, "must be an integer");
  };
  return { admit, refusal: () => refusal };
}

/** The JSON path of the first `depth` segments: `$`, then `.key` or `[index]` per level. */
function _pathText(path: readonly (string | number)[], depth: number): string {
  let out = "$";
  for (const s of path.slice(0, depth)) out += typeof s === "number" ? `[${s}]` : `.${s}`;
  return out;
}

function _same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Why bytes that parse are not their canonical encoding (its likely cause), and how a prover
 * writes it: the history holds integers and one ASCII string, so sorted keys and no whitespace
 * are all RFC 8785 asks of it.
 */
/** How to write a history's bytes so they are their canonical encoding. */
const _WRITE_IT = "write it with no whitespace, keys sorted, no byte-order mark and no newline " +
  `at the end, e.g. Python's json.dumps(obj, sort_keys=True, separators=(",", ":"), ` +
  "ensure_ascii=False).encode() written as is, or encodeServingHistory of the library's " +
  "./claims entry point";

function _unlike(canon: Uint8Array, bytes: Uint8Array): string {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  const cause = end < bytes.length && _same(canon, bytes.subarray(0, end))
    ? "it ends in a newline"
    : bytes.some((b) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09)
    ? "it holds spaces or newlines"
    : "its keys are not in sorted order, or a number is not written in its shortest form";
  return `${cause}; ${_WRITE_IT}`;
}

/** A UTF-8 byte-order mark (Windows editors, PowerShell 5.1), which the decoder drops. */
function _bom(bytes: Uint8Array): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function _bad(why: string): InputError {
  return new InputError("HISTORY_INVALID", `Cannot read serving history: ${why}`);
}

/**
 * The longest key sequence another request of the batch holds in any pass (its cached plus its
 * new positions), and that pass: what an engine with a length limit must have served too.
 *
 * @param passes the history's passes
 * @returns the longest neighbour and its pass, or null when the sequence ran alone
 * @example
 * ```ts
 * import { longestNeighbour } from "./serving_history.ts";
 * const n = longestNeighbour([{ entries: [{ query: 3, cached: 0 }, { query: 1, cached: 9 }],
 *   rows: 4, logitsRows: 2, self: 0 }]);
 * if (n?.keys !== 10 || n.pass !== 0) throw new Error();
 * ```
 */
export function longestNeighbour(
  passes: readonly HistoryPass[],
): { readonly keys: number; readonly pass: number } | null {
  let best: { keys: number; pass: number } | null = null;
  for (const [i, q] of passes.entries()) {
    for (const [j, e] of q.entries.entries()) {
      if (j !== q.self && (best === null || e.cached + e.query > best.keys)) {
        best = { keys: e.cached + e.query, pass: i };
      }
    }
  }
  return best;
}

/**
 * The furthest the sequence's own positions reach (cached plus new) in a pass that continues its
 * previous one (it was running there: scheduled again with what it had computed, not restarted),
 * and that pass: vLLM's scheduler caps such a pass below `max_model_len - 1`.
 *
 * @param passes the history's passes
 * @returns the furthest continuing pass, or null when the sequence ran in one pass or every later
 *   pass restarts it
 * @example
 * ```ts
 * import { furthestRunning } from "./serving_history.ts";
 * const one = (query: number, cached: number) =>
 *   ({ entries: [{ query, cached }], rows: query, logitsRows: 1, self: 0 });
 * const r = furthestRunning([one(4, 0), one(3, 4), one(1, 7)]);
 * if (r?.keys !== 8 || r.pass !== 2) throw new Error();
 * if (furthestRunning([one(4, 0)]) !== null) throw new Error();
 * ```
 */
export function furthestRunning(
  passes: readonly HistoryPass[],
): { readonly keys: number; readonly pass: number } | null {
  let best: { keys: number; pass: number } | null = null;
  for (let i = 1; i < passes.length; i++) {
    const before = passes[i - 1]!.entries[passes[i - 1]!.self]!;
    const e = passes[i]!.entries[passes[i]!.self]!;
    if (e.cached !== before.cached + before.query) continue;
    if (best === null || e.cached + e.query > best.keys) {
      best = { keys: e.cached + e.query, pass: i };
    }
  }
  return best;
}
