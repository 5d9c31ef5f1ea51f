/**
 * Whether a plan item says of its record what the log's record says: the item digest binds only
 * the index and the record's digest, so the item's `kind` and `claimed` are checked against the
 * record itself before a worker or an audit relies on them.
 *
 * @module
 */
import type { ClaimLog } from "../claims/mod.ts";
import type { PlanItem } from "./audit_plan.ts";

/**
 * Why an item does not describe its log record, or `null` when it does (the record digest is
 * compared first; then the workload kind and the claimed fingerprint the plan copied).
 *
 * @param item the plan item
 * @param log the claim log the plan is said to come from
 * @returns the reason, in words, or `null`
 * @example
 * ```ts ignore
 * const why = planItemMismatch(plan.items[0], log);
 * ```
 */
export function planItemMismatch(item: PlanItem, log: ClaimLog): string | null {
  const rec = log.records[item.index];
  if (rec === undefined || log.digests[item.index] !== item.record) {
    return `record ${item.index} has another digest`;
  }
  const p = rec.predicate;
  if (p.workload.kind !== item.kind) {
    return `record ${item.index} is a ${p.workload.kind} record, the plan says ${item.kind}`;
  }
  if (p.fingerprint.sha256 !== item.claimed) {
    return `record ${item.index} claims another fingerprint than the plan copied`;
  }
  return null;
}
