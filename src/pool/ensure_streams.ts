/**
 * Creates (or reuses) the streams and the workers' consumer on the NATS server.
 *
 * @module
 */
import {
  AckPolicy,
  DiscardPolicy,
  JetStreamApiError,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
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
 * What the streams may hold, so that no publisher (a worker gone wrong, or any client the server
 * lets publish) fills the server's disk: a message is at most 1.0625 MiB (a signed item result is
 * at most 1 MiB, a work order far less; the rest is room for headers), a stream at most 4 GiB.
 * The results stream drops its oldest messages when full (results of audits long merged), the
 * work stream refuses new orders (a queued order of a running audit is never dropped).
 */
export const STREAM_LIMITS: Readonly<{ maxMsgBytes: number; maxStreamBytes: number }> = Object
  .freeze({ maxMsgBytes: 1024 * 1024 + 64 * 1024, maxStreamBytes: 4 * 1024 ** 3 });

/**
 * Makes sure the work stream, the results stream and the workers' consumer exist, with the
 * given ack wait (an existing consumer is updated to it) and the stream limits of
 * {@link STREAM_LIMITS} (an existing stream without them gets them).
 *
 * @param jsm JetStream manager
 * @param settings ack wait and delivery limit
 * @example
 * ```ts ignore
 * await ensureStreams(await jetstreamManager(nc), { ackWaitMs: 30_000, maxDeliver: 5 });
 * ```
 */
export async function ensureStreams(jsm: JetStreamManager, settings: QueueSettings): Promise<void> {
  const limits = {
    max_msg_size: STREAM_LIMITS.maxMsgBytes,
    max_bytes: STREAM_LIMITS.maxStreamBytes,
  };
  await _stream(jsm, {
    name: WORK_STREAM,
    subjects: ["bitaudit.work.>"],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    ...limits,
    discard: DiscardPolicy.New,
  });
  await _stream(jsm, {
    name: RESULTS_STREAM,
    subjects: ["bitaudit.results.>"],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: 7 * 24 * 3600 * 1e9, // nanoseconds: results are kept a week
    ...limits,
    discard: DiscardPolicy.Old,
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
  config: Partial<StreamConfig> & { name: string },
): Promise<void> {
  let found: StreamConfig;
  try {
    found = (await jsm.streams.info(config.name)).config;
  } catch (e) {
    if (!_notFound(e)) throw e;
    await jsm.streams.add(config);
    return;
  }
  // A stream made before the limits (or without them) gets them; other settings stay its own.
  const within = (have: number | undefined, cap: number) =>
    have !== undefined && have > 0 &&
    have <= cap;
  if (
    !within(found.max_msg_size, STREAM_LIMITS.maxMsgBytes) ||
    !within(found.max_bytes, STREAM_LIMITS.maxStreamBytes)
  ) {
    await jsm.streams.update(config.name, {
      max_msg_size: STREAM_LIMITS.maxMsgBytes,
      max_bytes: STREAM_LIMITS.maxStreamBytes,
      discard: config.discard!,
    });
  }
}

function _notFound(e: unknown): boolean {
  return e instanceof JetStreamApiError && e.status === 404;
}
