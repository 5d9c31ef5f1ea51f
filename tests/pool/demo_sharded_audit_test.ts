/**
 * The demo's own log (with falsified records whose FAILs carry first differences), audited with
 * k = 120 against the real drand quicknet round 123, the prover's signed checkpoint and a
 * timestamped announcement, three ways: single-process `audit`; `audit plan` + 3 `audit work`
 * shards + `audit merge`; and `audit serve` with 3 NATS workers, one killed mid-item. Same
 * inspector key, worker key and time: the three attestations are byte-identical and FAILED.
 */
import assert from "node:assert/strict";
import { createLocalTsa, decodeBase64 } from "../../src/attest/mod.ts";
import { parseClaimLog } from "../../src/claims/mod.ts";
import { announceAudit } from "../../src/cli/commands/announce.ts";
import { runProver } from "../../src/cli/commands/claims.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { REPO_ROOT, runBitaudit } from "../cli/_run.ts";
import { payloadOf } from "../cli/_signed_results.ts";
import { encodeAuditPlan, parseAuditPlan, planAudit } from "../../src/verify/mod.ts";
import { tempDir } from "../_temp.ts";
import { startNatsServer } from "./_nats_server.ts";
import { spawnBitaudit } from "./_spawn.ts";

const TIME = "2026-06-01T12:00:00Z";
const K = "120";
const DRAND = `${REPO_ROOT}/demo/drand`;
const dir = await tempDir({ prefix: "bitaudit-demo-shards-" });
const log = `${dir}/log/claims.jsonl`;
await runProver(`${REPO_ROOT}/demo/scenario.json`, {
  out: `${dir}/log`,
  progress: false,
  threads: 2,
});
const prover = await generateKeys(`${dir}/prover`);
const inspector = await generateKeys(`${dir}/inspector`);
const worker = await generateKeys(`${dir}/worker`);
const checkpoint = `${dir}/checkpoint.txt`;
const cp = await runBitaudit([
  "claims",
  "checkpoint",
  "--log",
  log,
  "--key",
  prover.privateKey,
  "--origin",
  "bitaudit.example/demo-prover/log",
  "--out",
  checkpoint,
  "--time",
  "2023-08-23T15:15:00Z",
]);
assert.equal(cp.code, 0, cp.stderr);
const announcement = `${dir}/announcement.dsse.json`;
await announceAudit({
  checkpoint,
  proverPub: prover.publicKey,
  chain: `${DRAND}/quicknet-info.json`,
  round: "123",
  k: K,
  keys: [inspector.privateKey],
  out: announcement,
  time: "2023-08-23T15:15:10Z",
});
const tsa = await createLocalTsa({
  name: "test TSA",
  notBefore: Date.parse("2023-01-01T00:00:00Z"),
  notAfter: Date.now() + 86_400_000,
});
const env = JSON.parse(await Deno.readTextFile(announcement));
await Deno.writeFile(
  `${dir}/announcement.tsr`,
  await tsa.stamp(decodeBase64(env.signatures[0].sig, { alphabet: "any" }), {
    time: Date.parse("2023-08-23T15:15:10Z"),
  }),
);
const trust = [
  "--beacon",
  `${DRAND}/quicknet-round-123.json`,
  "--chain",
  `${DRAND}/quicknet-info.json`,
  "--checkpoint",
  checkpoint,
  "--prover-pub",
  prover.publicKey,
  "--announcement",
  announcement,
  "--announcement-timestamp",
  `${dir}/announcement.tsr`,
];
const single = await runBitaudit([
  "audit",
  "--log",
  log,
  ...trust,
  "--k",
  K,
  "--key",
  inspector.privateKey,
  "--worker-key",
  worker.privateKey,
  "--out",
  `${dir}/single`,
  "--time",
  TIME,
  "--json",
]);
assert.equal(single.code, 1, single.stderr);
const plan = `${dir}/log/plan.json`;
const planned = await runBitaudit([
  "audit",
  "plan",
  "--log",
  log,
  ...trust,
  "--key",
  inspector.privateKey,
  "--k",
  K,
  "--out",
  plan,
]);
assert.equal(planned.code, 0, planned.stderr);
const signed = ["--key", inspector.privateKey, "--worker-pub", worker.publicKey, "--time", TIME];
const sameAsSingle = async (out: string) => {
  for (const name of ["attestation.dsse.json", "report.md"]) {
    assert.deepEqual(
      await Deno.readFile(`${dir}/${out}/${name}`),
      await Deno.readFile(`${dir}/single/${name}`),
      `${out}/${name}`,
    );
  }
};

