/**
 * The streams' settings on a real nats-server: a coordinator's streams bound each message and
 * their size, a stream made before the limits gets them, and a stream whose settings a peer
 * changed (any client the server lets in can) gets its own back, each change said; a stream of
 * another retention or with a purge ban, which the server never changes, is refused, naming what to do (the client
 * runs in a process of its own, with network access to the server only).
 */
import assert from "node:assert/strict";
import { runPoolClient, startNatsServer } from "./_nats_server.ts";

Deno.test("ensureStreams() bounds every message and each stream, gives a stream made without limits or changed by a peer its settings back and says so, and refuses another retention", async () => {
  // The server itself takes 4 MB messages: the stream's own limit is what refuses one.
  const nats = await startNatsServer("max_payload: 4MB");
  try {
    const r = JSON.parse(await runPoolClient(nats, "_stream_limits_probe.ts"));
    assert.match(r.oversized, /maximum message size|message size exceeds/i);
    const { maxMsgBytes, maxStreamBytes } = r.limits;
    assert.deepEqual(r.first, [
      `BITAUDIT_RESULTS max_msg_size: -1, now ${maxMsgBytes}`,
      `BITAUDIT_RESULTS max_bytes: -1, now ${maxStreamBytes}`,
      "BITAUDIT_RESULTS max_age: 0, now 604800000000000",
    ]);
    assert.deepEqual(r.second, []);
    assert.deepEqual(r.reset, [
      "BITAUDIT_WORK max_msgs_per_subject: 1, now -1",
      "BITAUDIT_WORK allow_rollup_hdrs: true, now false",
      'BITAUDIT_RESULTS subjects: ["elsewhere.>"], now ["bitaudit.results.>"]',
      `BITAUDIT_RESULTS max_msg_size: 200, now ${maxMsgBytes}`,
    ]);
    const own = { max_msg_size: maxMsgBytes, max_bytes: maxStreamBytes, max_msgs_per_subject: -1 };
    assert.deepEqual(r.streams, {
      BITAUDIT_WORK: {
        subjects: ["bitaudit.work.>"],
        ...own,
        rollup: false,
        discard: "new",
        messages: 0,
      },
      BITAUDIT_RESULTS: {
        subjects: ["bitaudit.results.>"],
        ...own,
        rollup: false,
        discard: "old",
        messages: 1,
      },
    });
    // A peer's changes to the work stream's acks, the results' sources and the workers'
    // consumer are given back too, and said; another ack wait is a serve's own, not a reset.
    assert.deepEqual(r.tampered, [
      "BITAUDIT_WORK no_ack: true, now false",
      'BITAUDIT_RESULTS sources: [{"name":"PEER"}], now []',
      "bitaudit-workers headers_only: true, now false (consumer made anew)",
      "bitaudit-workers max_expires: 1000000, now 0 (consumer made anew)",
    ]);
    assert.deepEqual(r.remade, [
      'bitaudit-workers filter_subject: "bitaudit.work.none", now "bitaudit.work.>" (consumer ' +
      "made anew)",
    ]);
    assert.deepEqual(r.other, []);
    assert.deepEqual(r.workers, {
      filter: "bitaudit.work.>",
      headers_only: false,
      max_expires: 0,
      ack_wait: 30_000_000_000,
      max_deliver: 3,
    });
    assert.equal(r.noAck, false);
    assert.deepEqual(r.sources, []);
    // A peer's limit of one unacknowledged order (the pool would work one at a time, every later
    // serve too) is given back and said.
    assert.deepEqual(r.oneAtATime, [
      "bitaudit-workers max_ack_pending: 1, now 1000 (consumer made anew)",
    ]);
    assert.equal(r.ackPending, 1000);
    assert.equal(
      r.retention,
      'the stream BITAUDIT_WORK has retention "limits", not "workqueue", which the server does ' +
        "not change: a client made it so; delete the stream (nats stream rm BITAUDIT_WORK) and " +
        "serve again",
    );
    assert.equal(
      r.denyPurge,
      "the stream BITAUDIT_WORK has deny_purge true, not false, which the server does not " +
        "change: a client made it so; delete the stream (nats stream rm BITAUDIT_WORK) and " +
        "serve again",
    );
  } finally {
    await nats.stop();
  }
});
