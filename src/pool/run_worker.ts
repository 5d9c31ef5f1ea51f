/**
 * A pool worker: pulls one work order at a time from the shared consumer, checks it against its
 * own claim log, recomputes it, publishes the result signed with its own key (naming the serve
 * whose order it answers, as the order names it) and only then acks the order. While an item
 * is being recomputed it sends `working()` heartbeats every third of the ack wait, so a live
 * worker keeps its item; a worker that dies stops them, and the server redelivers the item to
 * another worker after the ack wait. The server refusing an item's result (any client it lets in
 * can shrink the results stream's message limit) or its ack (or delete the workers' consumer) is
 * that item's failure, reported as an event: a refused result hands the order back for
 * redelivery, and the worker goes on either way.
 *
 * @module
 */
import { type Consumer, jetstream, jetstreamManager, type JsMsg } from "@nats-io/jetstream";
import type { ClaimLog } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import {
  checkWorkOrder,
  type ItemResult,
  parseWorkOrder,
  type WorkContext,
  workItem,
  type WorkOrder,
} from "../verify/mod.ts";
import { natsConnection, type NatsLink } from "./connect_nats.ts";
import { STREAM_LIMITS } from "./ensure_streams.ts";
import { resultSubject, WORK_STREAM, WORKERS_CONSUMER } from "./subjects.ts";

/** What a worker reports while it runs. */
export type WorkerEvent =
  | {
    readonly kind: "start" | "done";
    /** Item digest. */
    readonly item: string;
    /** Record index in the log. */
    readonly index: number;
    /** Workload kind. */
    readonly workload: string;
    /** How often the server has delivered this order (1 = first time). */
    readonly delivery: number;
  }
  | { readonly kind: "refused"; readonly why: string }
  | {
    /** The server refused this item's result or its ack: said, and the worker goes on. */
    readonly kind: "failed";
    /** Item digest. */
    readonly item: string;
    /** Record index in the log. */
    readonly index: number;
    /** Workload kind. */
    readonly workload: string;
    /** How often the server has delivered this order (1 = first time). */
    readonly delivery: number;
    /** What failed, and what becomes of the order. */
    readonly why: string;
  };

/** Options of {@link runWorker}. */
export interface WorkerOptions {
  /** Recomputation context. */
  readonly ctx: WorkContext;
  /** The claim log the worker's orders must come from. */
  readonly log: ClaimLog;
  /** Encodes a result as the line to publish, signed by this worker (e.g. `signItemResult`). */
  readonly sign: (result: ItemResult) => Promise<string>;
  /** Stops the worker after the current item. */
  readonly signal?: AbortSignal | undefined;
  /** Exit after this many milliseconds without a work order (default: never). */
  readonly maxIdleMs?: number | undefined;
  /** Progress events. */
  readonly onEvent?: ((e: WorkerEvent) => void) | undefined;
  /**
   * Throws for an order this worker must not work on (it names the worker's key among the plan's
   * signers): the order is handed back for another worker and the refusal said as an event, as
   * for an order of another log; the worker goes on.
   */
  readonly refuse?: ((order: WorkOrder) => void) | undefined;
}

/**
 * Runs a worker until stopped (or idle for `maxIdleMs`).
 *
 * @param link connection to the NATS server (from `connectNats`)
 * @param options context, log, stop signal, idle limit, event callback
 * @returns how many items it completed
 * @throws {InputError} `NATS_SERVER` when the server offers no JetStream, or when the connection
 *   closes (the client gave up reconnecting: the worker would otherwise wait on it for ever)
 * @example
 * ```ts ignore
 * await runWorker(link, { ctx, log, maxIdleMs: 600_000 });
 * ```
 */
export async function runWorker(link: NatsLink, options: WorkerOptions): Promise<number> {
  const nc = natsConnection(link);
  try {
    await jetstreamManager(nc); // asks the server for its JetStream account: none, no queue
  } catch (e) {
    throw _closed(link, `the server offers no JetStream (${_why(e)})`);
  }
  const js = jetstream(nc);
  let done = 0;
  let idleSince = Date.now();
  const idle = () => options.maxIdleMs !== undefined && Date.now() - idleSince > options.maxIdleMs;
  let consumer: Consumer | null = null;
  while (!options.signal?.aborted && !idle()) {
    // The client gives up reconnecting after a while: the loop would otherwise wait on a closed
    // connection for ever, taking nothing.
    if (nc.isClosed()) {
      throw _closed(
        link,
        "the connection closed (the server stayed unreachable through every " +
          "reconnect attempt); start the worker again once the server is back",
      );
    }
    consumer ??= await _consumer(js);
    if (consumer === null) {
      await _pause(); // not created yet: `audit serve` creates it
      continue;
    }
    let m: JsMsg | null;
    try {
      m = await consumer.next({ expires: 1000 });
    } catch {
      // Deleted or unreachable for a moment: looked up again. The server refuses a pull at once
      // when a peer has changed the consumer's pull limits (a 1 ms max_expires): without the pause
      // the worker would ask thousands of times a second until a serve sets them back.
      consumer = null;
      await _pause();
      continue;
    }
    if (m === null) continue;
    if (await _one(m, { ...options, js, ackWaitMs: await _ackWaitMs(consumer) })) done++;
    idleSince = Date.now();
  }
  return done;
}

