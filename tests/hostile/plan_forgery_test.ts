/**
 * Attacks on the plan file by whoever can write the volume it is shared on between `audit plan`
 * and `audit merge` / `audit serve`: the plan fixes the audit id, k and the evidence behind the
 * sample, and the plan's own evidence cannot say it was left out. Review h102: a plan rewritten
 * with its announcement dropped and an audit id ground until the sample missed the falsified
 * records was recomputed by the workers and merged into a signed PASSED. The plan is now signed by
 * the inspector (`audit plan --key`), and merge and serve refuse, before any result is read and
 * with nothing written, a plan that a key they sign the verdict with did not sign.
 */
import assert from "node:assert/strict";
import { loadSigningKey } from "../../src/cli/load_inputs.ts";
import { signAuditPlan } from "../../src/attest/mod.ts";
import { parseClaimLog } from "../../src/claims/mod.ts";
import { announceAudit } from "../../src/cli/commands/announce.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import type { CliErrorCode } from "../../src/cli/exit_codes.ts";
import {
  type AuditPlan,
  encodeAuditPlan,
  MAX_PLAN_SIGNATURES,
  parseAuditPlan,
  planAudit,
} from "../../src/verify/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { type CliRun, runBitaudit } from "../cli/_run.ts";

const TIME = "2026-06-01T12:00:00Z";
const DRAND = new URL("../../demo/drand/", import.meta.url).pathname;
const FALSIFIED = [3, 7];
const f = await makeAuditFixture({
  records: 12,
  falsify: FALSIFIED.map((seq) => ({ seq, kind: "fingerprint", bit: 5 })),
});
const [prover, stranger] = await Promise.all([
  generateKeys(`${f.dir}/prover`),
  generateKeys(`${f.dir}/stranger`),
]);
const checkpoint = `${f.dir}/checkpoint.txt`;
await _ok(["claims", "checkpoint", "--log", f.log, "--key", prover.privateKey, "--origin"]
  .concat(["bitaudit.example/prover/log", "--out", checkpoint, "--time", "2023-08-23T15:00:00Z"]));
const announcement = `${f.dir}/announcement.dsse.json`;
await announceAudit({
  checkpoint,
  proverPub: prover.publicKey,
  chain: `${DRAND}quicknet-info.json`,
  round: "123",
  k: "6",
  keys: [f.key],
  out: announcement,
  time: "2023-08-23T15:15:10Z",
});
/** The announced plan's flags, without `--key` and `--out`. */
const PLAN_FLAGS = [
  ...["--log", f.log, "--beacon", `${DRAND}quicknet-round-123.json`],
  ...["--chain", `${DRAND}quicknet-info.json`, "--checkpoint", checkpoint],
  ...["--prover-pub", prover.publicKey, "--announcement", announcement, "--k", "6"],
];
// Plans lie beside claims.jsonl: `audit work` reads the log from the plan's folder.
const PLAN = `${f.dir}/log/plan.json`;
await _ok(["audit", "plan", ...PLAN_FLAGS, "--key", f.key, "--out", PLAN]);
const original = parseAuditPlan(await Deno.readTextFile(PLAN), PLAN);
const claims = parseClaimLog(await Deno.readTextFile(f.log));

/** Runs a command that must succeed. */
async function _ok(args: string[]): Promise<CliRun> {
  const r = await runBitaudit(args);
  assert.equal(r.code, 0, r.stderr);
  return r;
}

/** Writes a plan beside the log and computes all of it as the fixture's worker. */
async function _worked(name: string, plan: AuditPlan): Promise<{ plan: string; results: string }> {
  const path = `${f.dir}/log/${name}.json`;
  await Deno.writeTextFile(path, encodeAuditPlan(plan));
  const results = `${f.dir}/results-${name}.jsonl`;
  await _ok(["audit", "work", "--plan", path, "--shard", "0/1", "--key", f.worker.key]
    .concat(["--out", results, "--threads", "1"]));
  return { plan: path, results };
}

/** `audit merge` of a plan and results files into `<fixture>/merged-<name>`. */
async function _merge(
  name: string,
  o: { plan: string; results: readonly string[]; keys?: readonly string[]; json?: boolean },
): Promise<CliRun> {
  return await runBitaudit([
    ...["audit", "merge", "--plan", o.plan, ...o.results, "--key", ...(o.keys ?? [f.key])],
    ...["--worker-pub", f.worker.pub, "--out", `${f.dir}/merged-${name}`, "--time", TIME],
    ...(o.json === false ? [] : ["--json"]),
  ]);
}

