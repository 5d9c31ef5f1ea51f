/**
 * A peer that can only publish and subscribe cannot have `servePlan()`'s work orders dropped: each
 * goes under a message id of 128 random bits, which the first order and the public log do not
 * give away (they did when the id was the serve's id and the item's digest: the server dropped
 * every later order as a duplicate of the peer's message, and the serve waited out its timeout),
 * and an order the server reports as a duplicate stops the serve, naming the pre-emption.
 */
import assert from "node:assert/strict";
import { runPoolClient, startNatsServer } from "./_nats_server.ts";

async function servePreempted(scenario: string) {
  const nats = await startNatsServer();
  try {
    return JSON.parse(await runPoolClient(nats, "_serve_preempted.ts", { args: [scenario] }));
  } finally {
    await nats.stop();
  }
}

Deno.test("servePlan()'s work orders all reach the queue when a peer publishes first under the ids it derives from the first order", async () => {
  const got = await servePreempted("derived");
  assert.deepEqual(got, { items: 6, queued: 6, results: 6 });
});

Deno.test("servePlan() stops with NATS_SERVER naming the pre-emption when the server reports a work order as a duplicate", async () => {
  const got = await servePreempted("taken");
  assert.equal(got.code, "NATS_SERVER", JSON.stringify(got));
  assert.match(
    got.message,
    /^Cannot publish the work orders on NATS: the work stream already held a message under the id of the work order for record \d+ \(another client published under it first, pre-empting the order: the server dropped it\)/,
  );
});
