/**
 * Field shapes shared by the documents an audit exchanges (plans, work orders).
 *
 * @module
 */
import type { Shape } from "./_exact_object.ts";

/** A SHA-256 digest in lowercase hex. */
export const HEX64 = /^[0-9a-f]{64}$/;

/** A plan item (see `PlanItem`). */
export const PLAN_ITEM_SHAPE: Shape = {
  item: HEX64,
  index: "count",
  record: HEX64,
  kind: /^[a-z][a-z0-9_]{0,63}$/,
  claimed: HEX64,
};
