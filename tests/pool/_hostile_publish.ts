/**
 * A hostile peer on the NATS server (no keys, no credentials), for the pool tests: makes sure the
 * streams exist (as a coordinator does) and publishes an unsigned message on a plan's results
 * subject, a forged work order of another log on its work subject and, having raised the work
 * stream's message limit (any client can), a message one byte over the limit there, all ahead of
 * the coordinator's orders (so the worker meets them before the coordinator's last result ends the
 * serve and purges the plan's orders). Run as its own process with network access to the server
 * only: `deno run --allow-net=<host:port> --allow-read=<plan> _hostile_publish.ts <nats url>
 * <plan.json>`.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { encodeWorkOrder, itemDigest, parseAuditPlan, workOrders } from "../../src/verify/mod.ts";
import { sha256Hex } from "../../src/sha256_hex.ts";
import { resultSubject, WORK_STREAM, workSubject } from "../../src/pool/mod.ts";
import { ensureStreams, STREAM_LIMITS } from "../../src/pool/ensure_streams.ts";

const [url, planPath] = Deno.args;
const bytes = await Deno.readFile(planPath!);
const plan = parseAuditPlan(new TextDecoder().decode(bytes), planPath!);
const planDigest = sha256Hex(bytes);
const nc = await connect({ servers: url! });
const jsm = await jetstreamManager(nc);
await ensureStreams(jsm, { ackWaitMs: 60_000, maxDeliver: 5 });
const js = jetstream(nc);
await js.publish(resultSubject(planDigest), "not a signed result");
const [order] = workOrders(plan, { planDigest, serve: crypto.randomUUID() });
const forged = { ...order!, logRoot: "00".repeat(32) };
const item = { ...forged.item, item: itemDigest(forged, forged.item) };
await js.publish(workSubject(planDigest), encodeWorkOrder({ ...forged, item }));
// The server takes larger payloads (its `max_payload`): the peer lifts the stream's own bound.
await jsm.streams.update(WORK_STREAM, { max_msg_size: 2 * STREAM_LIMITS.maxMsgBytes });
await js.publish(workSubject(planDigest), "[".repeat(STREAM_LIMITS.maxMsgBytes + 1));
await nc.drain();
console.log("published");
