/**
 * The coordinator of a worker pool: publishes a plan's work orders on the work-queue stream and
 * collects worker-signed item results until every planned item has one or the time is up. Each
 * serve has its own id (a random UUID), which its work orders carry and its workers sign into
 * their results: a result is thus bound to the serve that ordered it. With `fresh`, only results
 * bearing this serve's id are merged: an earlier serve's result, however validly signed, is
 * skipped (those stored before this serve began are counted, not downloaded: the reader starts
 * after them; one arriving after is named: a replay of stored bytes, which anyone reaching the
 * server can send, or an earlier serve's worker answering late), so that no stored result can
 * stop a serve meant to leave them behind; without it, earlier serves' results of the plan are
 * read too (a serve resumes where another stopped), a batch of bounded bytes at a time. Each
 * order goes under a message id of its own, 128 random bits: the server drops a message whose id
 * it saw within its duplicate window, so an id others could derive (from the serve's id and the
 * item, which the first order and the public log give away) would let a peer that only publishes
 * have the orders dropped, and ids shared between serves would let a plan served again soon after
 * (a retry after a timeout or an error) publish nothing; an order the server reports as a
 * duplicate stops the serve (`NATS_SERVER`, naming the pre-emption), never counted as published.
 * A stream operation the server refuses (a peer can delete or change the streams) is the server's
 * failure (`NATS_SERVER`), and the streams' and the workers' consumer's settings are given back
 * at the start of each serve.
 * Anyone who reaches the server can publish on the results subject: a
 * message no accepted worker signed, and an accepted worker's result for an item the plan does not
 * hold or computed under another budget a record than the plan's (a worker misled by a forged
 * order: the budget a worker applies comes in the order, and it signs it into its result), are
 * skipped and reported, never merged, and the item waits for a result under the plan's budget (or
 * is missing at the timeout); so are an
 * accepted worker's results this version cannot read (another version's format, a result that
 * contradicts itself) and results computed by another verifier version: the merge would refuse
 * them, and signed bytes can be replayed by anyone who reaches the server, so none of them may
 * stop a serve. Such a result stored before this serve began is a leftover of an earlier serve
 * (this serve's orders bring a current one); one stored after names, in the report, a worker of
 * another version in the pool (which acked the order it answered: the item is then missing at the
 * timeout) or a replay. Messages are told apart by their stream sequence, so no clock is
 * compared. Redelivered items, and replays of a signed result, can give several results
 * for one item: one is kept per item (the lowest worker key's, as the merge keeps), each later one
 * is compared with it on arrival and dropped (counted) when it agrees bit for bit, and a
 * disagreeing one stops the collection as it stops the merge (with `fresh`, both then answer this
 * serve's orders: a disagreement among this serve's workers, not a replay). What is held thus
 * stays bounded by the plan's items, however many messages arrive.
 *
 * @module
 */
import { type Consumer, jetstream, jetstreamManager } from "@nats-io/jetstream";
import { bytesToHex } from "@noble/hashes/utils.js";
import { InputError } from "../errors.ts";
import {
  type AttributedResult,
  type AuditPlan,
  type Build,
  describeBuild,
  encodeWorkOrder,
  keptDuplicate,
  mergeAdmission,
  resultBuild,
  sameBuild,
  workOrders,
} from "../verify/mod.ts";
import { ensureStreams, type QueueSettings } from "./ensure_streams.ts";
import { natsConnection, type NatsLink } from "./connect_nats.ts";
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
  /** The merging build (version and manifest digest): a result of another build is skipped. */
  readonly build: Build;
  /**
   * Opens one result message (its text and a name for messages): `{skip}` with the reason for a
   * message no accepted worker signed, the result when an accepted worker's signature verifies
   * and the result parses, or an {InputError} for an accepted worker's result that does not
   * (skipped and reported as well).
   */
  readonly open: (line: string, where: string) => Promise<AttributedResult | { skip: string }>;
  /**
   * Called for each setting of a stream or of the workers' consumer the serve gave back (another
   * client, or an older version, had changed it), with a line naming the stream or consumer, the
   * setting, what it was and what it is now.
   */
  readonly onStreamReset?: ((line: string) => void) | undefined;
  /** Called for each message skipped (its name and why). */
  readonly onSkipped?: ((where: string, why: string) => void) | undefined;
  /**
   * Called once the work orders are published, with their number and this serve's id (which the
   * results answering them carry), before results are awaited.
   */
  readonly onPublished?: ((items: number, serve: string) => void) | undefined;
  /** Called after each result with (items with a result, planned items). */
  readonly onProgress?: ((done: number, total: number) => void) | undefined;
  /**
   * Merge only the results of this serve's orders (`audit serve --fresh`): a result an earlier
   * serve left on the server (one that a re-verification refused, say) is skipped: not
   * downloaded, and counted in {@link ServedResults.stale}, when stored before this serve began,
   * named in `onSkipped` when it arrives after (replayed, or an earlier serve's worker answering
   * late).
   */
  readonly fresh?: boolean | undefined;
}

