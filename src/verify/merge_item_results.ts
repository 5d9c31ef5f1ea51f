/**
 * The merge step of an audit: every planned item gets exactly one result. Results from another
 * plan or for an unplanned item are refused; two results of one item must agree bit for bit
 * (else the merge fails: one of the workers is wrong and the verdict cannot be signed); an item
 * nobody returned becomes NOT_VERIFIED, so the verdict can never be PASSED without it.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import type { AuditPlan } from "./audit_plan.ts";
import { detectionStatement } from "./detection.ts";
import { type ItemResult, resultBytes, type WorkerInfo } from "./item_result.ts";
import { auditVerdict, type RecordResult } from "./record_result.ts";
import type { AuditReport } from "./audit_report.ts";

/** Reason recorded for a planned item that no worker returned. */
export const MISSING_RESULT_REASON = "no worker returned a result for this item";

/** A merged audit: the report and what the verdict says about who computed it. */
export interface MergedAudit {
  /** The report (results in selection order). */
  readonly report: AuditReport;
  /** Version; the sorted distinct engines and runtimes of the workers, joined by `+`. */
  readonly verifier: WorkerInfo;
  /** Union of the workers' asset digests (path -> sha256). */
  readonly assets: Readonly<Record<string, string>>;
  /** Log indices of the items without a result. */
  readonly missing: readonly number[];
  /** How many results repeated an item already merged (and agreed with it). */
  readonly duplicates: number;
}

/**
 * Merges item results into the audit report.
 *
 * @param plan the plan
 * @param options `planDigest` (SHA-256 of the plan bytes), `results` in any order, and the
 *   merging `version` (every result must come from it)
 * @returns the merged audit
 * @throws {InputError} `MERGE_FOREIGN` (another plan or an unplanned item), `MERGE_MISMATCH`
 *   (a result about another record), `MERGE_VERSION`, `MERGE_CONFLICT` (duplicates disagree),
 *   `MERGE_ASSET_CONFLICT` (one asset path with two digests)
 * @example
 * ```ts ignore
 * const { report } = mergeItemResults(plan, { planDigest, results, version: VERSION });
 * ```
 */
export function mergeItemResults(
  plan: AuditPlan,
  options: { planDigest: string; results: Iterable<ItemResult>; version: string },
): MergedAudit {
  const slot = new Map(plan.items.map((it, j) => [it.item, j]));
  const chosen: (ItemResult | undefined)[] = plan.items.map(() => undefined);
  const assets = new Map<string, string>();
  const engines = new Set<string>();
  const runtimes = new Set<string>();
  let duplicates = 0;
  for (const r of options.results) {
    const j = slot.get(r.item);
    if (r.plan !== options.planDigest || j === undefined) {
      throw new InputError(
        "MERGE_FOREIGN",
        `Cannot merge item ${r.item.slice(0, 16)}: it is not an item of this plan`,
      );
    }
    _sameRecord(plan.items[j]!, r);
    if (r.verifier.version !== options.version) {
      throw new InputError(
        "MERGE_VERSION",
        `Cannot merge record ${r.result.index}: computed by version '${r.verifier.version}', merging with '${options.version}'`,
      );
    }
    const prior = chosen[j];
    if (prior !== undefined) {
      if (resultBytes(prior) !== resultBytes(r)) {
        throw new InputError(
          "MERGE_CONFLICT",
          `Cannot merge record ${r.result.index}: two results disagree (${prior.result.status} vs ${r.result.status})`,
        );
      }
      duplicates++;
    } else chosen[j] = r;
    for (const [path, digest] of Object.entries(r.assets)) {
      if ((assets.get(path) ?? digest) !== digest) {
        throw new InputError(
          "MERGE_ASSET_CONFLICT",
          `Cannot merge: workers used two versions of asset '${path}'`,
        );
      }
      assets.set(path, digest);
    }
    engines.add(r.verifier.engine);
    runtimes.add(r.verifier.runtime);
  }
  const results = chosen.map((r, j) => r?.result ?? _missing(plan, j));
  return {
    report: _report(plan, results),
    verifier: { version: options.version, engine: _join(engines), runtime: _join(runtimes) },
    assets: Object.fromEntries([...assets].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)),
    missing: plan.items.filter((_, j) => chosen[j] === undefined).map((it) => it.index),
    duplicates,
  };
}

function _sameRecord(
  it: { index: number; record: string; claimed: string },
  r: ItemResult,
): void {
  const x = r.result;
  if (x.index !== it.index || x.digest !== it.record || x.claimed !== it.claimed) {
    throw new InputError(
      "MERGE_MISMATCH",
      `Cannot merge the result of item ${r.item.slice(0, 16)}: it is about another record`,
    );
  }
}

function _missing(plan: AuditPlan, j: number): RecordResult {
  const it = plan.items[j]!;
  return {
    index: it.index,
    digest: it.record,
    status: "NOT_VERIFIED",
    reason: MISSING_RESULT_REASON,
    claimed: it.claimed,
    recomputed: null,
    firstDifference: null,
    steps: [],
  };
}

function _report(plan: AuditPlan, results: readonly RecordResult[]): AuditReport {
  const k = plan.items.length;
  return {
    auditId: plan.auditId,
    logId: plan.logId,
    population: plan.population,
    root: plan.logRoot,
    randomness: plan.beacon.randomness,
    round: plan.beacon.round,
    seedDerivation: plan.seedDerivation,
    seed: plan.seed,
    algorithm: plan.algorithm,
    selected: plan.items.map((it) => it.index),
    results,
    verdict: auditVerdict(results),
    detection: detectionStatement(plan.population, { k }),
  };
}

function _join(names: Set<string>): string {
  return names.size === 0 ? "none" : [...names].sort().join("+");
}
