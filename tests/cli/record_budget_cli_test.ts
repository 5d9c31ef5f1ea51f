/**
 * The budget a record through the CLI (review h151: one admitted record held `audit` for 14
 * hours, silently, with no budget a command could set and no prediction): `audit
 * --max-record-products` and `audit plan --max-record-products` make a record predicted over the
 * budget NOT_VERIFIED before anything is computed, the plan and the verdict record the budget (a
 * sharded audit signs the single-process bytes; `check --recompute` applies it again), `audit`
 * says the sample's predicted cost on stderr before the first record, and `audit estimate`
 * predicts model records from the configs they commit to.
 */
import assert from "node:assert/strict";
import { decodeBase64 } from "../../src/attest/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs, makeAuditFixture, mergeArgs } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

const TIME = "2026-06-01T12:00:00Z";
// GEMMs of 2.62e5 and 1.05e6 products, a model forward of 3.79e7.
const f = await makeAuditFixture({ records: 2, falsify: [], forward: 1 });
const K = 3;
const BUDGET = "1000000";
// Plans beside the log: `audit work` and `audit estimate` read the log from there.
const PLAN = f.log.replace(/claims\.jsonl$/, "plan.json");
const single = [
  ...auditArgs(f, `${f.dir}/single`, K),
  "--time",
  TIME,
  "--worker-key",
  f.worker.key,
];
const budgeted = await runBitaudit([...single, "--max-record-products", BUDGET]);

/** The parts of a signed verdict predicate these tests read. */
interface Predicate {
  audit: { maxRecordProducts?: number };
  results: { status: string; reason: string }[];
}

async function predicate(out: string): Promise<Predicate> {
  const envelope = JSON.parse(await Deno.readTextFile(`${out}/attestation.dsse.json`));
  return JSON.parse(new TextDecoder().decode(decodeBase64(envelope.payload))).predicate;
}

Deno.test("audit --max-record-products: records predicted over it are NOT_VERIFIED before any recomputation, naming their count and the budget; the verdict records it", async () => {
  assert.equal(budgeted.code, 3, budgeted.stderr); // INCONCLUSIVE
  const p = await predicate(`${f.dir}/single`);
  assert.equal(p.audit.maxRecordProducts, 1_000_000);
  const results = p.results;
  const over = results.filter((r) => r.status === "NOT_VERIFIED");
  assert.equal(over.length, 2, JSON.stringify(results));
  for (const r of over) {
    assert.match(
      r.reason,
      /takes about \d\.\d\de\+\d products to recompute, over the audit's budget \(--max-record-products\) of 1000000 a record$/,
    );
  }
  assert.ok(results.some((r) => r.status === "PASS"), "the GEMM within the budget is recomputed");
  const md = await Deno.readTextFile(`${f.dir}/single/report.md`);
  assert.match(md, /budget: a record predicted to take more than 1000000 products/);
  // A third party's recomputation applies the recorded budget: the same results.
  const check = await runBitaudit([
    "check",
    `${f.dir}/single/attestation.dsse.json`,
    "--trust-root",
    f.trustRoot,
    "--log",
    f.log,
    "--recompute",
  ]);
  assert.equal(check.code, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /^VALID attestation/m, check.stdout);
  assert.doesNotMatch(check.stdout, /^FAIL/m, check.stdout);
});

Deno.test("audit says the sample's predicted cost on stderr before recomputing, without a terminal, as JSON under --json", async () => {
  // The runs' stderr is a pipe, not a terminal: no progress bar, and this line all the same.
  assert.match(
    budgeted.stderr,
    /^predicted cost: about 2\.62e\+5 products to recompute the 1 of 3 sampled records within the budget of 1000000 products a record \(the largest: record \d, 2\.62e\+5\); 2 over it \(NOT_VERIFIED without recomputation\)$/m,
  );
  const plain = await runBitaudit(auditArgs(f, `${f.dir}/plain`, K));
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(
    plain.stderr,
    /^predicted cost: about 3\.92e\+7 products to recompute the 3 of 3 sampled records within the budget of 2\^48 products a record \(the largest: record 2, 3\.79e\+7\)$/m,
  );
  assert.ok(!("maxRecordProducts" in (await predicate(`${f.dir}/plain`)).audit));
  const json = await runBitaudit([...auditArgs(f, `${f.dir}/json`, K), "--json"]);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(JSON.parse(json.stdout).verdict, "PASSED", "stdout holds the verdict alone");
  const said = JSON.parse(json.stderr.trim().split("\n")[0]!);
  assert.equal(said.records, K);
  assert.equal(said.overBudget, 0);
  assert.equal(said.unpredicted, 0);
  assert.equal(said.budget, 2 ** 48);
  assert.ok(said.predictedProducts > 3.9e7 && said.predictedProducts < 4e7);
});

