import assert from "node:assert/strict";
import {
  auditPlanDigest,
  encodeAuditPlan,
  parseAuditPlan,
  planAudit,
  sampleIndices,
  shardItems,
} from "../../src/verify/mod.ts";
import { hexToBytes } from "../../src/claims/mod.ts";
import { futureLog } from "./_future_log.ts";

const log = futureLog(40);
const plan = planAudit(log, { auditId: "a-1", randomness: "cd".repeat(32), round: 9, k: 17 });
const text = encodeAuditPlan(plan);
const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

Deno.test("planAudit() fixes the seed's sample in selection order with one digest per item", () => {
  const { selected } = sampleIndices(hexToBytes(plan.seed), { population: 40, k: 17 });
  assert.deepEqual(plan.items.map((it) => it.index), selected);
  assert.equal(new Set(plan.items.map((it) => it.item)).size, 17);
  assert.ok(plan.items.every((it) => it.kind === "speculative_decode"));
  assert.ok(plan.items.every((it) => it.record === log.digests[it.index]));
});

Deno.test("parseAuditPlan() reads its own bytes back and names the plan by their sha256", () => {
  const back = parseAuditPlan(text, "plan.json");
  assert.deepEqual(back, plan);
  assert.equal(auditPlanDigest(back), auditPlanDigest(plan));
});

Deno.test("parseAuditPlan() refuses every byte it did not commit: whitespace, order, duplicates, unknown fields", () => {
  const v = JSON.parse(text);
  const variants = [
    JSON.stringify(v, null, 1) + "\n", // whitespace
    text.trimEnd(), // no final newline
    text.replace('{"algorithm"', '{"auditId":"a-2","algorithm"'), // duplicate key, other value
    text.replace('{"algorithm"', '{"zzz":1,"algorithm"'), // unknown field (and out of order)
    JSON.stringify({ ...v, extra: true }) + "\n",
    text.replace('"round":9', '"round":9.0'),
  ];
  for (const t of variants) assert.throws(() => parseAuditPlan(t, "p"), code("PLAN_INVALID"), t);
});

Deno.test("parseAuditPlan() refuses a plan whose sample or digests were edited, even re-canonicalized", () => {
  const edits: ((p: Record<string, unknown> & { items: Record<string, unknown>[] }) => void)[] = [
    (p) => (p.items[0]!.index = (p.items[0]!.index as number) === 0 ? 1 : 0), // hand-picked record
    (p) => p.items.shift(), // an item dropped: the sample's draws no longer match
    (p) => (p.items[2]!.item = "00".repeat(32)),
    (p) => (p.seed = "00".repeat(32)),
    (p) => (p.population = 41),
    (p) => (p.format = "bitaudit/audit-plan/v1"), // the earlier format, without evidence
    (p) => (p.evidence = { beacon: 1 }),
  ];
  for (const edit of edits) {
    const p = JSON.parse(text);
    edit(p);
    assert.throws(() => parseAuditPlan(encodeAuditPlan(p), "p"), code("PLAN_INVALID"));
  }
});

Deno.test("shardItems() puts every item in exactly one shard, for any shard count", () => {
  for (const n of [1, 2, 3, 5, 16, 17, 40]) {
    const seen = Array.from({ length: n }, (_, i) => shardItems(plan, { index: i, count: n }))
      .flat().map((it) => it.item);
    assert.equal(seen.length, 17);
    assert.deepEqual(new Set(seen), new Set(plan.items.map((it) => it.item)));
  }
  assert.throws(() => shardItems(plan, { index: 3, count: 3 }), RangeError);
});
