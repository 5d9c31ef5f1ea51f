/**
 * A sharded audit whose worker holds an incomplete copy of the blobs: the worker FAILs the
 * records whose committed inputs it lacks as the prover's ("prover did not produce committed
 * input"). `audit merge` recomputes every such result here, whatever `--reverify` asks: where the
 * inspector's blobs hold the input, it refuses to sign (MERGE_REVERIFY_MISMATCH, naming the
 * worker's copy); where they lack it too, it signs the FAIL. A plain merge had signed the
 * prover's FAIL on the worker's word.
 */
import assert from "node:assert/strict";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { runBitaudit } from "../cli/_run.ts";
import { payloadOf } from "../cli/_signed_results.ts";
import { assertCliCode } from "../_assert_code.ts";

const K = 4;

/**
 * A log of K GEMM records (with `falsify`), planned whole, worked by one worker whose blob copy
 * lacks the first record's input; `merge(out, extra)` merges its results.
 */
async function workedWithoutFirstInput(falsify: unknown[]) {
  const f = await makeAuditFixture({ records: K, falsify });
  const PLAN = `${f.dir}/log/plan.json`;
  const BLOBS = `${f.dir}/log/blobs`;
  const COPY = `${f.dir}/worker-blobs`;
  const plan = await runBitaudit([
    ...["audit", "plan", "--log", f.log, "--randomness", "ab".repeat(32), "--round", "7"],
    ...["--k", String(K), "--key", f.key, "--out", PLAN],
  ]);
  assert.equal(plan.code, 0, plan.stderr);
  const first = (await Deno.readTextFile(f.log)).split("\n")[0]!;
  const names = new Set<string>();
  for await (const e of Deno.readDir(BLOBS)) names.add(e.name);
  const lacking = /"input":\{"sha256":"([0-9a-f]{64})"/.exec(first)?.[1];
  assert.ok(lacking !== undefined && names.has(lacking), "the first record commits to its input");
  await Deno.mkdir(COPY);
  for (const name of names) {
    if (name !== lacking) await Deno.copyFile(`${BLOBS}/${name}`, `${COPY}/${name}`);
  }
  const RESULTS = `${f.dir}/results.jsonl`;
  const work = await runBitaudit([
    ...["audit", "work", "--plan", PLAN, "--shard", "0/1", "--out", RESULTS],
    ...["--key", f.worker.key, "--threads", "1", "--blobs", COPY],
  ]);
  assert.equal(work.code, 0, work.stderr);
  const blamed = (await Deno.readTextFile(RESULTS)).trimEnd().split("\n").map(payloadOf)
    .filter((p) => p.result.obligation === "committed-input");
  assert.ok(blamed.length >= 1, "the worker FAILs the record whose blob its copy lacks");
  assert.match(blamed[0]!.result.reason, /prover did not produce committed input: .* is missing/);
  const merge = async (out: string, extra: readonly string[]) =>
    await runBitaudit([
      ...["audit", "merge", "--plan", PLAN, RESULTS, "--key", f.key, "--worker-pub", f.worker.pub],
      ...["--out", `${f.dir}/${out}`, "--time", "2026-06-01T12:00:00Z", ...extra],
    ]);
  return { f, PLAN, dir: f.dir, COPY, blamed, merge };
}

const { f, PLAN, dir, COPY, blamed, merge } = await workedWithoutFirstInput([]);

Deno.test("audit merge recomputes a worker's committed-input FAIL: the inspector's blobs hold the input, so it refuses to sign the prover's FAIL (MERGE_REVERIFY_MISMATCH, blaming the worker's copy)", async () => {
  const r = await merge("merged-full", []);
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assertCliCode(lines[0]!, "MERGE_REVERIFY_MISMATCH");
  assert.match(
    lines[0]!,
    /worker [0-9a-f]{16} FAILed record \d+ on a committed input the prover did not produce, and this inspector's blobs hold it \(re-verifying gives PASS\): the worker's copy of the blobs is not this inspector's/,
  );
  // How the item is run again: `audit work` keeps the results its file already holds.
  assert.match(
    lines[0]!,
    /run the item again; remove that worker's results file \(or give `audit work` a new --out\)/,
  );
  await assert.rejects(Deno.stat(`${dir}/merged-full`), Deno.errors.NotFound);
});

Deno.test("audit merge signs the committed-input FAIL where its own blobs lack the input too (it re-verified it)", async () => {
  const r = await merge("merged-copy", ["--blobs", COPY, "--json"]);
  assert.equal(r.code, 1, `exit ${r.code}\n${r.stderr}`);
  assert.equal(JSON.parse(r.stdout).verdict, "FAILED");
  assert.match(r.stderr, new RegExp(`"reverified":${blamed.length}\\b`));
});

Deno.test("audit merge without the blobs to re-verify a committed-input FAIL says why it needs them, and signs nothing", async () => {
  const r = await merge("merged-none", ["--blobs", `${dir}/no-such-blobs`]);
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  const lines = r.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0]!,
    /^error \[[A-Z_]+\]: Cannot sign: a worker FAILed record \d+ on a committed input, which is re-verified here whatever --reverify asks, and cannot /,
  );
  await assert.rejects(Deno.stat(`${dir}/merged-none`), Deno.errors.NotFound);
});

