/**
 * `servePlan` against a peer that replays results, for the pool tests: serves a 3-item plan of a
 * log of kinds this version does not recompute and, once the streams exist, publishes the
 * scenario's results on the plan's results subject; prints what `servePlan` returned (or the code
 * it threw) as one JSON line. Run as its own process with network access to the server only:
 * `deno run --allow-net=<host:port> --allow-read _serve_replays.ts <nats url> <scenario>`, where the
 * scenario is `replay` (one result 500 times, by two worker keys), `stale` (a result of another
 * verifier version stored before the serve begins, the current ones after), `stale-late` (a result
 * of another verifier version first, once the serve has published its orders), `unreadable` (a
 * result of another version in another format, stored before the serve and replayed after it),
 * `misattributed` (an item's result about another record, before the current ones), `conflict`
 * (two disagreeing results of one item), `fresh-replay` (a fresh serve: once its orders are out,
 * an earlier serve's result and a shard's, both disagreeing with the current one and signed by the
 * same worker, then the results of this serve's orders), `resume` (a serve that is not fresh:
 * the results of an earlier serve's orders, stored before it began), `junk` (100 messages of
 * 512 KiB that are no results, stored before the serve, then the current results) or `junk-fresh`
 * (the same junk before a fresh serve, whose reader's start on the server is printed too, then
 * the results of its orders).
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { connectNats, RESULTS_STREAM, resultSubject, servePlan } from "../../src/pool/mod.ts";
import { awaitResultsStream } from "./_await_results_stream.ts";
import { encodeItemResult, type ItemResult, parseItemResult } from "../../src/verify/mod.ts";
import { VERSION } from "../../src/version.ts";
import { futureAudit } from "../verify/_future_audit.ts";

const [url, scenario] = Deno.args;
const { plan, planDigest, results: current } = await futureAudit(6, {
  auditId: "replays",
  randomness: "01".repeat(32),
  round: 3,
  k: 3,
});
const [r0, r1, r2] = current as [ItemResult, ItemResult, ItemResult];
const line = (result: ItemResult, worker: string) =>
  JSON.stringify({ worker, line: encodeItemResult(result).trimEnd() });

/**
 * The junk a peer stores on the plan's results subject before the serve begins (`junk`,
 * `junk-fresh`): more bytes than the test's server queues for one client (its `max_pending`), had
 * they been asked for in one pull.
 */
