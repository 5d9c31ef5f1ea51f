/**
 * A peer with no keys and no credentials that sends forged work orders, for the pool tests: makes
 * sure the streams exist (as a coordinator does) and publishes, on a plan's work subject, one order
 * per plan item that is the plan's in every field but the budget a record, which it sets to
 * another (a number) or drops (`none`: the default), ahead of the coordinator's orders (review
 * h180). Every field bound by the item digest is left alone, so a worker holding the log takes
 * the orders. Run as its own process with network access to the server only: `deno run
 * --allow-net=<host:port> --allow-read=<plan> _forged_budget.ts <nats url> <plan.json>
 * <budget | none>`.
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { encodeWorkOrder, parseAuditPlan, workOrders } from "../../src/verify/mod.ts";
import { sha256Hex } from "../../src/sha256_hex.ts";
import { workSubject } from "../../src/pool/mod.ts";
import { ensureStreams } from "../../src/pool/ensure_streams.ts";

const [url, planPath, budget] = Deno.args;
const bytes = await Deno.readFile(planPath!);
const plan = parseAuditPlan(new TextDecoder().decode(bytes), planPath!);
const planDigest = sha256Hex(bytes);
const nc = await connect({ servers: url! });
await ensureStreams(await jetstreamManager(nc), { ackWaitMs: 60_000, maxDeliver: 5 });
const js = jetstream(nc);
for (const order of workOrders(plan, { planDigest, serve: crypto.randomUUID() })) {
  const { maxRecordProducts: _, ...rest } = order;
  const forged = budget === "none" ? rest : { ...rest, maxRecordProducts: Number(budget) };
  await js.publish(workSubject(planDigest), encodeWorkOrder(forged));
}
await nc.drain();
console.log(JSON.stringify({ forged: plan.items.length }));
