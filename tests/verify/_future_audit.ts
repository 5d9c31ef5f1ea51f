/** An audit of a {@link futureLog}, its items worked out by the reference engine, for the tests. */
import { openAssetStore, openBlobStore } from "../../src/assets/mod.ts";
import type { ClaimLog } from "../../src/claims/mod.ts";
import { referenceKWalker } from "../../src/kernels/mod.ts";
import {
  type AuditPlan,
  auditPlanDigest,
  type ItemResult,
  planAudit,
  type PlanInputs,
  type WorkContext,
  workItem,
} from "../../src/verify/mod.ts";
import { futureLog } from "./_future_log.ts";

/** A planned audit of a future log and each item's result, in the plan's order. */
export interface FutureAudit {
  /** The log of `n` records. */
  readonly log: ClaimLog;
  /** The plan made from the log with the inputs given. */
  readonly plan: AuditPlan;
  /** The SHA-256 of the plan's bytes. */
  readonly planDigest: string;
  /** The context the results were worked out in (reference engine, no blobs). */
  readonly ctx: WorkContext;
  /** One result per plan item. */
  readonly results: ItemResult[];
}

/**
 * Plans an audit of a {@link futureLog} of `n` records and works out every item's result.
 *
 * @param n record count
 * @param inputs the plan's inputs
 * @returns the log, plan, its digest, the context and the results
 */
export async function futureAudit(n: number, inputs: PlanInputs): Promise<FutureAudit> {
  const log = futureLog(n);
  const plan = planAudit(log, inputs);
  const planDigest = auditPlanDigest(plan);
  const ctx = {
    store: await openAssetStore(),
    blobs: openBlobStore("/nonexistent"),
    walker: referenceKWalker,
    engine: "reference",
  };
  const results: ItemResult[] = [];
  for (const item of plan.items) results.push(await workItem(ctx, { planDigest, log, item }));
  return { log, plan, planDigest, ctx, results };
}