/** What {@link servePlan} collected. */
export interface ServedResults {
  /** One result per item that has one (in the order the items first got one), with its worker. */
  readonly results: AttributedResult[];
  /** Results dropped because they repeated an item's kept result bit for bit. */
  readonly duplicates: number;
  /** Results stored before this serve began and skipped unread (`fresh`; 0 otherwise). */
  readonly stale: number;
}

/**
 * Serves a plan to the pool and collects its results.
 *
 * @param link connection to the NATS server (from `connectNats`)
 * @param options the plan and its digest, queue settings, timeout, the merging version,
 *   publication and progress callbacks
 * @returns one result per item that got one, with its worker, and the agreeing duplicates dropped
 * @throws what `open` throws other than an {InputError} (a fault, not a message's); {InputError}
 *   `MERGE_CONFLICT` when two results of one item disagree, `NATS_SERVER` when the server has no
 *   JetStream, refuses a stream operation (a stream of settings it never changes included),
 *   reports a work order as a duplicate (another client published under its id first), or the
 *   connection closes (the client gave up reconnecting) before every item has a result
 * @example
 * ```ts ignore
 * const { results } = await servePlan(link, {
 *   plan, planDigest, queue, timeoutMs: 3_600_000, build: ownBuild(store), open,
 * });
 * ```
 */
export async function servePlan(
  link: NatsLink,
  options: ServeOptions,
): Promise<ServedResults> {
  const { plan, planDigest, build } = options;
  const nc = natsConnection(link);
  let jsm: Awaited<ReturnType<typeof jetstreamManager>>;
  let reset: string[];
  try {
    jsm = await jetstreamManager(nc);
    reset = await ensureStreams(jsm, options.queue);
  } catch (e) {
    // A server started without JetStream (no `-js`), or one refusing the streams' settings.
    throw _server("set up the JetStream streams", e);
  }
  for (const line of reset) options.onStreamReset?.(line);
  const js = jetstream(nc);
  const purge = () => jsm.streams.purge(WORK_STREAM, { filter: workSubject(planDigest) });
  // This serve's id: its orders carry it, its workers sign it into their results.
  const serve = crypto.randomUUID();
  const subject = resultSubject(planDigest);
  let before: number;
  let stored: number;
  let consumer: Consumer;
  try {
    // The last result stored before this serve's orders exist: what follows answers them. Any
    // client the server lets in can delete or change the stream meanwhile: its refusal is the
    // server's failure, said as such.
    const { state } = await jsm.streams.info(RESULTS_STREAM, { subjects_filter: subject });
    before = state.last_seq;
    stored = state.subjects?.[subject] ?? 0;
    // A fresh serve reads from the first message after them: what was stored before answers no
    // order of this serve, and is not downloaded (a peer can store gigabytes there).
    consumer = await js.consumers.get(RESULTS_STREAM, {
      filter_subjects: subject,
      ...(options.fresh === true ? { opt_start_seq: before + 1 } : {}),
    });
  } catch (e) {
    throw _server("read the results stream", e);
  }
  try {
    // Published before the results are consumed (the stream keeps what arrives meanwhile): a
    // failed publish then leaves nothing open to wait on.
    for (const order of workOrders(plan, { planDigest, serve })) {
      const ack = await js.publish(workSubject(planDigest), encodeWorkOrder(order), {
        msgID: _orderId(),
      });
      if (ack.duplicate) throw new Error(_preempted(order.item.index));
    }
  } catch (e) {
    await purge().catch(() => {});
    await consumer.delete().catch(() => {}); // the server would drop it after 5 idle minutes
    throw _server("publish the work orders", e);
  }
  options.onPublished?.(plan.items.length, serve);
  // Results are asked for a batch of bounded bytes at a time: a batch of 100 messages of a
  // megabyte each (which anyone can store on the subject) is more than the server queues for one
  // client, and it would cut the connection off as a slow consumer again and again.
  const messages = await consumer.consume({ max_bytes: _batchBytes(nc.info?.max_payload) });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    messages.stop();
  }, options.timeoutMs);
  try {
    const planned = new Set(plan.items.map((it) => it.item));
    const admit = mergeAdmission(plan, { planDigest, build });
    // At most one result per planned item: a replayed or redelivered result adds nothing here.
    const kept = new Map<string, AttributedResult>();
    let duplicates = 0;
    // With `fresh`, the plan's results stored before this serve began: not read (the reader
    // starts after them), only counted.
    const stale = options.fresh === true ? stored : 0;
    if (planned.size === 0) return { results: [], duplicates, stale };
    for await (const m of _guarded(messages)) {
      const where = `${RESULTS_STREAM} #${m.seq}`;
      let r: AttributedResult | { skip: string };
      try {
        r = await options.open(m.string(), where);
      } catch (e) {
        // Signed by an accepted worker but not readable here (another version's format, or a
        // result contradicting itself): skipped, as a replay of such bytes by anyone could
        // otherwise stop every serve of the plan; the item waits for a result this version reads.
        if (!(e instanceof InputError)) throw e;
        r = { skip: `${e.message}: skipped, the item waits for a result this version reads` };
      }
      if ("skip" in r) {
        options.onSkipped?.(where, r.skip);
        continue;
      }
      const why = _unwanted(r, {
        planned,
        planDigest,
        build,
        leftover: m.seq <= before,
        serve: options.fresh === true ? serve : null,
      }) ?? _inadmissible(admit, r);
      if (why !== null) {
        options.onSkipped?.(where, why);
        continue;
      }
      const prior = kept.get(r.result.item);
      if (prior !== undefined) duplicates++;
      kept.set(r.result.item, keptDuplicate(prior, r));
      options.onProgress?.(kept.size, planned.size);
      if (kept.size === planned.size) break;
    }
    // The messages end at the timeout, when every item has a result, or when the client gives up
    // reconnecting: the last is the server's failure, not a verdict on the missing items.
    if (!timedOut && kept.size < planned.size) {
      throw _server(
        "collect the results",
        new Error(
          `the connection closed with ${kept.size} of ${planned.size} results collected (the ` +
            "server stayed unreachable); the results stored on it are read again by the next serve",
        ),
      );
    }
    return { results: [...kept.values()], duplicates, stale };
  } finally {
    clearTimeout(timer);
    await messages.close()?.catch(() => {});
    // Orders still queued (after a timeout) or being redelivered are no longer wanted.
    await purge().catch(() => {}); // best effort: the server may be gone
  }
}

