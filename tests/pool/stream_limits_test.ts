/**
 * The streams' limits on a real nats-server: a coordinator's streams bound each message and their
 * size, and a stream made before the limits gets them.
 */
import assert from "node:assert/strict";
import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { ensureStreams, STREAM_LIMITS } from "../../src/pool/ensure_streams.ts";
import { RESULTS_STREAM, resultSubject, WORK_STREAM } from "../../src/pool/mod.ts";
import { startNatsServer } from "./_nats_server.ts";

const QUEUE = { ackWaitMs: 60_000, maxDeliver: 5 };

Deno.test("ensureStreams() bounds every message and each stream, and gives a stream made without limits its limits", async () => {
  const server = await startNatsServer("max_payload: 4MB");
  const nc = await connect({ servers: server.url });
  try {
    const jsm = await jetstreamManager(nc);
    // A results stream as an older coordinator made it: no size limits.
    await jsm.streams.add({
      name: RESULTS_STREAM,
      subjects: ["bitaudit.results.>"],
      retention: RetentionPolicy.Limits,
    });
    await ensureStreams(jsm, QUEUE);
    const expected: [string, DiscardPolicy][] = [
      [WORK_STREAM, DiscardPolicy.New],
      [RESULTS_STREAM, DiscardPolicy.Old],
    ];
    for (const [name, discard] of expected) {
      const c = (await jsm.streams.info(name)).config;
      assert.equal(c.max_msg_size, STREAM_LIMITS.maxMsgBytes, name);
      assert.equal(c.max_bytes, STREAM_LIMITS.maxStreamBytes, name);
      assert.equal(c.discard, discard, name);
    }
    // The server takes 4 MB messages; the results stream does not store one over its limit.
    const js = jetstream(nc);
    const subject = resultSubject("ab".repeat(32));
    await assert.rejects(
      js.publish(subject, new Uint8Array(STREAM_LIMITS.maxMsgBytes + 1)),
      /maximum message size|message size exceeds/i,
    );
    await js.publish(subject, new Uint8Array(1024));
    assert.equal((await jsm.streams.info(RESULTS_STREAM)).state.messages, 1);
    // A second coordinator leaves limits as they are.
    await ensureStreams(jsm, QUEUE);
    assert.equal(
      (await jsm.streams.info(RESULTS_STREAM)).config.max_bytes,
      STREAM_LIMITS.maxStreamBytes,
    );
  } finally {
    await nc.close();
    await server.stop();
  }
});
