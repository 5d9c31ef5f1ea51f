/**
 * The NATS JetStream pool end to end: a private nats-server, `audit serve` and three `bitaudit
 * worker` processes under the narrowest permissions (network to the server only); one worker is
 * killed by its process id in the middle of an item, the item is redelivered to another worker,
 * every result travels signed by the worker key, and the merged attestation equals the
 * single-process audit's (computing as that worker key), byte for byte.
 */
import assert from "node:assert/strict";
import { buildTrustRoot, decodePublicKeyPem } from "../../src/attest/mod.ts";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { startNatsServer } from "./_nats_server.ts";
import { poolPlan } from "./_plan.ts";
import { type PoolProcess, spawnServe, spawnWorker, stopWorker } from "./_pool_processes.ts";

Deno.test("audit serve + 3 workers, one killed mid-item by pid: the merged attestation is the single-process one", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({
    records: 3,
    blocks: 4,
    blockTokens: [128],
    falsify: [{ seq: 1, kind: "fingerprint", bit: 2 }],
  });
  const workers: PoolProcess[] = [];
  try {
    const plan = await poolPlan(f, { k: 7, single: 1 });

    const worker = () => spawnWorker(nats, f);
    const serve = spawnServe(nats, { f, plan, out: "pool", extra: ["--ack-wait", "2"] });
    workers.push(worker());
    // Kill the first worker by pid once it has started an FFN block record (about 0.6 s of work
    // on one thread at 128 tokens, against well under 1 ms from its log line to the kill).
    const started = await workers[0]!.waitFor(/start record (\d+) \(ffn_block\)/);
    Deno.kill(workers[0]!.pid, "SIGKILL");
    const killed = await workers[0]!.done();
    const index = started[1]!;
    assert.doesNotMatch(killed.stdout, new RegExp(`done record ${index} `), "killed mid-item");
    workers.push(worker(), worker());
    const served = await serve.done();
    assert.equal(served.code, 1, served.stdout + served.stderr);
    assert.equal(JSON.parse(served.stdout).verdict, "FAILED");
    for (const name of ["attestation.dsse.json", "report.md"]) {
      assert.deepEqual(
        await Deno.readFile(`${f.dir}/pool/${name}`),
        await Deno.readFile(`${f.dir}/single/${name}`),
        name,
      );
    }
    for (const w of workers.slice(1)) Deno.kill(w.pid, "SIGTERM");
    const logs = await Promise.all(workers.slice(1).map((w) => w.done()));
    for (const l of logs) assert.equal(l.code, 0, l.stderr);
    const redone = logs.map((l) => l.stdout).join("");
    assert.match(redone, new RegExp(`done record ${index} \\(\\w+\\) item \\w+ delivery [2-9]`));
  } finally {
    for (const w of workers) await stopWorker(w);
    await nats.stop();
  }
});

Deno.test("a plan served again right after a serve that timed out is served, not swallowed as a duplicate", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 2, falsify: [] });
  let worker: PoolProcess | undefined;
  try {
    const plan = await poolPlan(f, { k: 2 });
    const serve = (out: string, timeout: string) =>
      spawnServe(nats, { f, plan, out, extra: ["--timeout", timeout] });
    const first = await serve("first", "1").done(); // no worker yet: nothing computed
    assert.equal(first.code, 3, first.stdout + first.stderr);
    // The wait for workers is said on stderr, with the plan's digest (stdout is the verdict only).
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(plan));
    const prefix = Array.from(
      new Uint8Array(digest).subarray(0, 8),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    assert.match(
      first.stderr,
      new RegExp(
        `^published 2 work orders for plan ${prefix}… \\(serve [0-9a-f-]{36}\\); waiting up to 1 s for .*worker`,
        "m",
      ),
    );
    assert.doesNotMatch(first.stderr, /collected/);
    JSON.parse(first.stdout);
    worker = spawnWorker(nats, f);
    const again = await serve("again", "120").done();
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(JSON.parse(again.stdout).verdict, "PASSED");
    assert.match(again.stderr, /^published 2 work orders for plan /m);
    assert.match(
      again.stderr,
      /^collected 1 of 2 results \(50%\)\ncollected 2 of 2 results \(100%\)$/m,
    );
  } finally {
    await stopWorker(worker);
    await nats.stop();
  }
});