/** Works on one order; true when its result is published. */
async function _one(
  m: JsMsg,
  o: WorkerOptions & { js: ReturnType<typeof jetstream>; ackWaitMs: number },
): Promise<boolean> {
  let order;
  try {
    // The stream bounds its messages, but any client the server lets in can raise that bound
    // (and a server can take larger payloads): a larger message is no order, and is not read.
    if (m.data.length > STREAM_LIMITS.maxMsgBytes) {
      throw new InputError(
        "ORDER_INVALID",
        `Cannot read a work order: it is ${m.data.length} bytes, more than the ` +
          `${STREAM_LIMITS.maxMsgBytes} a message of the work stream may be`,
      );
    }
    order = parseWorkOrder(m.string());
  } catch (e) {
    // A malformed order can never be done: not redelivered (best effort, as every hand-back).
    _settle(() => m.term());
    o.onEvent?.({ kind: "refused", why: (e as Error).message });
    return false;
  }
  try {
    o.refuse?.(order);
    checkWorkOrder(order, o.log);
  } catch (e) {
    // An order that names this worker's key among its plan's signers, or of another log (another
    // audit's on the shared queue, or a forged one): handed back for a worker on a key of its own
    // that holds that log, after a pause; this worker goes on (an order must not be able to stop
    // the pool: what it says of its signers is not authenticated, and any peer could say it).
    _handBack(m);
    o.onEvent?.({ kind: "refused", why: (e as Error).message });
    return false;
  }
  const { item } = order;
  const event = {
    item: item.item,
    index: item.index,
    workload: item.kind,
    delivery: m.info.deliveryCount,
  };
  o.onEvent?.({ kind: "start", ...event });
  // A third of the ack wait the server states (anyone reaching it can set it), held within what a
  // timer holds: a longer interval would fire every millisecond.
  const every = Math.min(2 ** 31 - 1, Math.max(50, Math.floor(o.ackWaitMs / 3)));
  const beat = setInterval(() => _settle(() => m.working()), every);
  let line: string;
  try {
    // The order's serve id goes into the signed result: the serve that ordered it can tell it
    // from an earlier serve's result replayed on the stream.
    const r = await workItem(o.ctx, {
      planDigest: order.plan,
      log: o.log,
      item,
      serve: order.serve,
      maxRecordProducts: order.maxRecordProducts,
    });
    line = (await o.sign(r)).trimEnd();
  } finally {
    clearInterval(beat);
  }
  // Any client the server lets in can change the streams (shrink the results' message limit,
  // delete the workers' consumer): a refused publish or ack is this item's failure, said, and the
  // worker goes on. A closed connection is said by the loop.
  try {
    await o.js.publish(resultSubject(order.plan), line);
  } catch (e) {
    _handBack(m);
    o.onEvent?.({
      kind: "failed",
      ...event,
      why: `Cannot publish its result on NATS: ${_why(e)}; the order is handed back, to be ` +
        "delivered again after 5 s",
    });
    return false;
  }
  try {
    await m.ackAck();
  } catch (e) {
    o.onEvent?.({
      kind: "failed",
      ...event,
      why: `its result is published, but NATS did not take the ack (${_why(e)}): the order may ` +
        "be delivered again (the serve drops a result that repeats one bit for bit)",
    });
  }
  o.onEvent?.({ kind: "done", ...event });
  return true;
}

/** Hands an order back for redelivery after a pause (best effort: the server may be gone). */
function _handBack(m: JsMsg): void {
  _settle(() => m.nak(5000));
}

/**
 * Runs a reply to the server that may find the connection closed (the client gave up on it):
 * the order is then redelivered after its ack wait, and the loop says the connection closed.
 */
function _settle(reply: () => void): void {
  try {
    reply();
  } catch { /* the connection closed */ }
}

/** A quarter of a second, between tries at a consumer that is missing or refuses the pull. */
function _pause(): Promise<void> {
  return new Promise((r) => setTimeout(r, 250));
}

function _closed(link: NatsLink, why: string): InputError {
  return new InputError(
    "NATS_SERVER",
    `Cannot take work orders from NATS at ${link.server}: ${why}`,
  );
}

function _why(e: unknown): string {
  return e instanceof Error ? e.message.split("\n")[0]! : String(e);
}

async function _consumer(js: ReturnType<typeof jetstream>): Promise<Consumer | null> {
  try {
    return await js.consumers.get(WORK_STREAM, WORKERS_CONSUMER);
  } catch {
    return null;
  }
}

async function _ackWaitMs(consumer: Consumer): Promise<number> {
  // Fresh: a coordinator may have changed the ack wait. Any client the server lets in can delete
  // the consumer meanwhile: the ack wait it had when last read serves then (the order is worked
  // on; its result is published whether or not its ack is taken).
  const info = await consumer.info().catch(() => consumer.info(true));
  return Math.floor((info.config.ack_wait ?? 30e9) / 1e6);
}
