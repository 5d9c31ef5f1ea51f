/**
 * The streams' limits on a real nats-server: a coordinator's streams bound each message and their
 * size, and a stream made before the limits gets them (the client runs in a process of its own,
 * with network access to the server only).
 */
import assert from "node:assert/strict";
import { runPoolClient, startNatsServer } from "./_nats_server.ts";

Deno.test("ensureStreams() bounds every message and each stream, and gives a stream made without limits its limits", async () => {
  // The server itself takes 4 MB messages: the stream's own limit is what refuses one.
  const nats = await startNatsServer("max_payload: 4MB");
  try {
    const r = JSON.parse(await runPoolClient(nats, "_stream_limits_probe.ts"));
    assert.match(r.oversized, /maximum message size|message size exceeds/i);
    const { maxMsgBytes, maxStreamBytes } = r.limits;
    assert.deepEqual(r.streams, {
      BITAUDIT_WORK: {
        max_msg_size: maxMsgBytes,
        max_bytes: maxStreamBytes,
        discard: "new",
        messages: 0,
      },
      BITAUDIT_RESULTS: {
        max_msg_size: maxMsgBytes,
        max_bytes: maxStreamBytes,
        discard: "old",
        messages: 1,
      },
    });
  } finally {
    await nats.stop();
  }
});
