/**
 * `servePlan` against a peer that takes its work orders' message ids, for the pool tests: serves a
 * 6-item plan of a log of kinds this version does not recompute and prints, as one JSON line, how
 * many of the serve's orders the work stream held once the serve said they were out, and the
 * results collected (or the code `servePlan` threw). The server drops a message whose id it saw
 * within its duplicate window. Run as its own process with network access to the server only:
 * `deno run --allow-net=<host:port> --allow-read _serve_preempted.ts <nats url> <scenario>`, where
 * the scenario is `derived` (a peer that only subscribes and publishes sees the serve's first
 * order and publishes junk under the ids `<serve id>.<item digest>` of the others: the order gives
 * the serve's id and the seed, the public log the other items) or `taken` (the random bytes of the
 * order ids made predictable, as if the peer had guessed them: the peer publishes under the first
 * order's id before the serve begins).
 */
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, headers } from "@nats-io/transport-node";
import {
  connectNats,
  resultSubject,
  servePlan,
  WORK_STREAM,
  workSubject,
} from "../../src/pool/mod.ts";
import { ensureStreams } from "../../src/pool/ensure_streams.ts";
import { encodeItemResult, parseItemResult } from "../../src/verify/mod.ts";
import { VERSION } from "../../src/version.ts";
import { futureAudit } from "../verify/_future_audit.ts";

const [url, scenario] = Deno.args;
const { plan, planDigest, results: current } = await futureAudit(6, {
  auditId: "preempted",
  randomness: "02".repeat(32),
  round: 3,
  k: 6,
});

const peer = await connect({ servers: url! });
const queue = { ackWaitMs: 30_000, maxDeliver: 5 };
if (scenario === "derived") {
  peer.subscribe(workSubject(planDigest), {
    max: 1,
    callback: (_err, m) => {
      const { serve, item } = JSON.parse(m.string());
      for (const other of plan.items) {
        if (other.item === item.item) continue;
        const h = headers();
        h.set("Nats-Msg-Id", `${serve}.${other.item}`);
        peer.publish(m.subject, "x", { headers: h });
      }
    },
  });
  await peer.flush();
} else if (scenario === "taken") {
  const seven = "07".repeat(16);
  await ensureStreams(await jetstreamManager(peer), queue);
  await jetstream(peer).publish(workSubject(planDigest), "x", { msgID: seven });
  const random = crypto.getRandomValues.bind(crypto);
  Object.defineProperty(crypto, "getRandomValues", {
    value: (a: ArrayBufferView) =>
      a instanceof Uint8Array && a.length === 16 ? a.fill(7) : random(a),
  });
} else throw new Error(`unknown scenario ${scenario}`);

/** The orders of the serve the work stream holds, then every item's result published. */
async function collect(serve: string): Promise<number> {
  const jsm = await jetstreamManager(peer);
  const { state } = await jsm.streams.info(WORK_STREAM);
  let queued = 0;
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(WORK_STREAM, { seq }).catch(() => null);
    if (m?.subject === workSubject(planDigest) && m.string().includes(`"serve":"${serve}"`)) {
      queued++;
    }
  }
  const js = jetstream(peer);
  for (const r of current) {
    const worker = "bb".repeat(32);
    await js.publish(
      resultSubject(planDigest),
      JSON.stringify({ worker, line: encodeItemResult(r).trimEnd() }),
    );
  }
  return queued;
}

const link = await connectNats(url!, "bitaudit-test-coordinator");
let queued: Promise<number> = Promise.resolve(-1);
try {
  const served = await servePlan(link, {
    plan,
    planDigest,
    queue,
    timeoutMs: 60_000,
    build: { version: VERSION, manifest: current[0]!.assets["tables/manifest.json"]! },
    open: (text, where) => {
      const { worker, line } = JSON.parse(text);
      return Promise.resolve({ result: parseItemResult(line, where), worker });
    },
    onPublished: (_items, serve) => {
      queued = collect(serve);
    },
  });
  console.log(JSON.stringify({
    items: plan.items.length,
    queued: await queued,
    results: served.results.length,
  }));
} catch (e) {
  const { code, message } = e as { code?: string; message: string };
  console.log(JSON.stringify({ code: code ?? String(e), message }));
} finally {
  await link.close();
  await peer.close();
}
