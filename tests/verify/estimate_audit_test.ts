import assert from "node:assert/strict";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { loadClaimLog } from "../../src/cli/load_inputs.ts";
import { openBlobFolder } from "../../src/cli/work_context.ts";
import {
  estimateAudit,
  forwardProducts,
  type ItemResult,
  MAX_RECORD_PRODUCTS,
  planAudit,
  predictPlanProducts,
  predictRecordProducts,
  recordProducts,
} from "../../src/verify/mod.ts";
import {
  type ClaimPredicate,
  isModelForwardWorkload,
  type ModelForwardWorkload,
} from "../../src/claims/mod.ts";
import { parseCheckpointJson, parseDecoderConfig } from "../../src/model/mod.ts";

const f = await makeAuditFixture({
  records: 4,
  blocks: 2,
  blockTokens: [4],
  forward: 1,
  falsify: [],
});
const log = await loadClaimLog(f.log);
const blobs = await openBlobFolder(`${f.dir}/log/blobs`);
const plan = planAudit(log, { auditId: "e", randomness: "03".repeat(32), round: 1, k: 7 });
const products = await predictPlanProducts(blobs, { plan, log });
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
    products,
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
  assert.equal(e.budget, MAX_RECORD_PRODUCTS);
});

Deno.test("predictRecordProducts() predicts a model_forward record from the config it commits to, as its budget check counts it", async () => {
  // Review h151: recordProducts had no count for model records, so `audit estimate` left a
  // forward of 2^13 tokens through 1,024 layers (13.8 hours) without a prediction.
  const j = plan.items.findIndex((it) => it.kind === "model_forward");
  assert.ok(j >= 0, "the plan samples the model_forward record");
  const w = workload(plan.items[j]!.index) as ModelForwardWorkload;
  assert.ok(isModelForwardWorkload(w));
  const config = parseDecoderConfig(
    parseCheckpointJson(await Deno.readFile(`${f.dir}/log/blobs/${w.model.configSha256}`), "c"),
  );
  const want = forwardProducts(config, w.tokens.sequences.map((s) => s.length));
  assert.ok(want > 0);
  assert.equal(await predictRecordProducts(blobs, w), want);
  assert.equal(products.items[j], want);
  assert.equal(products.unpredicted, 0, "every item of the plan has a prediction");
  // A config the blob store does not hold: no prediction (its recomputation says the FAIL).
  const none = { dir: "none", get: () => Promise.resolve(null) };
  assert.equal(await predictRecordProducts(none, w), null);
  // A pilot of the kind predicts it.
  const e = estimateAudit(plan, { products, pilot: [pilot(j, 100)] });
  const k = e.kinds.find((x) => x.kind === "model_forward")!;
  assert.equal(k.products, want);
  assert.equal(k.cpuSeconds, want / (want / (100 * 2 / 1000)));
});

Deno.test("estimateAudit() counts no time for an item over the plan's budget, and says how many are", async () => {
  const small = planAudit(log, {
    auditId: "e",
    randomness: "03".repeat(32),
    round: 1,
    k: 7,
    maxRecordProducts: 300_000,
  });
  const cost = await predictPlanProducts(blobs, { plan: small, log });
  assert.equal(cost.budget, 300_000);
  const over = cost.items.filter((p) => p! > 300_000).length;
  assert.ok(over > 0 && over < cost.items.length, `${over} of ${cost.items.length} over`);
  assert.equal(cost.overBudget, over);
  assert.equal(
    cost.total,
    cost.items.reduce((s: number, p) => s + (p! > 300_000 ? 0 : p!), 0),
  );
  const e = estimateAudit(small, { products: cost, pilot: [] });
  assert.equal(e.kinds.reduce((s, k) => s + k.overBudget, 0), over);
  assert.equal(e.unpredicted, cost.items.length - over, "no pilot: the rest unpredicted");
});

Deno.test("estimateAudit() counts an item given twice once (a results file named twice)", () => {
  // Review h56: `audit estimate --plan p res.jsonl res.jsonl` said "pilot 10" for 5 items.
  const j = plan.items.findIndex((it) => it.kind === "gemm");
  const once = estimateAudit(plan, { products, pilot: [pilot(j, 10)] });
  const twice = estimateAudit(plan, {
    products,
    pilot: [pilot(j, 5, null), pilot(j, 10), pilot(j, 40)],
  });
  const gemm = (e: typeof once) => e.kinds.find((k) => k.kind === "gemm")!;
  assert.equal(gemm(twice).pilotItems, 1);
  assert.deepEqual(twice, once);
});

Deno.test("estimateAudit() refuses a pilot result of another plan", () => {
  const foreign = { ...pilot(0, 1), item: "00".repeat(32) } as ItemResult;
  assert.throws(
    () => estimateAudit(plan, { products, pilot: [foreign] }),
    (e) => (e as { code?: string }).code === "ESTIMATE_FOREIGN",
  );
});
