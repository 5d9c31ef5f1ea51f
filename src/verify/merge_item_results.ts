/**
 * The merge step of an audit: every planned item gets exactly one result, attributed to the
 * worker key that signed it. Results from another plan, for an unplanned item or computed under
 * another budget a record than the plan's (a pool worker misled by a forged work order) are
 * refused; a
 * result that does not show what its status claims, for its record's workload kind, is refused;
 * two results of one item must agree bit for bit (else the merge fails, naming both workers: one
 * of them is wrong and the verdict cannot be signed); an item nobody returned becomes
 * NOT_VERIFIED, so the verdict can never be PASSED without it.
 *
 * @module
 */
import { type Build, describeBuild, resultBuild, sameBuild } from "./result_build.ts";
import { InputError } from "../errors.ts";
import type { AuditPlan } from "./audit_plan.ts";
import { detectionStatement } from "./detection.ts";
import { type ItemResult, resultBytes, type WorkerInfo } from "./item_result.ts";
import { auditVerdict, type RecordResult } from "./record_result.ts";
import { budgetText, MAX_RECORD_PRODUCTS } from "./record_products.ts";
import { resultInconsistency } from "./result_consistency.ts";
import { mergedEngineName } from "./verifier_engine.ts";
import type { AuditReport } from "./audit_report.ts";

/** Reason recorded for a planned item that no worker returned. */
export const MISSING_RESULT_REASON = "no worker returned a result for this item";

/** An item result with the key id (hex SHA-256 of its SPKI) of the worker that signed it. */
export interface AttributedResult {
  /** The result, its signature already verified. */
  readonly result: ItemResult;
  /** Key id of the worker key that signed it. */
  readonly worker: string;
}

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
  /**
   * Per result of the report (same order): key id of the worker that computed it (of agreeing
   * duplicates, the lowest key id), or null.
   */
  readonly workers: readonly (string | null)[];
  /** Log indices whose results the merging inspector recomputed itself and found equal. */
  readonly reverified: readonly number[];
}

/**
 * Merges item results into the audit report.
 *
 * @param plan the plan
 * @param options `planDigest` (SHA-256 of the plan bytes), `results` (signature-checked, with
 *   their worker) in any order, and the merging `build` (every result must come from it:
 *   `sameBuild`)
 * @returns the merged audit
 * @throws {InputError} `MERGE_FOREIGN` (another plan, an unplanned item, or another budget a
 *   record than the plan's), `MERGE_MISMATCH`
 *   (a result about another record), `RESULT_INCONSISTENT` (its fields contradict its status for
 *   its workload kind), `MERGE_VERSION`, `MERGE_CONFLICT` (duplicates disagree),
 *   `MERGE_ASSET_CONFLICT` (one asset path with two digests)
 * @example
 * ```ts ignore
 * const { report } = mergeItemResults(plan, { planDigest, results, build: ownBuild(store) });
 * ```
 */
export function mergeItemResults(
  plan: AuditPlan,
  options: {
    planDigest: string;
    results: Iterable<AttributedResult>;
    build: Build;
  },
): MergedAudit {
  const admit = mergeAdmission(plan, options);
  const chosen: (AttributedResult | undefined)[] = plan.items.map(() => undefined);
  const assets = new Map<string, string>();
  const engines = new Set<string>();
  const runtimes = new Set<string>();
  let duplicates = 0;
  for (const signed of options.results) {
    const r = signed.result;
    const j = admit(signed);
    const prior = chosen[j];
    if (prior !== undefined) duplicates++;
    chosen[j] = keptDuplicate(prior, signed);
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
  const results = chosen.map((r, j) => r?.result.result ?? _missing(plan, j));
  return {
    report: _report(plan, results),
    verifier: {
      version: options.build.version,
      engine: mergedEngineName(engines),
      runtime: mergedEngineName(runtimes), // runtimes are joined as engines are
    },
    assets: Object.fromEntries([...assets].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)),
    missing: plan.items.filter((_, j) => chosen[j] === undefined).map((it) => it.index),
    duplicates,
    workers: chosen.map((r) => r?.worker ?? null),
    reverified: [],
  };
}

/**
 * The check every worker's result passes before it is merged or compared with a duplicate: an
 * item of this plan (its digest and the plan's), about the item's record and consistent with its
 * status, computed by the merging version under the plan's budget a record (the budget the
 * result states: a pool worker applies the one its work order carries, which anyone who can
 * publish on the work subject can forge). Checked on each result as it is read, so which of
 * two results is refused does not depend on the order of the files or messages.
 *
 * @param plan the plan
 * @param options `planDigest` (SHA-256 of the plan bytes) and the merging `build` (its version,
 *   and the manifest digest naming its code and tables)
 * @returns a function giving a result's slot in the plan's items, or throwing
 * @throws {InputError} (from the function) `MERGE_FOREIGN`, `MERGE_MISMATCH`,
 *   `RESULT_INCONSISTENT`, `MERGE_VERSION`, as {@link mergeItemResults}
 * @example
 * ```ts ignore
 * const admit = mergeAdmission(plan, { planDigest, build: ownBuild(store) });
 * for (const r of results) admit(r);
 * ```
 */