/**
 * Why an accepted worker's result is not one this serve can merge, or null. A result of another
 * version is skipped whenever it arrived: before this serve began it is a leftover of an earlier
 * serve; after, a worker of that version is in the pool, or someone replayed stored bytes (which
 * anyone can), so it must not stop the serve either. With `serve` (a fresh serve's id), a result
 * that does not name it answers no order of this serve and is skipped likewise.
 */
function _unwanted(
  r: AttributedResult,
  o: {
    planned: ReadonlySet<string>;
    planDigest: string;
    build: Build;
    leftover: boolean;
    serve: string | null;
  },
): string | null {
  const who = `worker ${r.worker.slice(0, 16)}'s result`;
  if (r.result.plan !== o.planDigest || !o.planned.has(r.result.item)) {
    return `${who} is for item ${r.result.item.slice(0, 16)}, which this plan does not hold`;
  }
  if (o.serve !== null && r.result.serve !== o.serve) {
    const theirs = r.result.serve === undefined
      ? "no serve (a shard's result)"
      : `another serve (${r.result.serve})`;
    return `${who} for record ${r.result.result.index} answers ${theirs}, not this one ` +
      `(${o.serve}): --fresh merges only this serve's results (stored bytes replayed, or an ` +
      "earlier serve's worker answering late); the item waits for this serve's";
  }
  const own = o.build;
  const theirs = resultBuild(r.result);
  if (sameBuild(theirs, own)) return null;
  const base = `${who} for record ${r.result.result.index} was computed by another build ` +
    `(${describeBuild(theirs)}), not this serve's (${describeBuild(own)})`;
  return o.leftover
    ? `${base}, before this serve began: a current one is awaited`
    : `${base}, after this serve began: a worker of that build is in the pool (stop or ` +
      "upgrade it) or stored bytes were replayed; a current one is awaited";
}

/**
 * Why an accepted worker's result of a planned item is not one the merge admits
 * (`mergeAdmission`: about another record than the item's, contradicting its own status, or
 * computed under another budget a record than the plan's), or null. Checked before it is compared with a duplicate, as the merge does, so that which result
 * is refused does not depend on the order of arrival; skipped, not fatal, as anyone can replay
 * signed bytes.
 */
function _inadmissible(
  admit: (r: AttributedResult) => number,
  r: AttributedResult,
): string | null {
  try {
    admit(r);
    return null;
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return `${e.message}: skipped, the item waits for a result the merge admits`;
  }
}

/** The messages, with a failure of the server (not of a message) as a coded error. */
async function* _guarded<T>(messages: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    for await (const m of messages) yield m;
  } catch (e) {
    throw _server("collect the results", e);
  }
}

/** Bytes of results asked for at a time: 8 MiB, or one message of the largest the server takes. */
function _batchBytes(maxPayload: number | undefined): number {
  // A message larger than a batch would never be delivered (the server refuses the pull): room
  // for the largest payload the server takes, with its subject, reply and headers.
  return Math.max(8 * 1024 * 1024, (maxPayload ?? 0) + 64 * 1024);
}

/**
 * A work order's message id: 128 random bits, which no other client can know before the order is
 * published. The server drops a message whose id it saw within its duplicate window; an id that
 * others could derive (from the serve's id and the item, which the first order and the public
 * log give away) would let a peer publish under it first and have the real order dropped.
 */
function _orderId(): string {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
}

function _preempted(index: number): string {
  return `the work stream already held a message under the id of the work order for record ` +
    `${index} (another client published under it first, pre-empting the order: the server ` +
    "dropped it); the orders published are withdrawn";
}

function _server(what: string, e: unknown): InputError {
  const why = e instanceof Error ? e.message.split("\n")[0] : String(e);
  return new InputError("NATS_SERVER", `Cannot ${what} on NATS: ${why}`);
}
