/**
 * A peer on the NATS server (no keys, no credentials) and the workers' pulls, for the pool tests:
 * `refuse` sets the workers' consumer's longest pull to 1 ms (the server then refuses a worker's
 * every pull at once), `allow` lifts it, and `count` prints how many JetStream consumer requests
 * (pulls and look-ups) clients send in 3 s. Any client the server lets in may update a consumer.
 * Run as its own process with network access to the server only: `deno run
 * --allow-net=<host:port> _workers_pulls.ts <nats url> refuse|allow|count`.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { WORK_STREAM, WORKERS_CONSUMER } from "../../src/pool/mod.ts";

const [url, mode] = Deno.args;
const nc = await connect({ servers: url! });
if (mode === "count") {
  let requests = 0;
  const sub = nc.subscribe("$JS.API.CONSUMER.>", {
    callback: () => {
      requests++;
    },
  });
  await new Promise((r) => setTimeout(r, 3000));
  sub.unsubscribe();
  console.log(JSON.stringify({ requests }));
} else {
  const jsm = await jetstreamManager(nc);
  const { config } = await jsm.consumers.update(WORK_STREAM, WORKERS_CONSUMER, {
    max_expires: mode === "refuse" ? 1_000_000 : 0, // nanoseconds
  });
  console.log(JSON.stringify({ max_expires: config.max_expires ?? 0 }));
}
await nc.drain();
