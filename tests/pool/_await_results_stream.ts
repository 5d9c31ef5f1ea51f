/** Waits, for the pool tests' publishers, until the coordinator has created the results stream. */
import type { JetStreamManager } from "@nats-io/jetstream";
import { RESULTS_STREAM } from "../../src/pool/mod.ts";

/**
 * Polls the server every 50 ms (at most 200 times) until the results stream exists.
 *
 * @param jsm a JetStream manager on the test's server
 * @returns once the stream exists; throws the last lookup error after 200 tries
 */
export async function awaitResultsStream(jsm: JetStreamManager): Promise<void> {
  for (let tries = 0;; tries++) {
    try {
      await jsm.streams.info(RESULTS_STREAM);
      return;
    } catch (e) {
      if (tries === 200) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
