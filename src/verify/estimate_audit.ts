/**
 * Costing an audit before it runs: the products of every planned record (the count its
 * recomputation holds to the budget: `predictPlanProducts`), and per workload kind the engine
 * rate measured on a pilot (the results of a small shard run on the machines that will do the
 * work), give the predicted CPU time.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import type { AuditPlan } from "./audit_plan.ts";
import type { ItemResult } from "./item_result.ts";
import type { PlanProducts } from "./predict_record_products.ts";

/** The estimate for one workload kind. */
export interface KindEstimate {
  /** The workload kind (a claim kind of the log). */
  readonly kind: string;
  /** Planned items of this kind. */
  readonly items: number;
  /**
   * Products of those to be recomputed (null when one of them has no prediction); items over the
   * budget are not recomputed and count none.
   */
  readonly products: number | null;
  /** Planned items of this kind predicted over the plan's budget (NOT_VERIFIED, not computed). */
  readonly overBudget: number;
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
  /** The plan's budget a record (`productBudget`). */
  readonly budget: number;
}

/**
 * Estimates an audit's CPU time.
 *
 * @param plan the plan
 * @param options `products`: the plan's predicted products (`predictPlanProducts`), and the
 *   `pilot` item results (any items of the plan; an item given more than once, as when a results
 *   file is named twice, is counted once: its first recomputed result)
 * @returns per-kind products, measured rates and predicted CPU seconds, and the total
 * @throws {InputError} `ESTIMATE_FOREIGN` for a pilot result of another plan or record
 * @throws {RangeError} when `products` does not hold one prediction per plan item
 * @example
 * ```ts ignore
 * const products = await predictPlanProducts(blobs, { plan, log });
 * const e = estimateAudit(plan, { products, pilot: await readResultsFile("results-0.jsonl") });
 * ```
 */
export function estimateAudit(
  plan: AuditPlan,
  options: { products: PlanProducts; pilot: readonly ItemResult[] },
): AuditEstimate {
  const { budget, items: predicted } = options.products;
  if (predicted.length !== plan.items.length) {
    throw new RangeError(
      `Cannot estimate: ${predicted.length} predictions for ${plan.items.length} plan items`,
    );
  }
  const byItem = new Map(plan.items.map((it, j) => [it.item, { it, j }]));
  const acc = new Map<
    string,
    { items: number; products: number | null; over: number; pp: number; ms: number; n: number }
  >();
  const of = (kind: string) => {
    let a = acc.get(kind);
    if (a === undefined) {
      acc.set(kind, a = { items: 0, products: 0, over: 0, pp: 0, ms: 0, n: 0 });
    }
    return a;
  };
  plan.items.forEach((it, j) => {
    const a = of(it.kind);
    const p = predicted[j]!;
    a.items++;
    if (p !== null && p > budget) a.over++; // refused before any product: no time
    else a.products = p === null || a.products === null ? null : a.products + p;
  });
  const counted = new Set<string>();
  for (const r of options.pilot) {
    const at = byItem.get(r.item);
    if (at === undefined || r.result.index !== at.it.index) {
      throw new InputError(
        "ESTIMATE_FOREIGN",
        "Cannot use a pilot result: it is not an item of this plan",
      );
    }
    const p = predicted[at.j]!;
    if (p === null || r.result.recomputed === null) continue; // nothing was recomputed: no rate
    if (counted.has(r.item)) continue; // a second result of an item: its products once
    counted.add(r.item);
    const a = of(at.it.kind);
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
      overBudget: a.over,
      pilotItems: a.n,
      productsPerCpuSecond: rate,
      cpuSeconds,
    };
  });
  return {
    kinds,
    cpuHours: kinds.reduce((s, k) => s + (k.cpuSeconds ?? 0), 0) / 3600,
    // Items over the budget cost nothing, so they are predicted whatever their kind's pilot.
    unpredicted: kinds.reduce(
      (s, k) => s + (k.cpuSeconds === null ? k.items - k.overBudget : 0),
      0,
    ),
    budget,
  };
}