Deno.test("audit and audit plan refuse a --max-record-products that is not a decimal integer in 1..2^53 - 1 (exit 2), before reading anything", async () => {
  for (const bad of ["0", "-1", "1e6", "2^40", "1.5", "", "9007199254740992", " 5"]) {
    for (
      const args of [
        ["audit", "--max-record-products", bad, ...auditArgs(f, `${f.dir}/bad`, K).slice(1)],
        ["audit", "plan", ...auditArgs(f, `${f.dir}/bad.json`, K).slice(1)].concat([
          "--max-record-products",
          bad,
        ]),
      ]
    ) {
      const r = await runBitaudit(args);
      assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
      assertCliCode(r.stderr, "USAGE_NUMBER");
      assert.match(r.stderr, /--max-record-products/);
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    }
  }
});

Deno.test("audit plan --max-record-products: the signed plan carries it, audit work applies it, audit merge signs the single-process bytes", async () => {
  const plan = PLAN;
  const planned = await runBitaudit([
    "audit",
    "plan",
    ...auditArgs(f, plan, K).slice(1),
    "--max-record-products",
    BUDGET,
  ]);
  assert.equal(planned.code, 0, planned.stderr);
  assert.match(planned.stdout, /budget 1000000 products a record/);
  assert.equal(JSON.parse(await Deno.readTextFile(plan)).maxRecordProducts, 1_000_000);
  const results = `${f.dir}/results.jsonl`;
  const work = await runBitaudit([
    "audit",
    "work",
    "--plan",
    plan,
    "--shard",
    "0/1",
    "--key",
    f.worker.key,
    "--out",
    results,
  ]);
  assert.equal(work.code, 0, work.stderr);
  const merged = await runBitaudit([
    ...mergeArgs(f, { results, plan, out: `${f.dir}/merged` }),
    "--time",
    TIME,
  ]);
  assert.equal(merged.code, 3, merged.stderr);
  for (const name of ["attestation.dsse.json", "report.md"]) {
    assert.deepEqual(
      await Deno.readFile(`${f.dir}/merged/${name}`),
      await Deno.readFile(`${f.dir}/single/${name}`),
      name,
    );
  }
  // Re-verified here under the plan's budget, every result agrees with the worker's.
  const reverified = await runBitaudit([
    ...mergeArgs(f, { results, plan, out: `${f.dir}/reverified` }),
    "--reverify",
    "1.0",
    "--json",
  ]);
  assert.equal(reverified.code, 3, reverified.stderr);
  assert.equal(JSON.parse(reverified.stderr).reverified, K);
  assert.equal((await predicate(`${f.dir}/reverified`)).audit.maxRecordProducts, 1_000_000);
});

Deno.test("audit estimate predicts model_forward records from their committed configs and names the items over the plan's budget", async () => {
  const estimate = await runBitaudit(["audit", "estimate", "--plan", PLAN]);
  assert.equal(estimate.code, 0, estimate.stderr);
  // Without a pilot, the one item within the budget has no rate; the two over it cost nothing.
  assert.match(estimate.stdout, /^model_forward +1 +0 +1 /m);
  assert.match(estimate.stdout, /plus 1 item without a prediction/);
  assert.match(
    estimate.stdout,
    /^2 items over the budget of 1000000 products a record: NOT_VERIFIED without recomputation/m,
  );
  const json = await runBitaudit(["audit", "estimate", "--plan", PLAN, "--json"]);
  const e = JSON.parse(json.stdout);
  const forward = e.kinds.find((k: { kind: string }) => k.kind === "model_forward");
  assert.equal(forward.overBudget, 1);
  assert.equal(forward.products, 0, "an item over the budget costs nothing");
  assert.equal(e.budget, 1_000_000);
  // A plan of the default budget: the forward is predicted, not left out.
  const plain = PLAN.replace(/plan\.json$/, "plain-plan.json");
  const planned = await runBitaudit(["audit", "plan", ...auditArgs(f, plain, K).slice(1)]);
  assert.equal(planned.code, 0, planned.stderr);
  const p = JSON.parse(
    (await runBitaudit(["audit", "estimate", "--plan", plain, "--json"])).stdout,
  );
  const k = p.kinds.find((x: { kind: string }) => x.kind === "model_forward");
  assert.ok(k.products > 3.7e7 && k.products < 3.8e7, JSON.stringify(k));
  assert.equal(k.overBudget, 0);
  // The blob folder is then read: a missing one is named, not a silent gap in the prediction.
  const missing = await runBitaudit([
    "audit",
    "estimate",
    "--plan",
    plain,
    "--blobs",
    `${f.dir}/no-blobs`,
  ]);
  assert.equal(missing.code, 2, missing.stderr);
  assertCliCode(missing.stderr, "INPUT_MISSING");
});
