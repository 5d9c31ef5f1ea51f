/**
 * A coordinator's stream set-up on a live server, for the pool tests: makes a results stream as an
 * older coordinator did (no size limits), runs `ensureStreams` twice, tries a message over the
 * message limit and one under it; then changes the streams' settings as any client the server
 * lets in can (a 200-byte message limit and other subjects for the results, one message per
 * subject and roll-up headers for the work) and runs `ensureStreams` again; last, makes the work
 * stream anew with another retention (which the server never changes) and runs it once more.
 * Prints what each run said and what the server then holds as one JSON line. Run as its own
 * process with network access to the server only:
 * `deno run --allow-net=<host:port> _stream_limits_probe.ts <nats url>`.
 */
import { jetstream, jetstreamManager, RetentionPolicy } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { ensureStreams, STREAM_LIMITS } from "../../src/pool/ensure_streams.ts";
import { RESULTS_STREAM, resultSubject, WORK_STREAM } from "../../src/pool/mod.ts";

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
await jsm.streams.delete(WORK_STREAM);
await jsm.streams.add({ name: WORK_STREAM, subjects: ["bitaudit.work.>"] });
const retention = await ensureStreams(jsm, queue)
  .then(() => "accepted", (e) => String(e instanceof Error ? e.message : e));
await nc.drain();
console.log(
  JSON.stringify({ first, second, oversized, reset, streams, retention, limits: STREAM_LIMITS }),
);
