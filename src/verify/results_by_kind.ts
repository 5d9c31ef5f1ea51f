/**
 * Sampled results counted per workload kind (what the audit report and the browser checker show
 * first: how much of each kind was checked and how it came out).
 *
 * @module
 */
import type { ClaimRecord } from "../claims/mod.ts";
import type { RecordStatus } from "./record_result.ts";

/** Counts of one workload kind. */
export interface KindCounts {
  /** Workload kind (`gemm`, `attention_block`, ...), or `unknown` without the log. */
  readonly kind: string;
  /** Sampled records that passed. */
  readonly PASS: number;
  /** Sampled records that failed. */
  readonly FAIL: number;
  /** Sampled records that could not be verified. */
  readonly NOT_VERIFIED: number;
}

/**
 * Counts sampled results per workload kind, in order of first appearance.
 *
 * @param results sampled results (`index` into the log, `status`)
 * @param records the log's records, or the kind of each sampled index (an audit plan's items),
 *   or `null` when neither is at hand (kind `unknown`)
 * @returns one row per kind
 * @throws {RangeError} when a result's index is outside the log
 * @example
 * ```ts
 * import { resultsByKind } from "./results_by_kind.ts";
 * const rows = resultsByKind([{ index: 0, status: "PASS" }, { index: 1, status: "FAIL" }], null);
 * if (rows.length !== 1 || rows[0]!.PASS !== 1 || rows[0]!.FAIL !== 1) throw new Error();
 * ```
 */
export function resultsByKind(
  results: readonly { readonly index: number; readonly status: RecordStatus }[],
  records: readonly ClaimRecord[] | ReadonlyMap<number, string> | null,
): KindCounts[] {
  const rows = new Map<
    string,
    { kind: string; PASS: number; FAIL: number; NOT_VERIFIED: number }
  >();
  for (const r of results) {
    let kind = "unknown";
    if (records instanceof Map) {
      kind = records.get(r.index) ?? "unknown";
    } else if (records !== null) {
      const log = records as readonly ClaimRecord[];
      const record = log[r.index];
      if (record === undefined) {
        throw new RangeError(
          `Cannot count result ${r.index}: the log has ${log.length} records`,
        );
      }
      kind = record.predicate.workload.kind;
    }
    let row = rows.get(kind);
    if (row === undefined) rows.set(kind, row = { kind, PASS: 0, FAIL: 0, NOT_VERIFIED: 0 });
    row[r.status]++;
  }
  return [...rows.values()];
}
