/**
 * Costing an audit before it runs: the products of every planned record (the cost model of
 * `recordProducts`), and per workload kind the engine rate measured on a pilot (the results of a
 * small shard run on the machines that will do the work), give the predicted CPU time.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import type { ClaimLog } from "../claims/mod.ts";
import type { AuditPlan } from "./audit_plan.ts";
import type { ItemResult } from "./item_result.ts";
import { recordProducts } from "./record_products.ts";

/** The estimate for one workload kind. */
export interface KindEstimate {
  /** The workload kind (a claim kind of the log). */
  readonly kind: string;
  /** Planned items of this kind. */
  readonly items: number;
  /** Their products (null when the kind has no cost model). */
  readonly products: number | null;
  /** Pilot items of this kind that were recomputed. */
  readonly pilotItems: number;
  /** Measured products per CPU second (wall time x engine threads), null without a pilot. */
  readonly productsPerCpuSecond: number | null;
  /** Predicted CPU seconds of all planned items of this kind, null when unknown. */
  readonly cpuSeconds: number | null;
}

/** An audit's cost estimate. */
export interface AuditEstimate {
  /** One estimate per workload kind of the plan. */
  readonly kinds: readonly KindEstimate[];
  /** Predicted CPU hours of the kinds that have a prediction. */
  readonly cpuHours: number;
  /** Planned items of kinds without a prediction (no cost model or no pilot of that kind). */
  readonly unpredicted: number;
}

/**
 * Estimates an audit's CPU time.
 *
 * @param plan the plan
 * @param options its `log`, and the `pilot` item results (any items of the plan; an item given
 *   more than once, as when a results file is named twice, is counted once: its first recomputed
 *   result)
 * @returns per-kind products, measured rates and predicted CPU seconds, and the total
 * @throws {InputError} `ESTIMATE_FOREIGN` for a pilot result of another plan or record
 * @example
 * ```ts ignore
 * const e = estimateAudit(plan, { log, pilot: await readResultsFile("results-0.jsonl") });
 * ```
 */
export function estimateAudit(
  plan: AuditPlan,
  options: { log: ClaimLog; pilot: readonly ItemResult[] },
): AuditEstimate {
  const byItem = new Map(plan.items.map((it) => [it.item, it]));
  const acc = new Map<
    string,
    { items: number; products: number | null; pp: number; ms: number; n: number }
  >();
  const of = (kind: string) => {
    let a = acc.get(kind);
    if (a === undefined) acc.set(kind, a = { items: 0, products: 0, pp: 0, ms: 0, n: 0 });
    return a;
  };
  const products = (index: number) =>
    recordProducts(options.log.records[index]!.predicate.workload);
  for (const it of plan.items) {
    const a = of(it.kind);
    const p = products(it.index);
    a.items++;
    a.products = p === null || a.products === null ? null : a.products + p;
  }
  const counted = new Set<string>();
  for (const r of options.pilot) {
    const it = byItem.get(r.item);
    if (it === undefined || r.result.index !== it.index) {
      throw new InputError(
        "ESTIMATE_FOREIGN",
        "Cannot use a pilot result: it is not an item of this plan",
      );
    }
    const p = products(it.index);
    if (p === null || r.result.recomputed === null) continue; // nothing was recomputed: no rate
    if (counted.has(r.item)) continue; // a second result of an item: its products once
    counted.add(r.item);
    const a = of(it.kind);
    a.pp += p;
    a.ms += r.timing.ms * r.timing.threads;
    a.n++;
  }
  const kinds = [...acc].sort(([x], [y]) => x < y ? -1 : 1).map(([kind, a]) => {
    const rate = a.n > 0 && a.ms > 0 ? a.pp / (a.ms / 1000) : null;
    const cpuSeconds = rate !== null && a.products !== null ? a.products / rate : null;
    return {
      kind,
      items: a.items,
      products: a.products,
      pilotItems: a.n,
      productsPerCpuSecond: rate,
      cpuSeconds,
    };
  });
  return {
    kinds,
    cpuHours: kinds.reduce((s, k) => s + (k.cpuSeconds ?? 0), 0) / 3600,
    unpredicted: kinds.reduce((s, k) => s + (k.cpuSeconds === null ? k.items : 0), 0),
  };
}
