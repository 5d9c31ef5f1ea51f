/**
 * A dynamic worker pool on NATS JetStream: a coordinator publishes a plan's work orders on a
 * work-queue stream and collects one result per item; any number of workers on any machine pull,
 * recompute, publish and ack. A worker that dies mid-item stops its heartbeats and the item is
 * redelivered after the ack wait. Only nats-server 2.9 features are used.
 *
 * @example
 * ```ts ignore
 * import { connectNats, servePlan } from "./mod.ts";
 * const link = await connectNats("127.0.0.1:4222", "bitaudit-coordinator");
 * const { results } = await servePlan(link, {
 *   plan, planDigest, queue, timeoutMs: 3_600_000, version: VERSION, open,
 * });
 * ```
 * @module
 */
export {
  RESULTS_STREAM,
  resultSubject,
  WORK_STREAM,
  WORKERS_CONSUMER,
  workSubject,
} from "./subjects.ts";
export type { QueueSettings } from "./ensure_streams.ts";
export { connectNats, type NatsAccess, type NatsLink } from "./connect_nats.ts";
export { type ServedResults, type ServeOptions, servePlan } from "./serve_plan.ts";
export { runWorker, type WorkerEvent, type WorkerOptions } from "./run_worker.ts";
