/**
 * `servePlan()` holds one result per planned item whatever a peer publishes on the plan's results
 * subject: replays of a signed result are compared with the kept one and dropped (counted), a
 * result of another verifier version, or one this version cannot read, is skipped while the item
 * waits for a current one (stored before the serve began or after: signed bytes can be replayed by
 * anyone), and two disagreeing results of one item stop the collection as they stop the merge. A
 * fresh serve merges only the results of its own orders (each names the serve that ordered it):
 * an earlier serve's, replayed, is skipped however it disagrees. Junk stored on the subject (any
 * client can store it) is read a bounded batch at a time, never more than the server queues for
 * one client, and a fresh serve does not read what was stored before it at all; a server refusing
 * the serve its reader of the results stream is NATS_SERVER, not an internal error.
 */
import assert from "node:assert/strict";
import { VERSION } from "../../src/version.ts";
import { runPoolClient, startNatsServer } from "./_nats_server.ts";

async function serveReplays(scenario: string, config?: string) {
  const nats = await startNatsServer(config);
  try {
    return JSON.parse(await runPoolClient(nats, "_serve_replays.ts", { args: [scenario] }));
  } finally {
    await nats.stop();
  }
}

Deno.test("servePlan() keeps one result per item when a signed result is replayed 500 times", async () => {
  const got = await serveReplays("replay");
  assert.equal(got.results.length, got.items);
  assert.equal(got.duplicates, 500);
  // Of agreeing duplicates, the lowest worker key's is kept (as the merge credits it).
  assert.equal(got.results[0].worker, "aa".repeat(32));
  assert.deepEqual(got.skipped, []);
});

Deno.test("servePlan() skips a result of another verifier version stored before it began and merges the current ones", async () => {
  const got = await serveReplays("stale");
  assert.equal(got.results.length, got.items);
  for (const r of got.results) assert.equal(r.version, VERSION);
  assert.equal(got.skipped.length, 1);
  assert.match(
    got.skipped[0],
    /computed by another build \(version '0\.0\.9', manifest [0-9a-f]{16}…\), not this serve's \(version '[^']+', manifest [0-9a-f]{16}…\), before this serve began/,
  );
});

Deno.test("servePlan() skips a result of another verifier version arriving after it began (a worker of that version, or a replay anyone can send) and merges the current ones", async () => {
  const got = await serveReplays("stale-late");
  assert.equal(got.results.length, got.items, JSON.stringify(got));
  for (const r of got.results) assert.equal(r.version, VERSION);
  assert.equal(got.skipped.length, 1);
  assert.match(
    got.skipped[0],
    /computed by another build \(version '0\.0\.9', manifest [0-9a-f]{16}…\), not this serve's \(version '[^']+', manifest [0-9a-f]{16}…\), after this serve began: a worker of that build is in the pool/,
  );
});

Deno.test("servePlan() skips an accepted worker's result it cannot read, stored before it began and replayed after, and merges the current ones", async () => {
  const got = await serveReplays("unreadable");
  assert.equal(got.results.length, got.items, JSON.stringify(got));
  assert.equal(got.skipped.length, 2);
  for (const why of got.skipped) {
    assert.match(why, /confidence.*: skipped, the item waits for a result this version reads$/);
  }
});

Deno.test("servePlan() skips an item's result about another record (as the merge refuses it) before comparing it with the item's current one", async () => {
  const got = await serveReplays("misattributed");
  assert.equal(got.results.length, got.items, JSON.stringify(got));
  for (const r of got.results) assert.equal(r.worker, "bb".repeat(32));
  assert.equal(got.skipped.length, 1);
  assert.match(got.skipped[0], /: skipped, the item waits for a result the merge admits$/);
});

Deno.test("servePlan() stops with MERGE_CONFLICT when two results of one item disagree", async () => {
  const got = await serveReplays("conflict");
  assert.equal(got.code, "MERGE_CONFLICT");
});

Deno.test("servePlan() with fresh skips an earlier serve's and a shard's result replayed after it began, signed by the same worker and disagreeing, and merges the results of its own orders", async () => {
  const got = await serveReplays("fresh-replay");
  assert.equal(got.results.length, got.items, JSON.stringify(got));
  assert.equal(got.duplicates, 0);
  assert.deepEqual(got.skipped.length, 2, JSON.stringify(got));
  assert.match(
    got.skipped[0],
    /^worker b{16}'s result for record \d+ answers another serve \(0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\), not this one \([0-9a-f-]{36}\): --fresh merges only this serve's results/,
  );
  assert.match(got.skipped[1], /answers no serve \(a shard's result\), not this one/);
});

Deno.test("servePlan() without fresh merges the results of an earlier serve's orders (a serve resumes where another stopped)", async () => {
  const got = await serveReplays("resume");
  assert.equal(got.results.length, got.items, JSON.stringify(got));
  assert.deepEqual(got.skipped, []);
});

/**
 * A server that cuts a client off once 16 MB wait to be sent to it (its `max_pending`; 64 MB by
 * default): the junk scenarios store 50 MiB, which a batch of 100 messages would ask for at once.
 */
const SMALL_PENDING = "max_pending: 16MB\n";

Deno.test("servePlan() reads 50 MiB of junk stored on the plan's results subject a bounded batch at a time (the server never cuts it off as a slow consumer) and merges the current results", async () => {
  const got = await serveReplays("junk", SMALL_PENDING);
  assert.equal(got.results.length, got.items, JSON.stringify(got).slice(0, 400));
  assert.equal(got.skipped.length, 100);
});

Deno.test("servePlan() with fresh does not read the junk stored before it began (its reader starts after it), counts it, and merges the results of its own orders", async () => {
  const got = await serveReplays("junk-fresh", SMALL_PENDING);
  assert.equal(got.results.length, got.items, JSON.stringify(got).slice(0, 400));
  assert.equal(got.stale, 100);
  assert.deepEqual(got.skipped, []);
  assert.deepEqual(got.readers, [{ deliver: "by_start_sequence", start: 101 }]);
});

/** Clients may publish anything but a request for a consumer of the results stream. */
const NO_READER = `authorization {
  users = [{
    user: "anyone", password: "unused",
    permissions: { publish: { allow: [">"], deny: [
      "$JS.API.CONSUMER.CREATE.BITAUDIT_RESULTS", "$JS.API.CONSUMER.CREATE.BITAUDIT_RESULTS.>"
    ] } }
  }]
}
no_auth_user: "anyone"
`;

Deno.test("servePlan() stops with NATS_SERVER, not an internal error, when the server refuses it a reader of the results stream (as it does once a peer has deleted the stream)", async () => {
  // The refusal made certain (a deletion by a peer races the serve's own steps).
  const got = await serveReplays("stale", NO_READER);
  assert.equal(got.code, "NATS_SERVER", JSON.stringify(got));
  assert.match(got.message, /^Cannot read the results stream on NATS: Permissions Violation/);
});
