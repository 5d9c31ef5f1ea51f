/**
 * Deterministic assignment of plan items to shards: item j (in selection order) belongs to shard
 * j mod n. Every item is in exactly one shard, shards differ in size by at most one item, and the
 * assignment depends only on the plan and n, so any batch engine can rerun any shard.
 *
 * @module
 */
import type { AuditPlan, PlanItem } from "./audit_plan.ts";

/** A shard: index i of n. */
export interface Shard {
  /** 0-based shard index, below `count`. */
  readonly index: number;
  /** Number of shards (>= 1). */
  readonly count: number;
}

/**
 * The items of one shard.
 *
 * @param plan the plan
 * @param shard index and count
 * @returns the shard's items, in selection order
 * @throws {RangeError} when the shard is not `0 <= index < count`
 * @example
 * ```ts
 * import { shardItems } from "./shard_items.ts";
 * const items = [0, 1, 2, 3, 4].map((i) => ({ item: `${i}`, index: i, record: "", kind: "gemm", claimed: "" }));
 * if (shardItems({ items }, { index: 1, count: 2 }).map((x) => x.index).join() !== "1,3") throw new Error();
 * ```
 */
export function shardItems(plan: Pick<AuditPlan, "items">, shard: Shard): readonly PlanItem[] {
  const { index, count } = shard;
  const ok = Number.isSafeInteger(count) && Number.isSafeInteger(index) && index >= 0;
  if (!ok || index >= count) {
    throw new RangeError(`Cannot select shard ${index}/${count}: expected 0 <= i < n`);
  }
  return plan.items.filter((_, j) => j % count === index);
}
