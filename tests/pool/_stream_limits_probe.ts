/**
 * A coordinator's stream set-up on a live server, for the pool tests: makes a results stream as an
 * older coordinator did (no size limits), runs `ensureStreams` twice, tries a message over the
 * message limit and one under it; then changes the streams' settings as any client the server
 * lets in can (a 200-byte message limit and other subjects for the results, one message per
 * subject and roll-up headers for the work) and runs `ensureStreams` again; then takes the work
 * stream's acks, gives the results a source, has the workers' consumer deliver bare headers and
 * refuse long pulls, and runs it again; then makes the consumer anew with another filter and runs
 * it again, and once more with another ack wait; then has the consumer hand out one order at a
 * time and runs it again; last, makes the work stream anew with another
 * retention (which the server never changes) and runs it once more.
 * Prints what each run said and what the server then holds as one JSON line. Run as its own
 * process with network access to the server only:
 * `deno run --allow-net=<host:port> _stream_limits_probe.ts <nats url>`.
 */
import { AckPolicy, jetstream, jetstreamManager, RetentionPolicy } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { ensureStreams, STREAM_LIMITS } from "../../src/pool/ensure_streams.ts";
import {
  RESULTS_STREAM,
  resultSubject,
  WORK_STREAM,
  WORKERS_CONSUMER,
} from "../../src/pool/mod.ts";

const queue = { ackWaitMs: 60_000, maxDeliver: 5 };
const nc = await connect({ servers: Deno.args[0]! });
const jsm = await jetstreamManager(nc);
await jsm.streams.add({
  name: RESULTS_STREAM,
  subjects: ["bitaudit.results.>"],
  retention: RetentionPolicy.Limits,
});
const first = await ensureStreams(jsm, queue);
const second = await ensureStreams(jsm, queue); // a second coordinator
const js = jetstream(nc);
const subject = resultSubject("ab".repeat(32));
const oversized = await js.publish(subject, new Uint8Array(STREAM_LIMITS.maxMsgBytes + 1))
  .then(() => "stored", (e) => String(e instanceof Error ? e.message : e));
await js.publish(subject, new Uint8Array(1024));
// A peer's changes.
await jsm.streams.update(RESULTS_STREAM, { max_msg_size: 200, subjects: ["elsewhere.>"] });
await jsm.streams.update(WORK_STREAM, { max_msgs_per_subject: 1, allow_rollup_hdrs: true });
const reset = await ensureStreams(jsm, queue);
const streams = Object.fromEntries(
  await Promise.all([WORK_STREAM, RESULTS_STREAM].map(async (name) => {
    const { config, state } = await jsm.streams.info(name);
    const { subjects, max_msg_size, max_bytes, max_msgs_per_subject, discard } = config;
    const rollup = config.allow_rollup_hdrs;
    return [name, {
      subjects,
      max_msg_size,
      max_bytes,
      max_msgs_per_subject,
      rollup,
      discard,
      messages: state.messages,
    }];
  })),
);
// More of a peer's changes: a work stream that takes orders without acking them (every serve's
// publish then times out), a source feeding the results stream, and a consumer that delivers
// orders without their bodies and refuses the workers' pulls (which wait up to a second).
await jsm.streams.add({ name: "PEER", subjects: ["peer.>"] });
await jsm.streams.update(WORK_STREAM, { no_ack: true });
await jsm.streams.update(RESULTS_STREAM, { sources: [{ name: "PEER" }] });
await jsm.consumers.update(WORK_STREAM, WORKERS_CONSUMER, {
  headers_only: true,
  max_expires: 1_000_000,
});
const tampered = await ensureStreams(jsm, queue);
// A consumer the peer made anew, passing over every order.
await jsm.consumers.delete(WORK_STREAM, WORKERS_CONSUMER);
await jsm.consumers.add(WORK_STREAM, {
  durable_name: WORKERS_CONSUMER,
  ack_policy: AckPolicy.Explicit,
  filter_subject: "bitaudit.work.none",
});
const remade = await ensureStreams(jsm, queue);
// A serve asking for another ack wait and delivery limit changes those only, saying nothing.
const other = await ensureStreams(jsm, { ackWaitMs: 30_000, maxDeliver: 3 });
const { config: c } = await jsm.consumers.info(WORK_STREAM, WORKERS_CONSUMER);
const workers = {
  filter: c.filter_subject,
  headers_only: c.headers_only ?? false,
  max_expires: c.max_expires ?? 0,
  ack_wait: c.ack_wait,
  max_deliver: c.max_deliver,
};
const acked = (await jsm.streams.info(WORK_STREAM)).config.no_ack ?? false;
const sources = (await jsm.streams.info(RESULTS_STREAM)).config.sources ?? [];
// A consumer that hands out one order at a time, over all workers: given back too.
await jsm.consumers.update(WORK_STREAM, WORKERS_CONSUMER, { max_ack_pending: 1 });
const oneAtATime = await ensureStreams(jsm, queue);
const ackPending = (await jsm.consumers.info(WORK_STREAM, WORKERS_CONSUMER)).config
  .max_ack_pending;
await jsm.streams.delete(WORK_STREAM);
await jsm.streams.add({ name: WORK_STREAM, subjects: ["bitaudit.work.>"] });
const retention = await ensureStreams(jsm, queue)
  .then(() => "accepted", (e) => String(e instanceof Error ? e.message : e));
// A purge ban the server will not cancel: a failed serve could not withdraw its orders.
await jsm.streams.delete(WORK_STREAM);
await jsm.streams.add({
  name: WORK_STREAM,
  subjects: ["bitaudit.work.>"],
  retention: RetentionPolicy.Workqueue,
  deny_purge: true,
});
const denyPurge = await ensureStreams(jsm, queue)
  .then(() => "accepted", (e) => String(e instanceof Error ? e.message : e));
await nc.drain();
console.log(
  JSON.stringify({
    first,
    second,
    oversized,
    reset,
    streams,
    tampered,
    remade,
    other,
    workers,
    noAck: acked,
    sources,
    oneAtATime,
    ackPending,
    retention,
    denyPurge,
    limits: STREAM_LIMITS,
  }),
);