/**
 * `audit serve` of a plan into `<fixture>/served-<name>`, to a NATS server that is not there: the
 * plan is refused before the coordinator connects (the command has no network permission).
 */
async function _serve(name: string, plan: string, keys: readonly string[] = [f.key]) {
  return await runBitaudit([
    ...["audit", "serve", "--plan", plan, "--nats", "nats://127.0.0.1:1", "--key", ...keys],
    ...["--worker-pub", f.worker.pub, "--out", `${f.dir}/served-${name}`, "--time", TIME],
  ]);
}

/** Asserts a refusal: exit 2, one `error [code]: ` line, no verdict, no output folder. */
async function _refused(run: CliRun, code: CliErrorCode, out: string): Promise<void> {
  assert.equal(run.code, 2, `exit ${run.code}\n${run.stderr}${run.stdout}`);
  const lines = run.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, run.stderr);
  assertCliCode(lines[0]!, code);
  assert.equal(run.stdout, "", "a refused command prints no verdict");
  await assert.rejects(Deno.stat(`${f.dir}/${out}`), Deno.errors.NotFound, `${out} was written`);
}

/** The reviewer's forgery: the announcement dropped, an audit id ground until no record is falsified. */
function _groundPlan(): AuditPlan {
  const { announcement: _a, announcementTimestamp: _t, ...evidence } = original.evidence;
  for (let i = 0;; i++) {
    const plan = planAudit(claims, {
      auditId: `audit-${original.logRoot.slice(0, 16)}-r${original.beacon.round}-${i}`,
      randomness: original.beacon.randomness,
      round: original.beacon.round,
      k: original.items.length,
      evidence,
    });
    if (plan.items.every((it) => !FALSIFIED.includes(it.index))) return plan;
  }
}

Deno.test("audit plan without --key is refused (exit 2): no plan is written unsigned", async () => {
  const out = `${f.dir}/log/plan-keyless.json`;
  const r = await runBitaudit(["audit", "plan", ...PLAN_FLAGS, "--out", out]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "USAGE");
  assert.match(r.stderr, /required option '--key <files\.\.\.>'/);
  await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
});

Deno.test("the announced plan is signed by the inspector key, and merge says its audit id, k and that it was announced", async () => {
  assert.equal(original.signatures.length, 1);
  assert.equal(original.signatures[0]!.keyid, f.keyid);
  const { plan, results } = await _worked("honest", original);
  const json = await _merge("honest", { plan, results: [results] });
  assert.ok(json.code === 0 || json.code === 1, json.stderr);
  const said = JSON.parse(json.stderr);
  assert.deepEqual([said.auditId, said.k, said.announced], [original.auditId, 6, true]);
  assert.match(original.auditId, /^announced-/);
  const text = await _merge("honest-text", { plan, results: [results], json: false });
  assert.match(
    text.stderr,
    new RegExp(`^signed audit '${original.auditId}': k 6, announced$`, "m"),
  );
});

Deno.test("a plan rewritten on the shared volume (announcement dropped, audit id ground, signatures kept) is PLAN_SIGNATURE at merge and serve, nothing written", async () => {
  const ground = _groundPlan();
  const forged = await _worked("ground", { ...ground, signatures: original.signatures });
  // Not vacuous: signed by the inspector, the ground plan's sample misses every falsified
  // record, and its workers' results merge into a PASSED verdict.
  const asSigned = await _worked(
    "ground-signed",
    await signAuditPlan(ground, [await loadSigningKey(f.key)]),
  );
  const passed = await _merge("ground-signed", { ...asSigned, results: [asSigned.results] });
  assert.equal(passed.code, 0, passed.stderr);
  assert.equal(JSON.parse(passed.stdout).verdict, "PASSED");
  assert.equal(JSON.parse(passed.stderr).announced, false);
  // Rewritten under the inspector's signature, it is refused before any result is read.
  await _refused(
    await _merge("ground", { plan: forged.plan, results: [forged.results] }),
    "PLAN_SIGNATURE",
    "merged-ground",
  );
  await _refused(await _serve("ground", forged.plan), "PLAN_SIGNATURE", "served-ground");
});

