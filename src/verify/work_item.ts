/**
 * The work step of an audit: recompute plan items on this machine (any workload kind: the item
 * only names a record; `verifyRecord` decides what it can recompute), each into an
 * {@link ItemResult}.
 *
 * @module
 */
import { MANIFEST_PATH } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import { quoteShort } from "../escape_text.ts";
import type { ClaimLog } from "../claims/mod.ts";
import { VERSION } from "../version.ts";
import type { AuditPlan, PlanItem } from "./audit_plan.ts";
import { planItemMismatch } from "./plan_item_log.ts";
import { ITEM_RESULT_FORMAT, type ItemResult, type WorkerInfo } from "./item_result.ts";
import { type VerifyContext, verifyRecord } from "./verify_record.ts";

/** A verification context that knows which engine runs it. */
export interface WorkContext extends VerifyContext {
  /** K-walk engine name recorded with every result (`wasm` or `reference`). */
  readonly engine: string;
  /** Worker threads of the engine (recorded with each result's timing; default 1). */
  readonly threads?: number | undefined;
}

/**
 * Checks that a log is the one a plan was made from (same root, same log id, same record at every
 * item, and each item's kind and claimed fingerprint the record's own).
 *
 * @param plan the plan
 * @param log the claim log
 * @throws {InputError} `PLAN_LOG_MISMATCH`
 * @example
 * ```ts ignore
 * checkPlanLog(plan, log);
 * ```
 */
export function checkPlanLog(plan: AuditPlan, log: ClaimLog): void {
  const bad = (why: string): never => {
    throw new InputError("PLAN_LOG_MISMATCH", `Cannot use the log with this plan: ${why}`);
  };
  if (log.root !== plan.logRoot) bad(`its root is ${log.root}, the plan's ${plan.logRoot}`);
  // The log id is signed into the verdict's subjects, and neither the items nor the seed bind it.
  const logId = log.records[0]?.predicate.log.logId;
  if (logId !== plan.logId) {
    bad(`its log id is ${quoteShort(logId ?? "")}, the plan's ${quoteShort(plan.logId)}`);
  }
  if (log.records.length !== plan.population) {
    bad(`it has ${log.records.length} records, the plan ${plan.population}`);
  }
  for (const it of plan.items) {
    const why = planItemMismatch(it, log);
    if (why !== null) bad(why);
  }
}

/**
 * Recomputes one plan item.
 *
 * @param ctx assets, blobs, walker and engine name
 * @param target the SHA-256 of the plan's bytes, the log (checked with {@link checkPlanLog} or
 *   `checkWorkOrder`), the item, the id of the serve whose work order asked for it (a pool
 *   worker's: echoed in the result; none for a shard's item), and the plan's budget a record
 *   (`AuditPlan.maxRecordProducts`, which it applies in place of the context's and states in the
 *   result; absent: the default, and the result states none)
 * @returns the item result (problems of the record itself are results, not exceptions)
 * @example
 * ```ts ignore
 * const r = await workItem(ctx, { planDigest, log, item: plan.items[0] });
 * ```
 */
export async function workItem(
  ctx: WorkContext,
  target: {
    planDigest: string;
    log: ClaimLog;
    item: PlanItem;
    serve?: string | undefined;
    maxRecordProducts?: number | undefined;
  },
): Promise<ItemResult> {
  const t0 = performance.now();
  // The item's own view of the assets: its result names what this recomputation read (and what
  // the context read before any item, the engine), not what earlier items of this process did.
  const store = ctx.store.scope();
  const result = await verifyRecord(
    { ...ctx, store, maxRecordProducts: target.maxRecordProducts },
    {
      log: target.log,
      index: target.item.index,
    },
  );
  const ms = Math.round(performance.now() - t0);
  return {
    format: ITEM_RESULT_FORMAT,
    plan: target.planDigest,
    item: target.item.item,
    ...(target.serve !== undefined ? { serve: target.serve } : {}),
    // The budget applied, signed with the result: a pool worker's came in a work order, which
    // anyone who can publish on the work subject can send, so the merge compares it with the
    // plan's.
    ...(target.maxRecordProducts !== undefined
      ? { maxRecordProducts: target.maxRecordProducts }
      : {}),
    result,
    verifier: workerInfo(ctx.engine),
    assets: { [MANIFEST_PATH]: store.manifestSha256, ...store.used() },
    timing: { ms, threads: ctx.threads ?? 1 },
  };
}

/**
 * This process's identity as a worker.
 *
 * @param engine K-walk engine name
 * @returns version, engine, runtime
 * @example
 * ```ts
 * import { workerInfo } from "./work_item.ts";
 * if (workerInfo("wasm").engine !== "wasm") throw new Error();
 * ```
 */
export function workerInfo(engine: string): WorkerInfo {
  return { version: VERSION, engine, runtime: `deno ${Deno.version.deno}` };
}
