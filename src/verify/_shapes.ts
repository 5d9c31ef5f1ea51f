/**
 * Field shapes shared by the documents an audit exchanges (plans, work orders, item results), and
 * the reader of their common part, a plan item.
 *
 * @module
 */
import { exactObject, type Shape } from "./_exact_object.ts";
import type { PlanItem } from "./audit_plan.ts";
import { MAX_PRODUCT_BUDGET } from "./record_products.ts";

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

/**
 * Reads the budget a record a plan, a work order or an item result states (its shape read it as a
 * `count`): a whole number in 1..`MAX_PRODUCT_BUDGET`, or none (the default).
 *
 * @param value the field's value, shape-checked (`count`), or undefined where it is absent
 * @param options `where` (the field's path for messages) and `bad` (raises the caller's coded error)
 * @returns `{ maxRecordProducts }`, or `{}` where the document states none
 * @example
 * ```ts
 * import { readBudget } from "./_shapes.ts";
 * const bad = (why: string): never => { throw new Error(why); };
 * if (readBudget(5, { where: "plan.maxRecordProducts", bad }).maxRecordProducts !== 5) {
 *   throw new Error();
 * }
 * if ("maxRecordProducts" in readBudget(undefined, { where: "x", bad })) throw new Error();
 * ```
 */
export function readBudget(
  value: unknown,
  options: { where: string; bad: (why: string) => never },
): { maxRecordProducts?: number } {
  if (value === undefined) return {};
  if (value === 0) options.bad(`'${options.where}' must be an integer in 1..${MAX_PRODUCT_BUDGET}`);
  return { maxRecordProducts: value as number };
}
