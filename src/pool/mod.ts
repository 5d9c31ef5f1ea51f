/**
 * A dynamic worker pool on NATS JetStream: a coordinator publishes a plan's work orders on a
 * work-queue stream and collects one result per item; any number of workers on any machine pull,
 * recompute, publish and ack. A worker that dies mid-item stops its heartbeats and the item is
 * redelivered after the ack wait. Only nats-server 2.9 features are used.
 *
 * @example
 * ```ts ignore
 * import { connect } from "@nats-io/transport-node";
 * import { runWorker, servePlan } from "./mod.ts";
 * const nc = await connect({ servers: "127.0.0.1:4222" });
 * const results = await servePlan(nc, { plan, planDigest, queue, timeoutMs: 3_600_000 });
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
export { ensureStreams, type QueueSettings } from "./ensure_streams.ts";
export { type ServeOptions, servePlan } from "./serve_plan.ts";
export { runWorker, type WorkerEvent, type WorkerOptions } from "./run_worker.ts";
