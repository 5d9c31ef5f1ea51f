/**
 * `servePlan()` holds one result per planned item whatever a peer publishes on the plan's results
 * subject: replays of a signed result are compared with the kept one and dropped (counted), a
 * result of another verifier version left in the stream before the serve began is skipped while
 * the item waits for a current one, one arriving after (a worker of another version in the pool)
 * stops the collection at once, and two disagreeing results of one item stop the collection as
 * they stop the merge.
 */
import assert from "node:assert/strict";
import { VERSION } from "../../src/version.ts";
import { runPoolClient, startNatsServer } from "./_nats_server.ts";

async function serveReplays(scenario: string) {
  const nats = await startNatsServer();
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
    /computed by version '0\.0\.9', not '[^']+' \(this serve's\), before this serve began/,
  );
});

Deno.test("servePlan() stops with MERGE_VERSION when a result of another verifier version arrives after it began", async () => {
  const got = await serveReplays("stale-late");
  assert.equal(got.code, "MERGE_VERSION");
  assert.match(
    got.message,
    new RegExp(`worker ${"aa".repeat(8)} computed it with version '0\\.0\\.9'`),
  );
  assert.deepEqual(got.skipped, []);
  // At once, not at the 60 s timeout (which would merge with the item missing, never throw).
  assert.ok(got.ms < 30_000, `took ${got.ms} ms`);
});

Deno.test("servePlan() stops with MERGE_CONFLICT when two results of one item disagree", async () => {
  const got = await serveReplays("conflict");
  assert.equal(got.code, "MERGE_CONFLICT");
});
