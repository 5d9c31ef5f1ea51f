/**
 * A worker whose result or ack the server refuses (any client the server lets in can shrink the
 * results stream's message limit, or delete the workers' consumer, which leaves an ack no one to
 * take it) says so for that item and goes on, where it had stopped with an internal error: a
 * refused result hands the order back, which is delivered again and answered once the limit is
 * back; a refused ack leaves the published result, which completes the serve. A worker whose
 * pulls the server refuses (a peer can change the consumer's pull limits) pauses between tries.
 */
import assert from "node:assert/strict";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { REPO_ROOT } from "../cli/_run.ts";
import { type NatsServer, runPoolClient, startNatsServer } from "./_nats_server.ts";
import { POOL_TIME, poolPlan } from "./_plan.ts";
import { spawnBitaudit as spawn } from "./_spawn.ts";

type Child = ReturnType<typeof spawn>;

/**
 * A one-record audit served on a fresh server (with `config`, nats-server's syntax), with a
 * worker started by `run`.
 */
async function _pool(
  run: (p: { nats: NatsServer; serve: Child; worker: () => Child }) => Promise<void>,
  config?: string,
): Promise<void> {
  const nats = await startNatsServer(config);
  const f = await makeAuditFixture({ records: 1, falsify: [] });
  const children: Child[] = [];
  const perms = [`--allow-read=${REPO_ROOT},${f.dir}`, `--allow-net=${nats.hostPort}`];
  try {
    const plan = await poolPlan(f, { k: 1 });
    const serve = spawn([
      "audit",
      "serve",
      ...["--plan", plan, "--nats", nats.url, "--key", f.key, "--worker-pub", f.worker.pub],
      ...["--out", `${f.dir}/out`, "--time", POOL_TIME, "--timeout", "120", "--json"],
    ], [...perms, `--allow-write=${f.dir}/out`]);
    children.push(serve);
    const worker = () => {
      const w = spawn(
        ["worker", "--nats", nats.url, "--log", f.log, "--key", f.worker.key, "--threads", "1"],
        perms,
      );
      children.push(w);
      return w;
    };
    await run({ nats, serve, worker });
  } finally {
    for (const c of children) {
      try {
        Deno.kill(c.pid, "SIGKILL");
      } catch { /* already ended */ }
      await c.done();
    }
    await nats.stop();
  }
}

/** Stops the worker as its supervisor would and returns its exit. */
async function _stop(w: Child) {
  Deno.kill(w.pid, "SIGTERM");
  const out = await w.done();
  assert.equal(out.code, 0, out.stderr);
  return out;
}

Deno.test("a worker whose result the server refuses (a peer shrank the results' message limit) says so, hands the order back and answers it once the limit is back", async () => {
  await _pool(async ({ nats, serve, worker }) => {
    await serve.waitFor(/^published 1 work orders/m, "stderr");
    const shrunk = await runPoolClient(nats, "_results_limit.ts", { args: ["shrink"] });
    assert.deepEqual(JSON.parse(shrunk), { max_msg_size: 200 });
    const w = worker();
    await w.waitFor(/: Cannot publish its result on NATS: .*; the order is handed back/, "stderr");
    await runPoolClient(nats, "_results_limit.ts", { args: ["restore"] });
    const s = await serve.done();
    assert.equal(s.code, 0, s.stderr);
    assert.equal(JSON.parse(s.stdout).verdict, "PASSED");
    await w.waitFor(/done record 0 .* delivery 2/);
    const out = await _stop(w);
    assert.match(
      out.stderr,
      /^worker: record 0 \(gemm\) item [0-9a-f]{16} delivery 1: Cannot publish its result on NATS: message size exceeds maximum allowed; the order is handed back, to be delivered again after 5 s$/m,
    );
    assert.match(out.stdout, /^worker: 1 item done$/m);
  });
});

/**
 * A server whose anonymous clients may publish anything but an ack: the worker's ack is refused
 * at once, as one is when a peer has deleted the consumer (no one answers it) but without racing
 * the worker's item (a GEMM record takes it some 10 ms). The serve acks nothing.
 */
const NO_ACKS = `authorization {
  users = [{ user: "anyone", password: "unused", permissions: { publish: { allow: [">"], deny: ["$JS.ACK.>"] } } }]
}
no_auth_user: "anyone"
`;

Deno.test("a worker whose ack the server does not take says so and goes on; its published result completes the serve", async () => {
  await _pool(async ({ serve, worker }) => {
    await serve.waitFor(/^published 1 work orders/m, "stderr");
    const w = worker();
    const s = await serve.done();
    assert.equal(s.code, 0, s.stderr);
    assert.equal(JSON.parse(s.stdout).verdict, "PASSED");
    await w.waitFor(/its result is published, but NATS did not take the ack/, "stderr");
    const out = await _stop(w);
    assert.match(
      out.stderr,
      /^worker: record 0 \(gemm\) item [0-9a-f]{16} delivery 1: its result is published, but NATS did not take the ack \(Permissions Violation for Publish to .*\): the order may be delivered again/m,
    );
    assert.match(out.stdout, /^worker: 1 item done$/m);
  }, NO_ACKS);
});

Deno.test("a worker whose pulls the server refuses (a peer set the consumer's longest pull to 1 ms) tries again a few times a second, not thousands, and takes the order once pulls are allowed", async () => {
  await _pool(async ({ nats, serve, worker }) => {
    await serve.waitFor(/^published 1 work orders/m, "stderr");
    const refused = await runPoolClient(nats, "_workers_pulls.ts", { args: ["refuse"] });
    assert.deepEqual(JSON.parse(refused), { max_expires: 1_000_000 });
    const w = worker();
    const { requests } = JSON.parse(
      await runPoolClient(nats, "_workers_pulls.ts", { args: ["count"] }),
    );
    // About 8 pulls and look-ups a second; it had been thousands.
    assert.ok(requests < 200, `${requests} consumer requests in 3 s`);
    await runPoolClient(nats, "_workers_pulls.ts", { args: ["allow"] });
    const s = await serve.done();
    assert.equal(s.code, 0, s.stderr);
    assert.equal(JSON.parse(s.stdout).verdict, "PASSED");
    await w.waitFor(/done record 0 /);
    const out = await _stop(w);
    assert.match(out.stdout, /^worker: 1 item done$/m);
  });
});
