/**
 * Field shapes shared by the documents an audit exchanges (plans, work orders, item results), and
 * the reader of their common part, a plan item.
 *
 * @module
 */
import { exactObject, type Shape } from "./_exact_object.ts";
import type { PlanItem } from "./audit_plan.ts";

/** A SHA-256 digest in lowercase hex. */
export const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The id of one `audit serve`: a random UUID in lowercase hex (`crypto.randomUUID()`), carried by
 * its work orders and echoed in the results its workers sign.
 */
export const SERVE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A plan item (see `PlanItem`). */
export const PLAN_ITEM_SHAPE: Shape = {
  item: HEX64,
  index: "count",
  record: HEX64,
  kind: /^[a-z][a-z0-9_]{0,63}$/,
  claimed: HEX64,
};

/**
 * Reads a plan item into a fresh typed copy.
 *
 * @param value the parsed JSON value
 * @param options `where` (path for messages) and `bad` (raises the caller's coded error)
 * @returns the item
 * @example
 * ```ts
 * import { readPlanItem } from "./_shapes.ts";
 * const bad = (why: string): never => { throw new Error(why); };
 * const h = "11".repeat(32);
 * const it = readPlanItem({ item: h, index: 2, record: h, kind: "gemm", claimed: h }, { where: "i", bad });
 * if (it.index !== 2) throw new Error();
 * ```
 */
export function readPlanItem(
  value: unknown,
  options: { where: string; bad: (why: string) => never },
): PlanItem {
  const x = exactObject(value, { where: options.where, shape: PLAN_ITEM_SHAPE, bad: options.bad });
  return {
    item: x.item as string,
    index: x.index as number,
    record: x.record as string,
    kind: x.kind as string,
    claimed: x.claimed as string,
  };
}
