/**
 * An audit: derive the seed from the committed log root and public randomness, draw the sample,
 * run the recompute-and-compare pipeline on every sampled record, and decide the verdict, as
 * three steps (plan, work, merge) that a distributed audit runs on many machines.
 *
 * @module
 */
import { ownBuild } from "./result_build.ts";
import type { ClaimLog } from "../claims/mod.ts";
import { type AuditPlan, auditPlanDigest, planAudit } from "./audit_plan.ts";
import { type AttributedResult, type MergedAudit, mergeItemResults } from "./merge_item_results.ts";
import type { AuditReport } from "./audit_report.ts";
import type { VerifyContext } from "./verify_record.ts";
import { checkPlanLog, type WorkContext, workItem } from "./work_item.ts";

/** Worker name of results computed by `runAudit` (which signs nothing). */
export const IN_PROCESS_WORKER = "in-process";

/** What an audit starts from. */
export interface AuditInputs {
  /** The claim log (parsed and chain-checked). */
  readonly log: ClaimLog;
  /** Audit identifier chosen by the inspector. */
  readonly auditId: string;
  /** Public randomness fixed after the log was committed (hex). */
  readonly randomness: string;
  /** Beacon round of that randomness. */
  readonly round: number;
  /** Sample size. */
  readonly k: number;
  /** The root the prover committed to, if known: the log must match it. */
  readonly expectedRoot?: string;
  /** Called after each record with (done, total). */
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Runs an audit in this process: plan, work on every item, merge (the same three steps a
 * distributed audit runs on many machines, so both give the same report).
 *
 * @param ctx verification context (assets, blobs, walker; `engine` names the walker; its
 *   `maxRecordProducts`, if any, becomes the plan's budget a record)
 * @param inputs log, audit id, randomness, round, k; `onProgress(done, total)` after each record
 * @returns the report
 * @throws {InputError} `AUDIT_ROOT_MISMATCH`, `AUDIT_K` for a bad sample size, `AUDIT_SEED`
 * @example
 * ```ts ignore
 * const report = await runAudit(ctx, { log, auditId: "a1", randomness, round, k: 50 });
 * ```
 */
export async function runAudit(
  ctx: VerifyContext & { readonly engine?: string },
  inputs: AuditInputs,
): Promise<AuditReport> {
  const plan = planAudit(inputs.log, { ...inputs, maxRecordProducts: ctx.maxRecordProducts });
  const work = { ...ctx, engine: ctx.engine ?? "unnamed" };
  const merged = await runAuditPlan(work, {
    plan,
    log: inputs.log,
    worker: IN_PROCESS_WORKER,
    onProgress: inputs.onProgress,
  });
  return merged.report;
}

/**
 * Works on every item of a plan in this process and merges the results.
 *
 * @param ctx verification context with the engine name (and the evidence policy, if any)
 * @param target the plan, the log it was made from, the key id of the `worker` key this process
 *   computes as (recorded with every result), and `onProgress(done, total)`
 * @returns the merged audit (report, verifier, assets); the report records `ctx.requireEvidence`
 *   and the plan's `maxRecordProducts`, which every item was recomputed under
 * @throws {InputError} `PLAN_LOG_MISMATCH` when the log is not the plan's
 * @throws {RangeError} when `ctx.maxRecordProducts` is set and is not the plan's (the plan fixes
 *   the budget, and the report records it)
 * @example
 * ```ts ignore
 * const { report, assets } = await runAuditPlan(ctx, { plan, log, worker: keyId(workerKey) });
 * ```
 */
export async function runAuditPlan(
  ctx: WorkContext,
  target: {
    plan: AuditPlan;
    log: ClaimLog;
    worker: string;
    onProgress?: ((done: number, total: number) => void) | undefined;
  },
): Promise<MergedAudit> {
  const { plan, log, worker, onProgress } = target;
  checkPlanLog(plan, log);
  if (ctx.maxRecordProducts !== undefined && ctx.maxRecordProducts !== plan.maxRecordProducts) {
    throw new RangeError(
      `Cannot work on the plan with a budget of ${ctx.maxRecordProducts} products a record: ` +
        `the plan's is ${plan.maxRecordProducts ?? "the default"}`,
    );
  }
  const planDigest = auditPlanDigest(plan);
  const results: AttributedResult[] = [];
  const maxRecordProducts = plan.maxRecordProducts; // every item under the plan's budget
  for (const item of plan.items) {
    results.push({
      result: await workItem(ctx, { planDigest, log, item, maxRecordProducts }),
      worker,
    });
    onProgress?.(results.length, plan.items.length);
  }
  const merged = mergeItemResults(plan, {
    planDigest,
    results,
    build: ownBuild(ctx.store),
  });
  // Every result was computed under the context's evidence policy: the report says so, so that
  // the verdict records it and a recomputation by a third party applies the same.
  return ctx.requireEvidence === undefined
    ? merged
    : { ...merged, report: { ...merged.report, requireEvidence: ctx.requireEvidence } };
}
