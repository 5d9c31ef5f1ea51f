/**
 * The coordinator of a worker pool: publishes a plan's work orders on the work-queue stream
 * (deduplicated by item digest, so serving a plan again publishes nothing twice within the
 * stream's duplicate window) and collects item results until every planned item has one or the
 * time is up. Redelivered items can give several results for one item: all are returned, and the
 * merge keeps one and requires the others to agree bit for bit.
 *
 * @module
 */
import type { NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import {
  type AuditPlan,
  encodeWorkOrder,
  type ItemResult,
  parseItemResult,
  workOrders,
} from "../verify/mod.ts";
import { ensureStreams, type QueueSettings } from "./ensure_streams.ts";
import { RESULTS_STREAM, resultSubject, WORK_STREAM, workSubject } from "./subjects.ts";

/** Options of {@link servePlan}. */
export interface ServeOptions {
  /** The plan. */
  readonly plan: AuditPlan;
  /** SHA-256 of the plan's bytes. */
  readonly planDigest: string;
  /** Ack wait and delivery limit of the workers' consumer. */
  readonly queue: QueueSettings;
  /** Milliseconds to wait for all results before merging what came (missing items then). */
  readonly timeoutMs: number;
  /** Called after each result with (items with a result, planned items). */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
}

/**
 * Serves a plan to the pool and collects its results.
 *
 * @param nc connection to the NATS server
 * @param options the plan and its digest, queue settings, timeout, progress callback
 * @returns every result received for the plan's subject, in arrival order
 * @throws {InputError} `RESULT_INVALID` for a message that is not a canonical item result
 * @example
 * ```ts ignore
 * const results = await servePlan(nc, { plan, planDigest, queue, timeoutMs: 3_600_000 });
 * ```
 */
export async function servePlan(
  nc: NatsConnection,
  options: ServeOptions,
): Promise<ItemResult[]> {
  const { plan, planDigest } = options;
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, options.queue);
  const js = jetstream(nc);
  const consumer = await js.consumers.get(RESULTS_STREAM, {
    filter_subjects: resultSubject(planDigest),
  });
  const messages = await consumer.consume();
  const timer = setTimeout(() => messages.stop(), options.timeoutMs);
  try {
    for (const order of workOrders(plan, planDigest)) {
      await js.publish(workSubject(planDigest), encodeWorkOrder(order), { msgID: order.item.item });
    }
    const planned = new Set(plan.items.map((it) => it.item));
    const seen = new Set<string>();
    const results: ItemResult[] = [];
    if (planned.size === 0) return results;
    for await (const m of messages) {
      const r = parseItemResult(m.string(), `${RESULTS_STREAM} #${m.seq}`);
      results.push(r);
      if (planned.has(r.item)) seen.add(r.item);
      options.onProgress?.(seen.size, planned.size);
      if (seen.size === planned.size) break;
    }
    return results;
  } finally {
    clearTimeout(timer);
    await messages.close();
    // Orders still queued (after a timeout) or being redelivered are no longer wanted.
    await jsm.streams.purge(WORK_STREAM, { filter: workSubject(planDigest) });
  }
}
