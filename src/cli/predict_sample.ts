/**
 * What a sample will cost, before any record is recomputed: each item's products as the budget
 * check counts them (`predictPlanProducts`), and the line `audit` says about them on stderr (also
 * without a terminal and under `--json`, where stdout keeps the verdict alone), so that an audit
 * that will run for hours says so before it starts.
 *
 * @module
 */
import type { BlobStore } from "../assets/mod.ts";
import { type ClaimLog, isModelForwardWorkload, isSequenceWorkload } from "../claims/mod.ts";
import { escapeJsonText } from "../escape_text.ts";
import {
  type AuditPlan,
  budgetText,
  type PlanProducts,
  predictPlanProducts,
} from "../verify/mod.ts";
import { blobsBeside, openBlobFolder } from "./work_context.ts";
import { countNoun } from "./count_noun.ts";

/**
 * Predicts a plan's products for `audit estimate`: a `--blobs` folder is checked as `audit` checks
 * it (it must be a folder) whether or not it is read; the default beside the log is opened (and
 * must exist) only where a sampled record's cost rests on a config or history it commits to.
 *
 * @param target the plan and its log
 * @param where the log's path and the `--blobs` folder, if given (default: beside the log)
 * @returns the predicted products
 * @throws {InputError} `INPUT_MISSING` when `--blobs` is not a folder, or a model record is
 *   sampled and the default folder is missing
 * @example
 * ```ts ignore
 * const products = await predictSample({ plan, log }, { logPath, blobs: opts.blobs });
 * ```
 */
export async function predictSample(
  target: { plan: AuditPlan; log: ClaimLog },
  where: { logPath: string; blobs?: string | undefined },
): Promise<PlanProducts> {
  const { plan, log } = target;
  const models = plan.items.some((it) => {
    const w = log.records[it.index]!.predicate.workload;
    return isModelForwardWorkload(w) || isSequenceWorkload(w);
  });
  // A folder the user named is theirs to have right, read or not (a typo is said, not ignored).
  const blobs: BlobStore = models || where.blobs !== undefined
    ? await openBlobFolder(where.blobs ?? blobsBeside(where.logPath))
    : { dir: "(not read)", get: () => Promise.resolve(null) };
  return await predictPlanProducts(blobs, target);
}

/**
 * Says a sample's predicted cost on stderr, once: the products of the records to be recomputed,
 * the budget a record, the largest record, and how many are over the budget or have no
 * prediction.
 *
 * @param cost the prediction (`predictPlanProducts`)
 * @param options `plan` (for the records' indices); `json`: one JSON line instead of text; `say`:
 *   where the text line goes instead of stderr (the demo indents it among its own lines)
 * @example
 * ```ts ignore
 * sayPredictedCost(await predictPlanProducts(ctx.blobs, { plan, log }), { plan, json: false });
 * ```
 */
export function sayPredictedCost(
  cost: PlanProducts,
  options: { plan: AuditPlan; json: boolean; say?: ((line: string) => void) | undefined },
): void {
  const records = cost.items.length;
  let top: { index: number; products: number } | null = null;
  for (const [j, p] of cost.items.entries()) {
    if (p !== null && p <= cost.budget && (top === null || p > top.products)) {
      top = { index: options.plan.items[j]!.index, products: p };
    }
  }
  if (options.json) {
    console.error(escapeJsonText(JSON.stringify({
      predictedProducts: cost.total,
      records,
      budget: cost.budget,
      overBudget: cost.overBudget,
      unpredicted: cost.unpredicted,
      largest: top,
    })));
    return;
  }
  const within = records - cost.overBudget - cost.unpredicted;
  const total = cost.total === 0 ? "0" : cost.total.toPrecision(3);
  const parts = [
    `predicted cost: about ${total} products to recompute the ${within} of ` +
    `${countNoun(records, "sampled record")} within the budget of ${budgetText(cost.budget)} ` +
    "products a record" +
    (top === null ? "" : ` (the largest: record ${top.index}, ${top.products.toPrecision(3)})`),
  ];
  if (cost.overBudget > 0) {
    parts.push(`${cost.overBudget} over it (NOT_VERIFIED without recomputation)`);
  }
  if (cost.unpredicted > 0) {
    parts.push(
      `${cost.unpredicted} without a prediction (no cost model, or a config or history ` +
        "missing or unreadable)",
    );
  }
  (options.say ?? console.error)(parts.join("; "));
}