Deno.test("a plan another key signed, or that a co-signing --key did not sign, is PLAN_SIGNATURE at merge and serve before any result is read", async () => {
  const other = `${f.dir}/log/plan-stranger.json`;
  const byStranger = await signAuditPlan(original, [await loadSigningKey(stranger.privateKey)]);
  await Deno.writeTextFile(other, encodeAuditPlan(byStranger));
  // A results file that does not exist: the plan is refused before any result is read.
  const results = [`${f.dir}/no-such-results.jsonl`];
  await _refused(
    await _merge("stranger", { plan: other, results }),
    "PLAN_SIGNATURE",
    "merged-stranger",
  );
  await _refused(await _serve("stranger", other), "PLAN_SIGNATURE", "served-stranger");
  const keys = [f.key, stranger.privateKey];
  await _refused(
    await _merge("cosigned", { plan: PLAN, results, keys }),
    "PLAN_SIGNATURE",
    "merged-cosigned",
  );
  await _refused(await _serve("cosigned", PLAN, keys), "PLAN_SIGNATURE", "served-cosigned");
});

Deno.test("a plan file without signatures is PLAN_INVALID at merge, serve and work", async () => {
  const path = `${f.dir}/log/plan-unsigned.json`;
  await Deno.writeTextFile(path, encodeAuditPlan({ ...original, signatures: [] }));
  const results = [`${f.dir}/no-such-results.jsonl`];
  await _refused(
    await _merge("unsigned", { plan: path, results }),
    "PLAN_INVALID",
    "merged-unsigned",
  );
  await _refused(await _serve("unsigned", path), "PLAN_INVALID", "served-unsigned");
  const work = await runBitaudit(["audit", "work", "--plan", path, "--shard", "0/1", "--key"]
    .concat([f.worker.key, "--out", `${f.dir}/results-unsigned.jsonl`]));
  assert.equal(work.code, 2, work.stderr);
  assertCliCode(work.stderr, "PLAN_INVALID");
});

Deno.test("audit plan, merge, serve, audit and announce sign with at most as many --key files as a plan or envelope is read back with: one more is USAGE_KEYS, nothing written", async () => {
  // A plan signed by 65 keys was written (exit 0), then refused as PLAN_INVALID by every worker
  // and by merge and serve.
  const extra = await Promise.all(
    Array.from({ length: MAX_PLAN_SIGNATURES }, (_, i) => generateKeys(`${f.dir}/co-${i}`)),
  );
  const most = [f.key, ...extra.slice(1).map((k) => k.privateKey)];
  const fits = `${f.dir}/log/plan-most-keys.json`;
  await _ok(["audit", "plan", ...PLAN_FLAGS, "--key", ...most, "--out", fits]);
  const read = parseAuditPlan(await Deno.readTextFile(fits), fits);
  assert.equal(read.signatures.length, MAX_PLAN_SIGNATURES);
  const over = `${f.dir}/log/plan-too-many-keys.json`;
  const keys = [...most, extra[0]!.privateKey];
  const r = await runBitaudit(["audit", "plan", ...PLAN_FLAGS, "--key", ...keys, "--out", over]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "USAGE_KEYS");
  await assert.rejects(Deno.stat(over), Deno.errors.NotFound);
  // merge, serve and a single-process audit sign with the same keys: refused alike, before any
  // result is read or any order published (the plan test alone had covered the limit).
  const results = [`${f.dir}/no-such-results.jsonl`];
  await _refused(
    await _merge("too-many-keys", { plan: PLAN, results, keys }),
    "USAGE_KEYS",
    "merged-too-many-keys",
  );
  await _refused(await _serve("too-many-keys", PLAN, keys), "USAGE_KEYS", "served-too-many-keys");
  const audit = await runBitaudit([
    ...["audit", ...PLAN_FLAGS, "--key", ...keys, "--out", `${f.dir}/audit-too-many-keys`],
  ]);
  await _refused(audit, "USAGE_KEYS", "audit-too-many-keys");
  const announced = await runBitaudit([
    ...["announce", "--checkpoint", checkpoint, "--prover-pub", prover.publicKey, "--chain"],
    ...[`${DRAND}quicknet-info.json`, "--round", "123", "--k", "6", "--key", ...keys],
    ...["--out", `${f.dir}/announce-too-many-keys.dsse.json`],
  ]);
  await _refused(announced, "USAGE_KEYS", "announce-too-many-keys.dsse.json");
});
