/**
 * The pool when the server fails it or leaves results behind: `audit serve` and a worker that
 * lose the server stop with NATS_SERVER (the serve signs nothing: missing items are not the
 * server's verdict), a server without JetStream is named as such, `--fresh` skips what earlier
 * serves left on the server (and their results replayed while it runs), and `--reverify` without
 * a log is refused before any order is out.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { REPO_ROOT } from "../cli/_run.ts";
import { sha256Hex } from "../../src/sha256_hex.ts";
import { type NatsServer, runPoolClient, startNatsServer } from "./_nats_server.ts";
import { POOL_TIME as TIME, poolPlan } from "./_plan.ts";
import { spawnBitaudit as spawn } from "./_spawn.ts";

type Child = ReturnType<typeof spawn>;

async function _end(children: readonly Child[]): Promise<void> {
  for (const c of children) {
    try {
      Deno.kill(c.pid, "SIGKILL");
    } catch { /* already ended */ }
    await c.done();
  }
}

/** A pool of one fixture's plan on one server. */
interface Pool {
  readonly f: Awaited<ReturnType<typeof makeAuditFixture>>;
  readonly plan: string;
  readonly nats: NatsServer;
}

/** What every process of the pool may read (the checkout, the fixture) and reach (the server). */
function _perms({ f, nats }: Pool): [read: string, net: string] {
  return [`--allow-read=${REPO_ROOT},${f.dir}`, `--allow-net=${nats.hostPort}`];
}

/** `audit serve --json` of the plan, writing only into its `out` folder under the fixture's. */
function _serve(pool: Pool, out: string, more: readonly string[]): Child {
  const { f, plan, nats } = pool;
  const [read, net] = _perms(pool);
  return spawn([
    "audit",
    "serve",
    ...["--plan", plan, "--nats", nats.url, "--key", f.key, "--worker-pub", f.worker.pub],
    ...["--out", `${f.dir}/${out}`, "--time", TIME, "--json", ...more],
  ], [read, `--allow-write=${f.dir}/${out}`, net]);
}

/** A worker of the pool, with the fixture's log and worker key. */
function _worker(pool: Pool, more: readonly string[]): Child {
  const { f, nats } = pool;
  return spawn(
    ["worker", "--nats", nats.url, "--log", f.log, "--key", f.worker.key, ...more],
    _perms(pool),
  );
}

function _exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}

Deno.test("audit serve and a worker that lose the server stop with NATS_SERVER; the serve signs nothing", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 2, falsify: [] });
  const children: Child[] = [];
  let stopped = false;
  try {
    const pool = { f, plan: await poolPlan(f, { k: 2 }), nats };
    const [read, net] = _perms(pool);
    const out = `${f.dir}/lost`;
    const serve = _serve(pool, "lost", ["--timeout", "600"]);
    children.push(serve);
    await serve.waitFor(/^published 2 work orders/m, "stderr");
    // The worker holds another audit's log: it hands the orders back (so the serve stays
    // waiting), which shows it is connected when the server goes.
    const other = await makeAuditFixture({ records: 1, falsify: [] });
    const worker = spawn(
      ["worker", "--nats", nats.url, "--log", other.log, "--key", f.worker.key, "--threads", "1"],
      [`${read},${other.dir}`, net],
    );
    children.push(worker);
    await worker.waitFor(/worker: refused an order/, "stderr");
    await nats.stop();
    stopped = true;
    const [s, w] = await Promise.all([serve.done(), worker.done()]);
    assertCliCode(s.stderr, "NATS_SERVER");
    assert.equal(s.code, 2, s.stderr);
    assert.match(s.stderr, /the connection closed with \d of 2 results collected/);
    assert.equal(s.stdout, "", "no verdict");
    assert.equal(await _exists(`${out}/attestation.dsse.json`), false, "nothing signed");
    assertCliCode(w.stderr, "NATS_SERVER");
    assert.equal(w.code, 2, w.stderr);
    assert.match(w.stderr, /Cannot take work orders from NATS at .*the connection closed/);
  } finally {
    await _end(children);
    if (!stopped) await nats.stop();
  }
});

Deno.test("audit serve and a worker on a server without JetStream say so (NATS_SERVER), not an internal error", async () => {
  const nats = await startNatsServer(undefined, { jetstream: false });
  const f = await makeAuditFixture({ records: 1, falsify: [] });
  try {
    const pool = { f, plan: await poolPlan(f, { k: 1 }), nats };
    const s = await _serve(pool, "nojs", ["--timeout", "5"]).done();
    assertCliCode(s.stderr, "NATS_SERVER");
    assert.equal(s.code, 2, s.stderr);
    assert.match(s.stderr, /Cannot set up the JetStream streams on NATS: /);
    const w = await _worker(pool, ["--max-idle", "5"]).done();
    assertCliCode(w.stderr, "NATS_SERVER");
    assert.equal(w.code, 2, w.stderr);
    assert.match(w.stderr, /the server offers no JetStream/);
  } finally {
    await nats.stop();
  }
});

