/**
 * A coordinator's stream set-up on a live server, for the pool tests: makes a results stream as an
 * older coordinator did (no size limits), runs `ensureStreams` twice, tries a message over the
 * message limit and one under it, and prints what the server then holds as one JSON line. Run as
 * its own process with network access to the server only:
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
await ensureStreams(jsm, queue);
await ensureStreams(jsm, queue); // a second coordinator
const js = jetstream(nc);
const subject = resultSubject("ab".repeat(32));
const oversized = await js.publish(subject, new Uint8Array(STREAM_LIMITS.maxMsgBytes + 1))
  .then(() => "stored", (e) => String(e instanceof Error ? e.message : e));
await js.publish(subject, new Uint8Array(1024));
const streams = Object.fromEntries(
  await Promise.all([WORK_STREAM, RESULTS_STREAM].map(async (name) => {
    const { config, state } = await jsm.streams.info(name);
    const { max_msg_size, max_bytes, discard } = config;
    return [name, { max_msg_size, max_bytes, discard, messages: state.messages }];
  })),
);
await nc.drain();
console.log(JSON.stringify({ oversized, streams, limits: STREAM_LIMITS }));
