/**
 * A peer with no keys and no credentials that replays a plan's stored results, for the pool tests:
 * publishes again, on the plan's results subject, every result the server holds for it (worker-
 * signed bytes it cannot alter, and need not), then prints how many. Run as its own process with
 * network access to the server only: `deno run --allow-net=<host:port> _replay_results.ts
 * <nats url> <plan sha256>`.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { RESULTS_STREAM, resultSubject } from "../../src/pool/mod.ts";

const [url, planDigest] = Deno.args;
const subject = resultSubject(planDigest!);
const nc = await connect({ servers: url! });
const jsm = await jetstreamManager(nc);
const js = jetstream(nc);
const { state } = await jsm.streams.info(RESULTS_STREAM);
let replayed = 0;
for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
  const m = await jsm.streams.getMessage(RESULTS_STREAM, { seq }).catch(() => null);
  if (m === null || m.subject !== subject) continue;
  await js.publish(subject, m.data);
  replayed++;
}
await nc.drain();
console.log(JSON.stringify({ replayed }));
