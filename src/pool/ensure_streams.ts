/**
 * Creates (or reuses) the streams and the workers' consumer on the NATS server.
 *
 * @module
 */
import {
  AckPolicy,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
} from "@nats-io/jetstream";
import { RESULTS_STREAM, WORK_STREAM, WORKERS_CONSUMER } from "./subjects.ts";

/** Queue settings. */
export interface QueueSettings {
  /** Milliseconds without an ack or heartbeat after which an item is redelivered. */
  readonly ackWaitMs: number;
  /** Deliveries of one item before it is given up (its item then has no result). */
  readonly maxDeliver: number;
}

/**
 * Makes sure the work stream, the results stream and the workers' consumer exist, with the
 * given ack wait (an existing consumer is updated to it).
 *
 * @param jsm JetStream manager
 * @param settings ack wait and delivery limit
 * @example
 * ```ts ignore
 * await ensureStreams(await jetstreamManager(nc), { ackWaitMs: 30_000, maxDeliver: 5 });
 * ```
 */
export async function ensureStreams(jsm: JetStreamManager, settings: QueueSettings): Promise<void> {
  await _stream(jsm, {
    name: WORK_STREAM,
    subjects: ["bitaudit.work.>"],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
  });
  await _stream(jsm, {
    name: RESULTS_STREAM,
    subjects: ["bitaudit.results.>"],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: 7 * 24 * 3600 * 1e9, // nanoseconds: results are kept a week
  });
  const config = {
    durable_name: WORKERS_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: settings.ackWaitMs * 1e6, // nanoseconds
    max_deliver: settings.maxDeliver,
    filter_subject: "bitaudit.work.>",
  };
  try {
    await jsm.consumers.info(WORK_STREAM, WORKERS_CONSUMER);
    await jsm.consumers.update(WORK_STREAM, WORKERS_CONSUMER, {
      ack_wait: config.ack_wait,
      max_deliver: config.max_deliver,
    });
  } catch (e) {
    if (!_notFound(e)) throw e;
    await jsm.consumers.add(WORK_STREAM, config);
  }
}

async function _stream(
  jsm: JetStreamManager,
  config: Parameters<JetStreamManager["streams"]["add"]>[0] & { name: string },
): Promise<void> {
  try {
    await jsm.streams.info(config.name);
  } catch (e) {
    if (!_notFound(e)) throw e;
    await jsm.streams.add(config);
  }
}

function _notFound(e: unknown): boolean {
  return e instanceof JetStreamApiError && e.status === 404;
}
