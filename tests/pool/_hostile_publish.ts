/**
 * A hostile peer on the NATS server (no keys, no credentials), for the pool tests: once the
 * coordinator's streams exist, publishes an unsigned message on a plan's results subject and a
 * forged work order of another log on its work subject. Run as its own process with network
 * access to the server only: `deno run --allow-net=<host:port> --allow-read=<plan> _hostile_publish.ts
 * <nats url> <plan.json>`.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { encodeWorkOrder, itemDigest, parseAuditPlan, workOrders } from "../../src/verify/mod.ts";
import { sha256Hex } from "../../src/sha256_hex.ts";
import { resultSubject, workSubject } from "../../src/pool/mod.ts";
import { awaitResultsStream } from "./_await_results_stream.ts";

const [url, planPath] = Deno.args;
const bytes = await Deno.readFile(planPath!);
const plan = parseAuditPlan(new TextDecoder().decode(bytes), planPath!);
const planDigest = sha256Hex(bytes);
const nc = await connect({ servers: url! });
const jsm = await jetstreamManager(nc);
await awaitResultsStream(jsm);
const js = jetstream(nc);
await js.publish(resultSubject(planDigest), "not a signed result");
const [order] = workOrders(plan, planDigest);
const forged = { ...order!, logRoot: "00".repeat(32) };
const item = { ...forged.item, item: itemDigest(forged, forged.item) };
await js.publish(workSubject(planDigest), encodeWorkOrder({ ...forged, item }));
await nc.drain();
console.log("published");
