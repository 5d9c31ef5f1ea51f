/**
 * A peer that can publish on the work subject (no key, no credentials) sends work orders carrying
 * another budget a record than the plan's (review h180). A worker applies the budget its order
 * carries and signs it into its result; `audit serve` skips such a result, naming it and both
 * budgets, and waits for the result of its own order: the verdict is the single-process audit's,
 * byte for byte. Before, nothing in the result showed the budget: a lower one hid a FAIL behind
 * NOT_VERIFIED (INCONCLUSIVE signed), a higher one had an over-budget record computed and signed
 * PASSED under a report stating the plan's budget.
 */
import assert from "node:assert/strict";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { runPoolClient, startNatsServer } from "./_nats_server.ts";
import { poolPlan } from "./_plan.ts";
import { type PoolProcess, spawnServe, spawnWorker, stopWorker } from "./_pool_processes.ts";

/**
 * Serves a two-record plan after the peer's forged orders, with one worker, and checks that the
 * served verdict is the single-process one.
 */
async function servedAfterForgedOrders(o: {
  falsify: unknown[];
  planBudget: string[];
  forged: string;
  exit: number;
  skipped: RegExp;
}): Promise<void> {
  const nats = await startNatsServer();
  // GEMMs of 2.62e5 and 1.05e6 products.
  const f = await makeAuditFixture({ records: 2, falsify: o.falsify });
  let worker: PoolProcess | undefined;
  try {
    const plan = await poolPlan(f, { k: 2, single: o.exit, extra: o.planBudget });
    // The peer goes first: the worker takes its orders before the serve's.
    await runPoolClient(nats, "_forged_budget.ts", { args: [plan, o.forged], read: [f.dir] });
    worker = spawnWorker(nats, f);
    const served = await spawnServe(nats, { f, plan, out: "pool", extra: ["--timeout", "120"] })
      .done();
    assert.equal(served.code, o.exit, served.stdout + served.stderr);
    for (const name of ["attestation.dsse.json", "report.md"]) {
      assert.deepEqual(
        await Deno.readFile(`${f.dir}/pool/${name}`),
        await Deno.readFile(`${f.dir}/single/${name}`),
        name,
      );
    }
    // Both forged results are named, with the budget each states and the plan's.
    const skipped = served.stderr.split("\n").filter((l) => o.skipped.test(l));
    assert.equal(skipped.length, 2, served.stderr);
    const said = JSON.parse(served.stderr.trimEnd().split("\n").at(-1)!);
    assert.deepEqual(said.missing, [], served.stderr);
  } finally {
    await stopWorker(worker);
    await nats.stop();
  }
}

Deno.test("forged work orders with a lower budget cannot hide a FAIL: audit serve skips their results and signs FAILED, the single-process verdict", async () => {
  await servedAfterForgedOrders({
    falsify: [{ seq: 0, kind: "fingerprint", bit: 77 }],
    planBudget: [],
    forged: "1000",
    exit: 1,
    skipped: new RegExp(
      "^skipped BITAUDIT_RESULTS #\\d+: Cannot merge record \\d \\(item [0-9a-f]{16}\\) from " +
        "worker [0-9a-f]{16}: it was computed under a budget of 1000 products a record, the " +
        "plan's is the default \\(2\\^48\\): it answers a work order that is not the plan's .*: " +
        "skipped, the item waits for a result the merge admits$",
    ),
  });
});

Deno.test("forged work orders without the plan's budget cannot have an over-budget record PASS: audit serve skips their results and signs INCONCLUSIVE, the single-process verdict", async () => {
  await servedAfterForgedOrders({
    falsify: [],
    planBudget: ["--max-record-products", "1000000"],
    forged: "none",
    exit: 3,
    skipped: new RegExp(
      "^skipped BITAUDIT_RESULTS #\\d+: Cannot merge record \\d \\(item [0-9a-f]{16}\\) from " +
        "worker [0-9a-f]{16}: it was computed under a budget of the default \\(2\\^48\\) " +
        "products a record, the plan's is 1000000: .*: skipped, the item waits for a result " +
        "the merge admits$",
    ),
  });
});