Deno.test("a pool worker applies the plan's budget a record, which its work orders carry: the served attestation is the single-process one", async () => {
  const nats = await startNatsServer();
  // GEMMs of 2.62e5 and 1.05e6 products: the second is over the budget.
  const f = await makeAuditFixture({ records: 2, falsify: [] });
  let worker: PoolProcess | undefined;
  try {
    const extra = ["--max-record-products", "1000000"];
    const plan = await poolPlan(f, { k: 2, single: 3, extra });
    worker = spawnWorker(nats, f);
    const served = await spawnServe(nats, { f, plan, out: "pool" }).done();
    assert.equal(served.code, 3, served.stdout + served.stderr);
    for (const name of ["attestation.dsse.json", "report.md"]) {
      assert.deepEqual(
        await Deno.readFile(`${f.dir}/pool/${name}`),
        await Deno.readFile(`${f.dir}/single/${name}`),
        name,
      );
    }
    const md = await Deno.readTextFile(`${f.dir}/pool/report.md`);
    assert.match(md, /1\\.05e\+6 products to recompute, over the audit's budget .* of 1000000/);
  } finally {
    await stopWorker(worker);
    await nats.stop();
  }
});

Deno.test("audit serve --trust-root refuses to sign the results of a worker key the root holds as an inspector key revoked at the verdict's time (WORKER_KEY_REFUSED), and writes nothing", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 2, falsify: [] });
  let worker: PoolProcess | undefined;
  try {
    const plan = await poolPlan(f, { k: 2 });
    const [inspector, workerKey] = await Promise.all(
      [f.pub, f.worker.pub].map(async (p) => decodePublicKeyPem(await Deno.readTextFile(p))),
    );
    const doc = buildTrustRoot([inspector!, workerKey!], { start: "2026-01-01T00:00:00Z" });
    const revoked = { time: "2026-05-01T00:00:00Z", reason: "key compromise" };
    doc.keys = doc.keys.map((k) => k.keyid === f.worker.keyid ? { ...k, revoked } : k);
    const root = `${f.dir}/root.json`;
    await Deno.writeTextFile(root, JSON.stringify(doc));
    worker = spawnWorker(nats, f);
    const served = await spawnServe(nats, { f, plan, out: "pool", extra: ["--trust-root", root] })
      .done();
    assert.equal(served.code, 2, served.stdout + served.stderr);
    assert.match(
      served.stderr,
      new RegExp(
        "^error \\[WORKER_KEY_REFUSED\\]: Cannot sign the verdict: check with the trust root " +
          `given would refuse its workers: worker key ${f.worker.keyid.slice(0, 16)}…, which ` +
          "computed 2 of the 2 results, is an inspector key of your trust root, revoked: key " +
          "compromise at the verdict's time 2026-06-01T12:00:00Z$",
        "m",
      ),
    );
    assert.equal(served.stdout, "");
    await assert.rejects(Deno.stat(`${f.dir}/pool`));
  } finally {
    await stopWorker(worker);
    await nats.stop();
  }
});

Deno.test("a worker run on the inspector's key (a signer of the plan its orders name) refuses each order, hands it back and goes on; a worker on a key of its own completes the serve", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 2, falsify: [] });
  const workers: PoolProcess[] = [];
  try {
    const plan = await poolPlan(f, { k: 2, single: 0 });
    const serve = spawnServe(nats, { f, plan, out: "pool", extra: ["--timeout", "120"] });
    // Without the refusal it would work every order.
    const refusing = spawnWorker(nats, f, { key: f.key });
    workers.push(refusing);
    const line = `worker: refused an order: Cannot use --key '${f.key}': its key ` +
      `${f.keyid.slice(0, 16)}… signed the plan sha256 [0-9a-f]{16}… \\(so this work order ` +
      "says; it is handed back\\), and an inspector's key never doubles as a worker key";
    await refusing.waitFor(new RegExp(`^${line}`, "m"), "stderr");
    // It goes on: an order comes back after its pause and is refused again (a worker that had
    // stopped would end here).
    await refusing.waitFor(new RegExp(`^${line}[^]*^${line}`, "m"), "stderr");
    await stopWorker(refusing);
    assert.doesNotMatch((await refusing.done()).stdout, /done record/);
    workers.push(spawnWorker(nats, f));
    const served = await serve.done();
    assert.equal(served.code, 0, served.stdout + served.stderr);
    assert.deepEqual(
      await Deno.readFile(`${f.dir}/pool/attestation.dsse.json`),
      await Deno.readFile(`${f.dir}/single/attestation.dsse.json`),
    );
  } finally {
    for (const w of workers) await stopWorker(w);
    await nats.stop();
  }
});
