/** `workItem()`: a result names the assets its own recomputation read, and the serve it answers. */
import assert from "node:assert/strict";
import { openAssetStore, openBlobStore } from "../../src/assets/mod.ts";
import { loadClaimLog } from "../../src/cli/load_inputs.ts";
import { blobsBeside } from "../../src/cli/work_context.ts";
import { referenceKWalker } from "../../src/kernels/mod.ts";
import { auditPlanDigest, planAudit, workItem } from "../../src/verify/mod.ts";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";

const f = await makeAuditFixture({ records: 2, blocks: 2, blockTokens: [4], falsify: [] });
const log = await loadClaimLog(f.log);
const plan = planAudit(log, { auditId: "w", randomness: "05".repeat(32), round: 1, k: 4 });
const planDigest = auditPlanDigest(plan);

async function context() {
  const store = await openAssetStore();
  await store.read("tables/wasm/gemm_engine.wasm"); // read before any item, as the engine is
  return {
    store,
    blobs: openBlobStore(blobsBeside(f.log)),
    walker: referenceKWalker,
    engine: "reference",
  };
}

Deno.test("workItem() names the assets its item read and the context's own, not earlier items'", async () => {
  const kind = (i: number) => log.records[plan.items[i]!.index]!.predicate.workload.kind;
  const gemm = plan.items.findIndex((_, i) => kind(i) === "gemm");
  const block = plan.items.findIndex((_, i) => kind(i) !== "gemm");
  assert.ok(gemm >= 0 && block >= 0, "the plan holds a GEMM and a block record");
  const alone = await workItem(await context(), { planDigest, log, item: plan.items[gemm]! });
  const ctx = await context();
  const blockFirst = await workItem(ctx, { planDigest, log, item: plan.items[block]! });
  const after = await workItem(ctx, { planDigest, log, item: plan.items[gemm]! });
  assert.deepEqual(after.assets, alone.assets);
  assert.ok("tables/wasm/gemm_engine.wasm" in after.assets);
  const extra = Object.keys(blockFirst.assets).filter((p) => !(p in alone.assets));
  assert.ok(extra.length > 0, "the block record reads assets a GEMM record does not");
  // The context's store still names every read of the process (a library caller signs with it).
  const all = ctx.store.used();
  for (const p of [...Object.keys(blockFirst.assets), ...Object.keys(after.assets)]) {
    if (p !== "tables/manifest.json") assert.ok(p in all, p);
  }
});

Deno.test("workItem() echoes the serve id of the order it answers, and a shard's item names none", async () => {
  const serve = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
  const item = plan.items[0]!;
  const pooled = await workItem(await context(), { planDigest, log, item, serve });
  assert.equal(pooled.serve, serve);
  const shard = await workItem(await context(), { planDigest, log, item });
  assert.equal(Object.hasOwn(shard, "serve"), false);
});

Deno.test("workItem() states the budget a record it applied, signed with its result (none for the default)", async () => {
  const item = plan.items[0]!;
  const budgeted = await workItem(await context(), {
    planDigest,
    log,
    item,
    maxRecordProducts: 1000,
  });
  assert.equal(budgeted.maxRecordProducts, 1000);
  assert.equal(budgeted.result.status, "NOT_VERIFIED");
  assert.match(budgeted.result.reason ?? "", /over the audit's budget .* of 1000 a record/);
  const plain = await workItem(await context(), { planDigest, log, item });
  assert.equal(Object.hasOwn(plain, "maxRecordProducts"), false);
});
