/**
 * Creates (or reuses) the streams and the workers' consumer on the NATS server, with the settings
 * the pool relies on. Any client the server lets in can change a stream's settings (shrink its
 * message limit so that no result fits, point it at other subjects, make it keep one message) or
 * the consumer's: a coordinator therefore gives each stream, and the consumer, back its settings
 * whenever they differ, and says what it changed.
 *
 * @module
 */
import {
  AckPolicy,
  type ConsumerConfig,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiError,
  type JetStreamManager,
  ReplayPolicy,
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

/** Nanoseconds in a second (the server states durations in nanoseconds). */
const NS = 1e9;

/** A stream's settings as the pool relies on them. */
type Settings = Pick<
  StreamConfig,
  | "subjects"
  | "retention"
  | "storage"
  | "sealed"
  | "max_msg_size"
  | "max_bytes"
  | "max_msgs"
  | "max_msgs_per_subject"
  | "max_age"
  | "discard"
  | "duplicate_window"
  | "allow_rollup_hdrs"
  | "no_ack"
  | "sources"
  | "deny_purge"
  | "deny_delete"
>;

/**
 * Settings the server keeps for a stream's life (nats-server 2.9 refuses to change them, or to
 * cancel a purge or delete ban): a stream that differs in one is refused, not changed. A stream
 * that refuses purges would keep a failed serve's orders queued for workers to compute later.
 */
const FIXED = ["retention", "storage", "sealed", "deny_purge", "deny_delete"] as const;

/**
 * What the server means by a setting its answer leaves out. The pool's streams take these but for
 * the size limits and each stream's subjects, retention, age limit and discard policy; changed
 * settings are said in this order.
 */
const UNSTATED: Settings = {
  subjects: [],
  retention: RetentionPolicy.Limits,
  storage: StorageType.File,
  sealed: false,
  max_msg_size: -1,
  max_bytes: -1,
  max_msgs: -1,
  max_msgs_per_subject: -1,
  duplicate_window: 120 * NS,
  allow_rollup_hdrs: false,
  no_ack: false,
  sources: [],
  deny_purge: false,
  deny_delete: false,
  max_age: 0,
  discard: DiscardPolicy.Old,
};

/**
 * Makes sure the work stream, the results stream and the workers' consumer exist, with the
 * given ack wait (an existing consumer is updated to it) and each stream's own settings: its
 * subjects, the limits of {@link STREAM_LIMITS}, no count or age limit but the results' week, its
 * discard policy, a 2-minute duplicate window, no roll-up headers, acks and no sources. An
 * existing stream that differs in any of them (made by an older version, or changed since by any
 * client the server lets in) is given them back; one whose retention, storage, seal or purge and
 * delete bans differ (which the server never changes or cancels) is refused. The workers' consumer is made anew when it differs
 * from the pool's in anything but its ack wait and delivery limit (which each serve sets: two
 * serves may ask for different ones): a peer can make it pass over every order, deliver orders
 * without their bodies (which workers then refuse for good), refuse the workers' pulls or hand
 * out one order at a time.
 *
 * @param jsm JetStream manager
 * @param settings ack wait and delivery limit
 * @returns what it changed, one line per setting (`BITAUDIT_RESULTS max_msg_size: 200, now
 *   1114112`), empty when the streams and the consumer had their settings
 * @throws {Error} a stream whose retention, storage, seal or bans are not the pool's (naming it and what
 *   to do), or what the server answers when it refuses an operation
 * @example
 * ```ts ignore
 * await ensureStreams(await jetstreamManager(nc), { ackWaitMs: 30_000, maxDeliver: 5 });
 * ```
 */
export async function ensureStreams(
  jsm: JetStreamManager,
  settings: QueueSettings,
): Promise<string[]> {
  // Both streams: the server's defaults but for the size limits, then each stream's own.
  const both = {
    ...UNSTATED,
    max_msg_size: STREAM_LIMITS.maxMsgBytes,
    max_bytes: STREAM_LIMITS.maxStreamBytes,
  };
  const changed = [
    ...await _stream(jsm, WORK_STREAM, {
      ...both,
      subjects: ["bitaudit.work.>"],
      retention: RetentionPolicy.Workqueue,
      max_age: 0,
      discard: DiscardPolicy.New,
    }),
    ...await _stream(jsm, RESULTS_STREAM, {
      ...both,
      subjects: ["bitaudit.results.>"],
      retention: RetentionPolicy.Limits,
      max_age: 7 * 24 * 3600 * NS, // results are kept a week
      discard: DiscardPolicy.Old,
    }),
  ];
  return [...changed, ...await _workers(jsm, settings)];
}

/**
 * The workers' consumer's settings the pool relies on, beyond its ack wait and delivery limit,
 * with what the server means when its answer leaves one out (a consumer added with only the
 * pool's settings states these).
 */
const CONSUMER_UNSTATED: Pick<
  ConsumerConfig,
  | "filter_subject"
  | "filter_subjects"
  | "deliver_subject"
  | "ack_policy"
  | "deliver_policy"
  | "replay_policy"
  | "headers_only"
  | "max_waiting"
  | "max_ack_pending"
  | "max_expires"
  | "max_batch"
  | "max_bytes"
  | "inactive_threshold"
  | "backoff"
> = {
  filter_subject: "",
  filter_subjects: [],
  deliver_subject: "",
  ack_policy: AckPolicy.Explicit,
  deliver_policy: DeliverPolicy.All,
  replay_policy: ReplayPolicy.Instant,
  headers_only: false,
  max_waiting: 512,
  // Orders out at once, over all workers: a peer's 1 would have the pool work one at a time.
  max_ack_pending: 1000,
  max_expires: 0,
  max_batch: 0,
  max_bytes: 0,
  inactive_threshold: 0,
  backoff: [],
};

/**
 * Creates the workers' consumer, sets an existing one's ack wait and delivery limit, or makes it
 * anew when it differs in another setting (the orders stay in the work stream: one being worked
 * on is delivered again, and its worker's ack is refused); returns what differed.
 */
async function _workers(jsm: JetStreamManager, settings: QueueSettings): Promise<string[]> {
  const config = {
    durable_name: WORKERS_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    ack_wait: settings.ackWaitMs * 1e6, // nanoseconds
    max_deliver: settings.maxDeliver,
    filter_subject: "bitaudit.work.>",
  };
  let found: ConsumerConfig;
  try {
    found = (await jsm.consumers.info(WORK_STREAM, WORKERS_CONSUMER)).config;
  } catch (e) {
    if (!_notFound(e)) throw e;
    await jsm.consumers.add(WORK_STREAM, config);
    return [];
  }
  type K = keyof typeof CONSUMER_UNSTATED;
  const text = (from: Partial<ConsumerConfig>, k: K) =>
    JSON.stringify(from[k] ?? CONSUMER_UNSTATED[k]);
  const differ = (Object.keys(CONSUMER_UNSTATED) as K[]).filter((k) =>
    text(found, k) !== text(config, k)
  );
  if (differ.length === 0) {
    await jsm.consumers.update(WORK_STREAM, WORKERS_CONSUMER, {
      ack_wait: config.ack_wait,
      max_deliver: config.max_deliver,
    });
    return [];
  }
  // Some of these the server never changes (its policies, a push consumer's subject): made anew.
  await jsm.consumers.delete(WORK_STREAM, WORKERS_CONSUMER).catch((e) => {
    if (!_notFound(e)) throw e;
  });
  await jsm.consumers.add(WORK_STREAM, config);
  return differ.map((k) =>
    `${WORKERS_CONSUMER} ${k}: ${text(found, k)}, now ${text(config, k)} (consumer made anew)`
  );
}

/** Creates the stream, or gives an existing one the settings it lacks; returns what changed. */
async function _stream(jsm: JetStreamManager, name: string, want: Settings): Promise<string[]> {
  let found: StreamConfig;
  try {
    found = (await jsm.streams.info(name)).config;
  } catch (e) {
    if (!_notFound(e)) throw e;
    await jsm.streams.add({ name, ...want });
    return [];
  }
  const have = (k: keyof Settings) => found[k] ?? UNSTATED[k];
  const same = (k: keyof Settings) => JSON.stringify(have(k)) === JSON.stringify(want[k]);
  const fixed = FIXED.find((k) => !same(k));
  if (fixed !== undefined) {
    throw new Error(
      `the stream ${name} has ${fixed} ${JSON.stringify(have(fixed))}, not ` +
        `${JSON.stringify(want[fixed])}, which the server does not change: a client made it ` +
        `so; delete the stream (nats stream rm ${name}) and serve again`,
    );
  }
  const differ = (Object.keys(want) as (keyof Settings)[]).filter((k) => !same(k));
  if (differ.length === 0) return [];
  await jsm.streams.update(name, want);
  return differ.map((k) =>
    `${name} ${k}: ${JSON.stringify(have(k))}, now ${JSON.stringify(want[k])}`
  );
}

function _notFound(e: unknown): boolean {
  return e instanceof JetStreamApiError && e.status === 404;
}
