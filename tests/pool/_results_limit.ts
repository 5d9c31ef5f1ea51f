/**
 * A peer on the NATS server (no keys, no credentials) that changes the results stream's message
 * limit, for the pool tests: `shrink` sets it to 200 bytes (no signed result fits), `restore` sets
 * it back to the pool's limit. Any client the server lets in may update a stream. Run as its own
 * process with network access to the server only: `deno run --allow-net=<host:port>
 * _results_limit.ts <nats url> shrink|restore`.
 */
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { RESULTS_STREAM } from "../../src/pool/mod.ts";
import { STREAM_LIMITS } from "../../src/pool/ensure_streams.ts";

const [url, mode] = Deno.args;
const max_msg_size = mode === "shrink" ? 200 : STREAM_LIMITS.maxMsgBytes;
const nc = await connect({ servers: url! });
const jsm = await jetstreamManager(nc);
const { config } = await jsm.streams.update(RESULTS_STREAM, { max_msg_size });
await nc.drain();
console.log(JSON.stringify({ max_msg_size: config.max_msg_size }));
