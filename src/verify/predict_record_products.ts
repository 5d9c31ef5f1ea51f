/**
 * An audit's cost before it runs: each sampled record's products as its recomputation will count
 * them against the budget (`recordProducts` for GEMMs and blocks; for a `model_forward` or
 * `sequence` record, `forwardProducts` or `replayProducts` over the config, and the serving
 * history, it commits to, read from the blob store within their kinds' limits), and the sample's
 * total.
 *
 * @module
 */
import { BLOB_MAX_BYTES, type BlobStore } from "../assets/mod.ts";
import {
  type ClaimLog,
  type ClaimPredicate,
  isModelForwardWorkload,
  isSequenceWorkload,
  parseServingHistory,
} from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import { type DecoderConfig, parseCheckpointJson, parseDecoderConfig } from "../model/mod.ts";
import type { AuditPlan } from "./audit_plan.ts";
import { forwardProducts, replayProducts } from "./decoder_record_products.ts";
import { productBudget, recordProducts } from "./record_products.ts";

/**
 * Products of one record's recomputation, or null where nothing predicts them: a kind without a
 * cost model, or a `model_forward` or `sequence` record whose config or history is missing,
 * over its limit, not its digest's, or unreadable (its recomputation says what that means for the
 * record, before computing anything).
 *
 * @param blobs the blob store the recomputation will read
 * @param workload the record's workload
 * @returns the product count, or null
 * @throws whatever the blob store throws besides its coded refusals (`InputError`)
 * @example
 * ```ts
 * import { predictRecordProducts } from "./predict_record_products.ts";
 * const blobs = { dir: "empty", get: () => Promise.resolve(null) };
 * const w = { kind: "gemm", m: 4, n: 256, k: 256 } as Parameters<typeof predictRecordProducts>[1];
 * if (await predictRecordProducts(blobs, w) !== 262144) throw new Error();
 * ```
 */
export async function predictRecordProducts(
  blobs: BlobStore,
  workload: ClaimPredicate["workload"],
): Promise<number | null> {
  const forward = isModelForwardWorkload(workload);
  if (!forward && !isSequenceWorkload(workload)) return recordProducts(workload);
  try {
    const c = await _config(blobs, workload.model.configSha256);
    if (c === null) return null;
    if (forward) return forwardProducts(c, workload.tokens.sequences.map((s) => s.length));
    const history = await blobs.get(workload.history.sha256, {
      maxBytes: BLOB_MAX_BYTES.history,
    });
    return history === null ? null : replayProducts(c, parseServingHistory(history));
  } catch (e) {
    if (e instanceof InputError) return null;
    throw e;
  }
}

/** The config a record commits to, parsed as its checkpoint opens it; null when missing. */
async function _config(blobs: BlobStore, digest: string): Promise<DecoderConfig | null> {
  const bytes = await blobs.get(digest, { maxBytes: BLOB_MAX_BYTES.config });
  return bytes === null ? null : parseDecoderConfig(parseCheckpointJson(bytes, "config.json"));
}

/** The predicted cost of a plan's items. */
export interface PlanProducts {
  /** Per plan item, in plan order: its products, or null where nothing predicts them. */
  readonly items: readonly (number | null)[];
  /** Sum over the predicted items within the budget (those over it are not recomputed). */
  readonly total: number;
  /** Items without a prediction. */
  readonly unpredicted: number;
  /** Items predicted over the budget (not recomputed: NOT_VERIFIED, unless a check FAILs them). */
  readonly overBudget: number;
  /** The budget a record (`productBudget`). */
  readonly budget: number;
}

/**
 * Predicts the products of every item of a plan (under the plan's budget).
 *
 * @param blobs the blob store the recomputation will read
 * @param target the plan and the log it samples (checked with `checkPlanLog`)
 * @returns per-item products and the totals
 * @example
 * ```ts ignore
 * const cost = await predictPlanProducts(blobs, { plan, log });
 * ```
 */
export async function predictPlanProducts(
  blobs: BlobStore,
  target: { plan: AuditPlan; log: ClaimLog },
): Promise<PlanProducts> {
  const budget = productBudget(target.plan.maxRecordProducts);
  const items: (number | null)[] = [];
  let total = 0;
  let overBudget = 0;
  for (const it of target.plan.items) {
    const p = await predictRecordProducts(blobs, target.log.records[it.index]!.predicate.workload);
    items.push(p);
    if (p !== null && p > budget) overBudget++;
    else if (p !== null) total += p;
  }
  return {
    items,
    total,
    unpredicted: items.filter((p) => p === null).length,
    overBudget,
    budget,
  };
}