Deno.test("on a log with a falsified record, a worker blaming that record's input it lacks is refused too: re-verifying here finds the fingerprint FAIL, not the prover's missing input", async () => {
  const falsified = await workedWithoutFirstInput([{ seq: 0, kind: "fingerprint", bit: 3 }]);
  const r = await falsified.merge("merged-falsified", []);
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  assert.match(
    r.stderr,
    /MERGE_REVERIFY_MISMATCH.*FAILed record 0 on a committed input the prover did not produce, and this inspector's blobs hold it \(re-verifying gives FAIL\): the worker's copy of the blobs is not this inspector's/,
  );
  // Merged on the worker's copy, the record stays a FAIL, now on its missing input.
  const copy = await falsified.merge("merged-falsified-copy", [
    "--blobs",
    falsified.COPY,
    "--json",
  ]);
  assert.equal(copy.code, 1, copy.stderr);
  assert.equal(JSON.parse(copy.stdout).verdict, "FAILED");
});

Deno.test("audit merge --reverify whose own --blobs lack an input the worker read names the inspector's copy as the one to mend (review h103), or the worker's result as false where no copy holds it", async () => {
  const FULL = `${dir}/results-full.jsonl`;
  const work = await runBitaudit([
    ...["audit", "work", "--plan", PLAN, "--shard", "0/1", "--out", FULL],
    ...["--key", f.worker.key, "--threads", "1"],
  ]);
  assert.equal(work.code, 0, work.stderr);
  const r = await runBitaudit([
    ...["audit", "merge", "--plan", PLAN, FULL, "--key", f.key, "--worker-pub", f.worker.pub],
    ...["--out", `${dir}/merged-short`, "--time", "2026-06-01T12:00:00Z"],
    ...["--reverify", String(K), "--blobs", COPY],
  ]);
  assert.equal(r.code, 2, `exit ${r.code}\n${r.stderr}`);
  assertCliCode(r.stderr, "MERGE_REVERIFY_MISMATCH");
  assert.match(r.stderr, /this inspector's blob folder \(--blobs\) is not the worker's/);
  assert.doesNotMatch(r.stderr, /its results are not to be trusted/);
  // A worker signing a PASS over an input no copy holds (the prover never produced it) reads
  // the same here: the message does not take the worker's word that it read the input.
  assert.doesNotMatch(r.stderr, /recomputed it/);
  assert.match(r.stderr, /or no copy holds that input and the worker's result is false/);
  await assert.rejects(Deno.stat(`${dir}/merged-short`), Deno.errors.NotFound);
});