Deno.test("demo log, k = 120: plan + 3 shards + merge sign the single-process FAILED attestation byte for byte; reruns and resumes work", async () => {
  const res = (i: number) => `${dir}/results-${i}.jsonl`;
  const shard = (i: number, out = res(i)) =>
    runBitaudit([
      "audit",
      "work",
      "--plan",
      plan,
      "--shard",
      `${i}/3`,
      "--key",
      worker.privateKey,
      "--threads",
      "1",
      "--out",
      out,
    ]);
  for (const r of await Promise.all([0, 1, 2].map((i) => shard(i)))) {
    assert.equal(r.code, 0, r.stderr);
  }
  const lines = (await Promise.all([0, 1, 2].map((i) => Deno.readTextFile(res(i)))))
    .join("").trimEnd().split("\n");
  assert.equal(lines.length, 120);
  const fails = lines.map(payloadOf).filter((p) => p.result.status === "FAIL");
  assert.ok(fails.some((p) => p.result.firstDifference !== null), "a FAIL with a first difference");
  const merged = await runBitaudit([
    "audit",
    "merge",
    "--plan",
    plan,
    ...[0, 1, 2].map(res),
    ...signed,
    "--out",
    `${dir}/merged`,
    "--json",
  ]);
  assert.equal(merged.code, 1, merged.stderr);
  assert.equal(JSON.parse(merged.stdout).verdict, "FAILED");
  await sameAsSingle("merged");
  // A finished shard rerun is a no-op; a shard killed after its first result resumes.
  const again = await shard(1);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already holds/);
  const full = (await Deno.readTextFile(res(2))).split("\n");
  await Deno.writeTextFile(
    `${dir}/resumed-2.jsonl.partial`,
    `${full[0]}\n${full[1]!.slice(0, 50)}`,
  );
  const resumed = await shard(2, `${dir}/resumed-2.jsonl`);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /1 kept from an interrupted run/);
  const withResumed = await runBitaudit([
    "audit",
    "merge",
    "--plan",
    plan,
    res(0),
    res(1),
    `${dir}/resumed-2.jsonl`,
    ...signed,
    "--out",
    `${dir}/merged-resumed`,
  ]);
  assert.equal(withResumed.code, 1, withResumed.stderr);
  await sameAsSingle("merged-resumed");
  const estimate = await runBitaudit(["audit", "estimate", "--plan", plan, res(0), "--json"]);
  assert.equal(estimate.code, 0, estimate.stderr);
});

Deno.test("demo log, k = 120: the NATS pool with one worker killed mid-item signs the single-process attestation byte for byte", async () => {
  const nats = await startNatsServer();
  const workers: ReturnType<typeof spawnBitaudit>[] = [];
  try {
    const net = `--allow-net=${nats.hostPort}`;
    const read = `--allow-read=${REPO_ROOT},${dir}`;
    const start = () =>
      spawnBitaudit(
        ["worker", "--nats", nats.url, "--log", log, "--key", worker.privateKey, "--threads", "1"],
        [read, net],
      );
    const serve = spawnBitaudit(
      [
        "audit",
        "serve",
        "--plan",
        plan,
        "--nats",
        nats.url,
        ...signed,
        "--out",
        `${dir}/pool`,
        "--ack-wait",
        "2",
        "--json",
      ],
      [read, `--allow-write=${dir}/pool`, net],
    );
    workers.push(start());
    // The served sequences replay whole serving histories: the longest items of the demo log.
    const started = await workers[0]!.waitFor(/start record (\d+) \(sequence\)/);
    Deno.kill(workers[0]!.pid, "SIGKILL");
    const killed = await workers[0]!.done();
    assert.doesNotMatch(killed.stdout, new RegExp(`done record ${started[1]} `), "killed mid-item");
    workers.push(start(), start());
    const served = await serve.done();
    assert.equal(served.code, 1, served.stdout + served.stderr);
    assert.equal(JSON.parse(served.stdout).verdict, "FAILED");
    await sameAsSingle("pool");
    for (const w of workers.slice(1)) Deno.kill(w.pid, "SIGTERM");
    for (const l of await Promise.all(workers.slice(1).map((w) => w.done()))) {
      assert.equal(l.code, 0, l.stderr);
    }
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

Deno.test("demo log: a plan edited on the shared volume (another randomness, a ground audit id, the announcement dropped; re-derived, canonical, its signature kept) is PLAN_SIGNATURE at merge, nothing written", async () => {
  const original = parseAuditPlan(await Deno.readTextFile(plan), plan);
  const claims = parseClaimLog(await Deno.readTextFile(log));
  const same = {
    auditId: original.auditId,
    randomness: original.beacon.randomness,
    round: original.beacon.round,
    k: original.items.length,
    evidence: original.evidence,
  };
  const { announcement: _a, announcementTimestamp: _t, ...unannounced } = original.evidence;
  const edits: [string, Parameters<typeof planAudit>[1]][] = [
    ["randomness", { ...same, randomness: "cd".repeat(32) }],
    ["audit-id", { ...same, auditId: "announced-00000000000000000000000000000000" }],
    // Review h102: without its announcement, any audit id (and k) passes the evidence checks.
    ["unannounced", {
      ...same,
      auditId: `audit-${original.logRoot.slice(0, 16)}-r123-1`,
      k: 3,
      evidence: unannounced,
    }],
  ];
  for (const [name, inputs] of edits) {
    const forged = `${dir}/log/plan-${name}.json`;
    const edited = { ...planAudit(claims, inputs), signatures: original.signatures };
    await Deno.writeTextFile(forged, encodeAuditPlan(edited));
    const out = `${dir}/forged-${name}`;
    const r = await runBitaudit([
      "audit",
      "merge",
      "--plan",
      forged,
      `${dir}/results-0.jsonl`,
      ...signed,
      "--out",
      out,
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error \[PLAN_SIGNATURE\]/, name);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  }
});
