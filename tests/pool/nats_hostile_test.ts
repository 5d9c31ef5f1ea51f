/**
 * A peer on the NATS server with no key and no credentials cannot stop an audit: an unsigned
 * message on the plan's results subject is skipped and named by `audit serve`, a forged work order
 * of another log is handed back by the worker, and a message over the work stream's limit (which
 * the peer lifted, and the serve set back, saying so) is refused unread; the worker goes on and
 * the audit signs as usual.
 */
import assert from "node:assert/strict";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { REPO_ROOT } from "../cli/_run.ts";
import { runPoolClient, startNatsServer } from "./_nats_server.ts";
import { poolPlan } from "./_plan.ts";
import { spawnBitaudit as spawn } from "./_spawn.ts";

Deno.test("audit serve and a worker ride out an unsigned result, a forged order and an oversized message from a keyless peer", async () => {
  // A server that takes payloads larger than the streams' limit: only that limit bounds them.
  const nats = await startNatsServer("max_payload: 4MB");
  const f = await makeAuditFixture({ records: 3, falsify: [] });
  const workers: ReturnType<typeof spawn>[] = [];
  try {
    const plan = await poolPlan(f, { k: 3 });
    const net = `--allow-net=${nats.hostPort}`;
    // The peer goes first: its forged order is queued ahead of the serve's.
    await runPoolClient(nats, "_hostile_publish.ts", { args: [plan], read: [f.dir] });
    const serve = spawn([
      "audit",
      "serve",
      "--plan",
      plan,
      "--nats",
      nats.url,
      "--key",
      f.key,
      "--worker-pub",
      f.worker.pub,
      "--out",
      `${f.dir}/pool`,
      "--timeout",
      "120",
      "--json",
    ], [`--allow-read=${REPO_ROOT},${f.dir}`, `--allow-write=${f.dir}/pool`, net]);
    workers.push(spawn(
      ["worker", "--nats", nats.url, "--log", f.log, "--key", f.worker.key, "--threads", "1"],
      [`--allow-read=${REPO_ROOT},${f.dir}`, net],
    ));
    const served = await serve.done();
    assert.equal(served.code, 0, served.stdout + served.stderr);
    assert.equal(JSON.parse(served.stdout).verdict, "PASSED");
    assert.match(
      served.stderr,
      /^skipped BITAUDIT_RESULTS #1: Cannot read result .*not strict JSON/m,
    );
    // The peer's lifted limit is set back, and said (the larger message stays stored).
    assert.match(served.stderr, /^NATS: reset BITAUDIT_WORK max_msg_size: 2228224, now 1114112$/m);
    // The worker handed the forged order back and is still serving (the orders may come in any
    // order: wait for both the refusal and a record done).
    await workers[0]!.waitFor(/done record \d+/);
    await workers[0]!.waitFor(/worker: refused an order: Cannot work/, "stderr");
    await workers[0]!.waitFor(/worker: refused an order: Cannot read/, "stderr");
    Deno.kill(workers[0]!.pid, "SIGTERM");
    const w = await workers[0]!.done();
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stderr, /worker: refused an order: Cannot work on record \d+: the worker's log/);
    assert.match(
      w.stderr,
      /worker: refused an order: Cannot read a work order: it is 1114113 bytes, more than the 1114112 /,
    );
  } finally {
    for (const w of workers) {
      try {
        Deno.kill(w.pid, "SIGKILL");
      } catch { /* already ended */ }
      await w.done();
    }
    await nats.stop();
  }
});
