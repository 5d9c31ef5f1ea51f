import assert from "node:assert/strict";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { loadClaimLog } from "../../src/cli/load_inputs.ts";
import { estimateAudit, type ItemResult, planAudit, recordProducts } from "../../src/verify/mod.ts";
import type { ClaimPredicate } from "../../src/claims/mod.ts";

const f = await makeAuditFixture({ records: 4, blocks: 2, blockTokens: [4], falsify: [] });
const log = await loadClaimLog(f.log);
const plan = planAudit(log, { auditId: "e", randomness: "03".repeat(32), round: 1, k: 6 });
const workload = (i: number) => log.records[i]!.predicate.workload;
const pilot = (j: number, ms: number, recomputed: string | null = "00".repeat(32)) =>
  ({
    item: plan.items[j]!.item,
    result: { index: plan.items[j]!.index, recomputed },
    timing: { ms, threads: 2 },
  }) as unknown as ItemResult;

Deno.test("recordProducts() counts m n k, the blocks' projections and causal core, and nothing for unknown kinds", () => {
  const gemm = { kind: "gemm", m: 3, n: 5, k: 7 } as unknown as ClaimPredicate["workload"];
  assert.equal(recordProducts(gemm), 105);
  const shape = { hidden: 256, intermediate: 768, heads: 2, kvHeads: 1, headDim: 128 };
  const attn = {
    kind: "attention_block",
    tokens: 4,
    shape,
  } as unknown as ClaimPredicate["workload"];
  assert.equal(recordProducts(attn), 4 * 256 * 128 * (2 * 2 + 2 * 1) + 2 * 128 * 4 * 5);
  const ffn = { kind: "ffn_block", tokens: 4, shape } as unknown as ClaimPredicate["workload"];
  assert.equal(recordProducts(ffn), 3 * 4 * 256 * 768);
  assert.equal(recordProducts({ kind: "model_forward" } as ClaimPredicate["workload"]), null);
});

Deno.test("estimateAudit() predicts each kind from its pilot rate and leaves kinds without a pilot unpredicted", () => {
  const gemmItems = plan.items.map((it, j) => [it, j] as const).filter(([it]) =>
    it.kind === "gemm"
  );
  const [first, second] = [gemmItems[0]![1], gemmItems[1]![1]];
  const e = estimateAudit(plan, {
    log,
    pilot: [pilot(first, 10), pilot(second, 30), pilot(first, 5, null)],
  });
  const g = e.kinds.find((k) => k.kind === "gemm")!;
  const pilotProducts = recordProducts(workload(plan.items[first]!.index))! +
    recordProducts(workload(plan.items[second]!.index))!;
  const rate = pilotProducts / ((10 + 30) * 2 / 1000);
  assert.equal(g.pilotItems, 2, "a result without recomputation gives no rate");
  assert.equal(g.productsPerCpuSecond, rate);
  const all = gemmItems.reduce((s, [it]) => s + recordProducts(workload(it.index))!, 0);
  assert.equal(g.products, all);
  assert.equal(g.cpuSeconds, all / rate);
  assert.equal(e.cpuHours, all / rate / 3600);
  assert.equal(e.unpredicted, plan.items.length - gemmItems.length);
});

Deno.test("estimateAudit() counts an item given twice once (a results file named twice)", () => {
  // Review h56: `audit estimate --plan p res.jsonl res.jsonl` said "pilot 10" for 5 items.
  const j = plan.items.findIndex((it) => it.kind === "gemm");
  const once = estimateAudit(plan, { log, pilot: [pilot(j, 10)] });
  const twice = estimateAudit(plan, {
    log,
    pilot: [pilot(j, 5, null), pilot(j, 10), pilot(j, 40)],
  });
  const gemm = (e: typeof once) => e.kinds.find((k) => k.kind === "gemm")!;
  assert.equal(gemm(twice).pilotItems, 1);
  assert.deepEqual(twice, once);
});

Deno.test("estimateAudit() refuses a pilot result of another plan", () => {
  const foreign = { ...pilot(0, 1), item: "00".repeat(32) } as ItemResult;
  assert.throws(
    () => estimateAudit(plan, { log, pilot: [foreign] }),
    (e) => (e as { code?: string }).code === "ESTIMATE_FOREIGN",
  );
});