Deno.test("audit serve --fresh skips the results earlier serves left on the server; without it they are read", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 2, falsify: [] });
  const children: Child[] = [];
  try {
    const pool = { f, plan: await poolPlan(f, { k: 2 }), nats };
    const worker = _worker(pool, ["--threads", "1"]);
    children.push(worker);
    const first = await _serve(pool, "first", ["--timeout", "120"]).done();
    assert.equal(first.code, 0, first.stderr);
    Deno.kill(worker.pid, "SIGTERM");
    await worker.done();
    // No worker now: the stored results alone can answer the plan.
    const again = await _serve(pool, "again", ["--timeout", "3"]).done();
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).verdict, "PASSED");
    const fresh = await _serve(pool, "fresh", ["--timeout", "3", "--fresh"]).done();
    assert.equal(fresh.code, 3, fresh.stderr);
    assert.equal(JSON.parse(fresh.stdout).verdict, "INCONCLUSIVE");
    assert.match(
      fresh.stderr,
      /^--fresh: skipped [2-9]\d* results stored before this serve began$/m,
    );
  } finally {
    await _end(children);
    await nats.stop();
  }
});

/**
 * A serve stopped by a worker whose blob folder lacks the records' inputs (it FAILs them on a
 * committed input, which the serve's re-verification refuses: its results stay on the server),
 * then a `--fresh` serve during which a peer with no key replays those stored FAILs (signed by the
 * same worker key) ahead of the mended worker's results: the second serve's run, its two
 * replayed results skipped.
 */
async function _freshAfterReplay(falsify: unknown[]) {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 2, falsify });
  const children: Child[] = [];
  try {
    const pool = { f, plan: await poolPlan(f, { k: 2 }), nats };
    const serve = (out: string, more: string[]) =>
      _serve(pool, out, ["--timeout", "120", "--log", f.log, ...more]);
    const worker = (blobs: string) => _worker(pool, ["--blobs", blobs, "--threads", "1"]);
    await Deno.mkdir(`${f.dir}/no-blobs`);
    const broken = worker(`${f.dir}/no-blobs`);
    children.push(broken);
    const first = await serve("first", []).done();
    assert.equal(first.code, 2, first.stderr);
    assertCliCode(first.stderr, "MERGE_REVERIFY_MISMATCH");
    assert.match(first.stderr, /serve again with --fresh once the worker is mended/);
    Deno.kill(broken.pid, "SIGTERM");
    await broken.done();
    const second = serve("second", ["--fresh"]);
    children.push(second);
    await second.waitFor(/^published 2 work orders/m, "stderr");
    const digest = sha256Hex(await Deno.readFile(pool.plan));
    const replay = await runPoolClient(nats, "_replay_results.ts", { args: [digest] });
    assert.deepEqual(JSON.parse(replay), { replayed: 2 });
    children.push(worker(`${f.dir}/log/blobs`));
    const s = await second.done();
    const skipped = s.stderr.match(/^skipped BITAUDIT_RESULTS #\d+: .*$/gm) ?? [];
    assert.equal(skipped.length, 2, s.stderr);
    for (const line of skipped) {
      assert.match(
        line,
        /'s result for record \d answers another serve \([0-9a-f-]{36}\), not this one/,
      );
    }
    return s;
  } finally {
    await _end(children);
    await nats.stop();
  }
}

Deno.test("audit serve --fresh is not stopped by an earlier serve's FAIL replayed after it began by a keyless peer: the mended worker's results are the verdict", async () => {
  const s = await _freshAfterReplay([]);
  assert.equal(s.code, 0, s.stderr);
  assert.equal(JSON.parse(s.stdout).verdict, "PASSED");
});

Deno.test("audit serve --fresh on a log with a falsified record, the earlier serve's FAILs replayed: the mended worker's fingerprint FAIL is the verdict (FAILED), not a replayed one", async () => {
  // The replay test had run on an honest log only, where no current result is a FAIL.
  const s = await _freshAfterReplay([{ seq: 1, kind: "fingerprint", bit: 3 }]);
  assert.equal(s.code, 1, s.stderr);
  const v = JSON.parse(s.stdout);
  assert.equal(v.verdict, "FAILED");
  const statuses = v.results.map((r: { status: string; finding?: string }) =>
    `${r.status} ${r.finding ?? ""}`.trim()
  );
  assert.deepEqual(statuses.toSorted(), ["FAIL fingerprint", "PASS"], s.stdout);
});

Deno.test("audit serve --reverify with no log is refused before any work order is published", async () => {
  const nats = await startNatsServer();
  const f = await makeAuditFixture({ records: 1, falsify: [] });
  try {
    const pool = { f, plan: await poolPlan(f, { k: 1 }), nats };
    const s = await _serve(pool, "rv", [
      ...["--timeout", "600", "--reverify", "1", "--log", `${f.dir}/no-such-claims.jsonl`],
    ]).done();
    assert.equal(s.code, 2, s.stderr);
    assertCliCode(s.stderr, "INPUT_MISSING");
    assert.doesNotMatch(s.stderr, /published/);
    assert.equal(await _exists(`${f.dir}/rv`), false, "no output folder left");
  } finally {
    await nats.stop();
  }
});