const JUNK = { count: 100, bytes: 512 * 1024 };
/** The id of an earlier serve of the plan. */
const EARLIER = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
const messages: string[] = [];
// Stored before servePlan starts (a leftover of an earlier serve of the plan).
const leftovers: string[] = [];
if (scenario === "replay") {
  for (let i = 0; i < 500; i++) messages.push(line(r0, "bb".repeat(32)));
  messages.push(line(r0, "aa".repeat(32)), line(r1, "bb".repeat(32)), line(r2, "bb".repeat(32)));
} else if (scenario === "stale" || scenario === "stale-late") {
  const stale = { ...r0, verifier: { ...r0.verifier, version: "0.0.9" } };
  (scenario === "stale" ? leftovers : messages).push(line(stale, "aa".repeat(32)));
  for (const r of current) messages.push(line(r, "bb".repeat(32)));
} else if (scenario === "unreadable") {
  // Another version's result with a field this version does not know, signed by a worker the
  // serve accepts: stored before the serve began and replayed after it.
  const stale = encodeItemResult({ ...r0, verifier: { ...r0.verifier, version: "0.0.9" } })
    .trimEnd().replace(/^\{/, '{"confidence":"high",');
  const bytes = JSON.stringify({ worker: "aa".repeat(32), line: stale });
  leftovers.push(bytes);
  messages.push(bytes);
  for (const r of current) messages.push(line(r, "bb".repeat(32)));
} else if (scenario === "misattributed") {
  // Item 0's result carrying record 1's body (the merge refuses it), by a lower key first: a
  // disagreement with the current result of item 0 must not be what stops the serve.
  messages.push(line({ ...r0, result: r1.result }, "aa".repeat(32)));
  for (const r of current) messages.push(line(r, "bb".repeat(32)));
} else if (scenario === "resume") {
  for (const r of current) leftovers.push(line({ ...r, serve: EARLIER }, "bb".repeat(32)));
} else if (scenario === "conflict") {
  const other = { ...r0, result: { ...r0.result, reason: "another reason" } };
  messages.push(line(r0, "aa".repeat(32)), line(other, "bb".repeat(32)));
} else if (scenario === "junk" || scenario === "junk-fresh") {
  for (let i = 0; i < JUNK.count; i++) leftovers.push("{".repeat(JUNK.bytes));
  if (scenario === "junk") messages.push(...current.map((r) => line(r, "bb".repeat(32))));
} else if (scenario !== "fresh-replay") throw new Error(`unknown scenario ${scenario}`);

/** Once the serve's orders are out: the scenario's messages that name the serve's id. */
function ordered(serve: string): string[] {
  if (scenario === "junk-fresh") return current.map((r) => line({ ...r, serve }, "bb".repeat(32)));
  if (scenario !== "fresh-replay") return messages;
  const other = { ...r0, result: { ...r0.result, reason: "another reason" } };
  return [
    line({ ...other, serve: EARLIER }, "bb".repeat(32)),
    line(other, "bb".repeat(32)),
    ...current.map((r) => line({ ...r, serve }, "bb".repeat(32))),
  ];
}

async function publish(lines: readonly string[]): Promise<void> {
  const nc = await connect({ servers: url! });
  const jsm = await jetstreamManager(nc);
  if (lines === leftovers) {
    await jsm.streams.add({ name: RESULTS_STREAM, subjects: ["bitaudit.results.>"] });
  }
  await awaitResultsStream(jsm);
  if (scenario === "junk-fresh" && lines !== leftovers) {
    // Where the serve's reader of the results stream starts (its orders are out: it exists).
    for await (const c of jsm.consumers.list(RESULTS_STREAM)) {
      readers.push({ deliver: c.config.deliver_policy, start: c.config.opt_start_seq ?? null });
    }
  }
  const js = jetstream(nc);
  for (const m of lines) await js.publish(resultSubject(planDigest), m);
  await nc.drain();
}

if (leftovers.length > 0) await publish(leftovers);
const link = await connectNats(url!, "bitaudit-test-coordinator");
const skipped: string[] = [];
const readers: { deliver: string; start: number | null }[] = [];
// `stale-late`, `unreadable` and `fresh-replay` publish once the serve has begun (its orders are
// out); the others at once.
const late = ["stale-late", "unreadable", "fresh-replay", "junk-fresh"].includes(scenario!);
const junk = scenario === "junk" || scenario === "junk-fresh";
let published = late ? Promise.resolve() : publish(messages);
const started = Date.now();
try {
  const served = await servePlan(link, {
    plan,
    planDigest,
    queue: { ackWaitMs: 30_000, maxDeliver: 5 },
    timeoutMs: junk ? 20_000 : 60_000,
    fresh: scenario === "fresh-replay" || scenario === "junk-fresh",
    build: { version: VERSION, manifest: r0.assets["tables/manifest.json"]! },
    open: (text, where) => {
      let message;
      try {
        message = JSON.parse(text);
      } catch {
        return Promise.resolve({ skip: "not JSON" }); // the junk scenarios' messages
      }
      const { worker, line } = message;
      return Promise.resolve({ result: parseItemResult(line, where), worker });
    },
    onSkipped: (_where, why) => skipped.push(why),
    onPublished: (_items, serve) => {
      if (late) published = publish(ordered(serve));
    },
  });
  console.log(JSON.stringify({
    results: served.results.map((r) => ({
      index: r.result.result.index,
      worker: r.worker,
      version: r.result.verifier.version,
    })),
    items: plan.items.length,
    duplicates: served.duplicates,
    stale: served.stale,
    skipped,
    readers,
  }));
} catch (e) {
  console.log(JSON.stringify({
    code: (e as { code?: string }).code ?? String(e),
    message: (e as Error).message,
    skipped,
    ms: Date.now() - started,
  }));
} finally {
  await published;
  await link.close();
}