export function mergeAdmission(
  plan: AuditPlan,
  options: { readonly planDigest: string; readonly build: Build },
): (signed: AttributedResult) => number {
  const own = options.build;
  const slot = new Map(plan.items.map((it, j) => [it.item, j]));
  return (signed) => {
    const r = signed.result;
    const j = slot.get(r.item);
    if (r.plan !== options.planDigest || j === undefined) {
      throw new InputError(
        "MERGE_FOREIGN",
        `Cannot merge item ${r.item.slice(0, 16)} from worker ${
          signed.worker.slice(0, 16)
        }: it is not an item of this plan`,
      );
    }
    _sameRecord(plan.items[j]!, signed);
    const theirs = resultBuild(r);
    if (!sameBuild(theirs, own)) {
      throw new InputError(
        "MERGE_VERSION",
        `Cannot merge record ${r.result.index}: computed by another build (${
          describeBuild(theirs)
        }), merging with ${describeBuild(own)}`,
      );
    }
    if (r.maxRecordProducts !== plan.maxRecordProducts) {
      throw new InputError(
        "MERGE_FOREIGN",
        `Cannot merge record ${r.result.index} (item ${r.item.slice(0, 16)}) from worker ${
          signed.worker.slice(0, 16)
        }: it was computed under a budget of ${
          _budgetText(r.maxRecordProducts)
        } products a record, the plan's is ${
          _budgetText(plan.maxRecordProducts)
        }: it answers a work order that is not the plan's (anyone who can publish on the NATS ` +
          "work subject can send one)",
      );
    }
    return j;
  };
}

/** A budget a record as a result or plan states it (absent: the default). */
function _budgetText(budget: number | undefined): string {
  return budget === undefined
    ? `the default (${budgetText(MAX_RECORD_PRODUCTS)})`
    : budgetText(budget);
}

/**
 * Of an item's result kept so far and a later result of the same item, the one to keep: the
 * later must agree with the kept one bit for bit (the encoded results are compared), and of
 * agreeing duplicates the one signed by the lowest worker key is kept, so the signed attribution
 * does not depend on the order of the files or messages.
 *
 * @param prior the result kept so far for the item (undefined: none yet)
 * @param later a later result of the same item
 * @returns the result to keep
 * @throws {InputError} `MERGE_CONFLICT` when the two disagree (naming both workers, or the one
 *   worker that signed both)
 * @example
 * ```ts ignore
 * kept.set(r.result.item, keptDuplicate(kept.get(r.result.item), r));
 * ```
 */
export function keptDuplicate(
  prior: AttributedResult | undefined,
  later: AttributedResult,
): AttributedResult {
  if (prior === undefined) return later;
  const r = later.result;
  if (resultBytes(prior.result) !== resultBytes(r)) {
    const [a, b] = [prior.result.result.status, r.result.status];
    const who = prior.worker === later.worker
      ? `worker ${later.worker.slice(0, 16)} signed two different results for it (${a}, then ${b})`
      : `workers ${prior.worker.slice(0, 16)} (${a}) and ${
        later.worker.slice(0, 16)
      } (${b}) disagree`;
    throw new InputError("MERGE_CONFLICT", `Cannot merge record ${r.result.index}: ${who}`);
  }
  return later.worker < prior.worker ? later : prior;
}

function _sameRecord(
  it: { index: number; record: string; claimed: string; kind: string },
  signed: AttributedResult,
): void {
  const r = signed.result;
  const x = r.result;
  const who = `from worker ${signed.worker.slice(0, 16)}`;
  if (x.index !== it.index || x.digest !== it.record || x.claimed !== it.claimed) {
    throw new InputError(
      "MERGE_MISMATCH",
      `Cannot merge the result of item ${r.item.slice(0, 16)} ${who}: it is about another record`,
    );
  }
  const why = resultInconsistency(x, { kind: it.kind, chain: true });
  if (why !== null) {
    throw new InputError(
      "RESULT_INCONSISTENT",
      `Cannot merge the result of record ${x.index} ${who}: ${why}`,
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
    // Every item was computed under the plan's budget: the verdict records it, so that a
    // recomputation by a third party applies the same.
    ...(plan.maxRecordProducts === undefined ? {} : { maxRecordProducts: plan.maxRecordProducts }),
  };
}
