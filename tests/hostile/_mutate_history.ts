/**
 * Mutations of a committed serving history for the recompute-path fuzzer (issue 25, item 1):
 * lengths, row counts and the sequence's entry changed, entries and passes dropped, duplicated,
 * emptied or swapped, MoE expert rows changed. The caller re-commits the edited history, so the
 * record's digest holds and the mutation reaches the replay.
 */
import fc from "fast-check";
import type { HistoryPass } from "../../src/claims/mod.ts";

/** A new value: an absolute one (often an edge) or a step from the old one. */
export type Num = { readonly abs: number } | { readonly rel: number };

/** Arbitrary {@link Num}: mostly small steps, sometimes edge values. */
export const NUM: fc.Arbitrary<Num> = fc.oneof(
  { arbitrary: fc.integer({ min: -3, max: 3 }).map((rel) => ({ rel })), weight: 3 },
  {
    arbitrary: fc.constantFrom(0, 1, 2, 3, 4096, 1 << 20, 1 << 24).map((abs) => ({ abs })),
    weight: 1,
  },
);

/** Applies a {@link Num} to a value. */
export function num(v: number, n: Num): number {
  return "abs" in n ? n.abs : v + n.rel;
}

/** One edit of a serving history. */
export interface HistoryEdit {
  readonly op:
    | "rows"
    | "logitsRows"
    | "self"
    | "query"
    | "cached"
    | "dropEntry"
    | "dupEntry"
    | "clearEntries"
    | "dropPass"
    | "dupPass"
    | "swapPasses"
    | "expert"
    | "dropExperts";
  readonly pass: number;
  readonly at: number;
  readonly n: Num;
}

/** A few edits of a history, then how the record follows it. */
export const HISTORY_EDITS: fc.Arbitrary<{
  edits: HistoryEdit[];
  keepCount: boolean;
  keepBatch: boolean;
}> = fc.record({
  edits: fc.array(
    fc.record({
      op: fc.constantFrom(
        "rows",
        "logitsRows",
        "self",
        "query",
        "cached",
        "dropEntry",
        "dupEntry",
        "clearEntries",
        "dropPass",
        "dupPass",
        "swapPasses",
        "expert",
        "dropExperts",
      ),
      pass: fc.nat({ max: 1000 }),
      at: fc.nat({ max: 1000 }),
      n: NUM,
    }),
    { minLength: 1, maxLength: 3 },
  ),
  keepCount: fc.boolean(),
  keepBatch: fc.boolean(),
});

interface _Pass {
  entries: { query: number; cached: number }[];
  rows: number;
  logitsRows: number;
  self: number;
  expertRows?: number[][];
}

/**
 * Applies history edits to a copy of the passes.
 *
 * @param passes the honest history
 * @param edits the edits
 * @returns the edited passes (possibly empty, possibly not a valid history)
 */
export function editHistory(
  passes: readonly HistoryPass[],
  edits: readonly HistoryEdit[],
): HistoryPass[] {
  const out: _Pass[] = passes.map((p) => ({
    entries: p.entries.map((e) => ({ ...e })),
    rows: p.rows,
    logitsRows: p.logitsRows,
    self: p.self,
    ...(p.expertRows === undefined ? {} : { expertRows: p.expertRows.map((l) => [...l]) }),
  }));
  for (const e of edits) {
    if (out.length === 0) break;
    const i = e.pass % out.length;
    const p = out[i]!;
    const k = p.entries.length === 0 ? 0 : e.at % p.entries.length;
    const entry = p.entries[k];
    switch (e.op) {
      case "rows":
      case "logitsRows":
      case "self":
        p[e.op] = num(p[e.op], e.n);
        break;
      case "query":
      case "cached":
        if (entry !== undefined) entry[e.op] = num(entry[e.op], e.n);
        break;
      case "dropEntry":
        p.entries.splice(k, 1);
        break;
      case "dupEntry":
        if (entry !== undefined) p.entries.splice(k, 0, { ...entry });
        break;
      case "clearEntries":
        p.entries = [];
        break;
      case "dropPass":
        out.splice(i, 1);
        break;
      case "dupPass":
        out.splice(i, 0, structuredClone(p));
        break;
      case "swapPasses":
        if (i + 1 < out.length) [out[i], out[i + 1]] = [out[i + 1]!, p];
        break;
      case "expert": {
        const x = p.expertRows ?? [[0, 0, 0, 0]];
        const l = x[e.at % x.length]!;
        l[e.at % l.length] = num(l[e.at % l.length]!, e.n);
        p.expertRows = x;
        break;
      }
      case "dropExperts":
        delete p.expertRows;
        break;
    }
  }
  return out;
}
