import assert from "node:assert/strict";
import {
  auditPlanDigest,
  encodeAuditPlan,
  MAX_PLAN_SIGNATURES,
  parseAuditPlan,
  planAudit,
  sampleIndices,
  shardItems,
} from "../../src/verify/mod.ts";
import { hexToBytes } from "../../src/claims/mod.ts";
import { futureLog } from "./_future_log.ts";

const log = futureLog(40);
/** A well-formed signature entry: the plan reads its signatures as opaque data (src/attest checks them). */
const SIGNATURE = { keyid: "ab".repeat(32), sig: `${"A".repeat(86)}==` };
const unsigned = planAudit(log, { auditId: "a-1", randomness: "cd".repeat(32), round: 9, k: 17 });
const plan = { ...unsigned, signatures: [SIGNATURE] };
const text = encodeAuditPlan(plan);
const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

Deno.test("planAudit() fixes the seed's sample in selection order with one digest per item", () => {
  const { selected } = sampleIndices(hexToBytes(plan.seed), { population: 40, k: 17 });
  assert.deepEqual(plan.items.map((it) => it.index), selected);
  assert.equal(new Set(plan.items.map((it) => it.item)).size, 17);
  assert.ok(plan.items.every((it) => it.kind === "speculative_decode"));
  assert.ok(plan.items.every((it) => it.record === log.digests[it.index]));
});

Deno.test("planAudit() returns the plan unsigned: a plan file is signed before it is written", () => {
  assert.deepEqual(unsigned.signatures, []);
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
    (p) => (p.format = "bitaudit/audit-plan/v2"), // the earlier format, without signatures
    (p) => (p.evidence = { beacon: 1 }),
  ];
  for (const edit of edits) {
    const p = JSON.parse(text);
    edit(p);
    assert.throws(() => parseAuditPlan(encodeAuditPlan(p), "p"), code("PLAN_INVALID"));
  }
});

Deno.test("parseAuditPlan() refuses a plan file without signatures, or with signatures that are not one key's 64 bytes each", () => {
  const sig = (over: Record<string, unknown>) => ({ ...SIGNATURE, ...over });
  const other = (i: number) => sig({ keyid: i.toString(16).padStart(64, "0") });
  const lists: unknown[] = [
    [], // unsigned: `audit plan` signs every plan it writes
    [SIGNATURE, SIGNATURE], // one key twice
    Array.from({ length: MAX_PLAN_SIGNATURES + 1 }, (_, i) => other(i)),
    [sig({ keyid: "AB".repeat(32) })],
    [sig({ sig: `${"A".repeat(84)}==` })], // 63 bytes
    [sig({ sig: "A".repeat(86) })], // unpadded
    [sig({ sig: `${"_".repeat(86)}==` })], // URL-safe alphabet
    [sig({ sig: `${"A".repeat(85)}B==` })], // non-zero bits past the 64th byte
    [{ ...SIGNATURE, extra: 1 }],
    [{ keyid: SIGNATURE.keyid }],
    {},
  ];
  for (const signatures of lists) {
    const t = encodeAuditPlan({ ...plan, signatures } as unknown as typeof plan);
    assert.throws(() => parseAuditPlan(t, "p"), code("PLAN_INVALID"), JSON.stringify(signatures));
  }
  const { signatures: _, ...withNone } = plan;
  assert.throws(
    () => parseAuditPlan(encodeAuditPlan(withNone as typeof plan), "p"),
    code("PLAN_INVALID"),
  );
  const most = Array.from({ length: MAX_PLAN_SIGNATURES }, (_, i) => other(i));
  assert.equal(
    parseAuditPlan(encodeAuditPlan({ ...plan, signatures: most }), "p").signatures.length,
    64,
  );
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

Deno.test("parseAuditPlan() reads at most the values and nesting a plan of its length holds, refusing the rest unread (review h115)", () => {
  // A plan of k = population items, each six values in its 192+ characters of digests, and the
  // most signatures: within the limit (256 values, and one per 32 characters).
  const all = planAudit(futureLog(300), { auditId: "a", randomness: "cd", round: 1, k: 300 });
  const sigs = Array.from({ length: MAX_PLAN_SIGNATURES }, (_, i) => ({
    ...SIGNATURE,
    keyid: i.toString(16).padStart(64, "0"),
  }));
  assert.equal(
    parseAuditPlan(encodeAuditPlan({ ...all, signatures: sigs }), "p").items.length,
    300,
  );
  // Any other text stops at its first value past the limit, or level past 64: what follows is
  // never read (here it is not JSON), and no value of that size is built.
  const many = `{"items":[${"0,".repeat(20_000)}0]} and then not JSON`;
  const limit = 256 + Math.floor(many.length / 32);
  const deep = `${"[".repeat(65)}${"]".repeat(65)} and then not JSON`;
  const refusals: [string, RegExp][] = [
    [many, new RegExp(`: more than ${limit} values at '\\$\\.items\\[${limit - 2}\\]'$`)],
    [deep, /: nesting deeper than 64 at '\$(\[0\]){21}'$/],
  ];
  for (const [t, message] of refusals) {
    assert.throws(
      () => parseAuditPlan(t, "p"),
      (e: unknown) => code("PLAN_INVALID")(e) && message.test((e as Error).message),
    );
  }
});

Deno.test("parseAuditPlan() refuses a plan whose audit id is not printable ASCII, even with its own seed and digests (review h123)", () => {
  for (const auditId of [`announced\u2011${"0".repeat(32)}`, "x\n# heading", "a b"]) {
    const p = planAudit(log, { auditId, randomness: "cd".repeat(32), round: 9, k: 3 });
    assert.throws(
      () => parseAuditPlan(encodeAuditPlan({ ...p, signatures: [SIGNATURE] }), "p"),
      (e: unknown) => code("PLAN_INVALID")(e) && /auditId must be 1-128 of/.test(String(e)),
      JSON.stringify(auditId),
    );
  }
});

Deno.test("planAudit() carries --max-record-products in the plan, which parseAuditPlan() reads back; a plan without one (written before it) reads as the default", () => {
  const budgeted = {
    ...planAudit(log, {
      auditId: "a-1",
      randomness: "cd".repeat(32),
      round: 9,
      k: 17,
      maxRecordProducts: 5000,
    }),
    signatures: [SIGNATURE],
  };
  assert.equal(budgeted.maxRecordProducts, 5000);
  const back = parseAuditPlan(encodeAuditPlan(budgeted), "plan.json");
  assert.deepEqual(back, budgeted);
  // The budget is committed: it changes the plan's bytes and digest.
  assert.notEqual(auditPlanDigest(back), auditPlanDigest(plan));
  assert.ok(!("maxRecordProducts" in parseAuditPlan(text, "plan.json")));
  assert.throws(
    () => planAudit(log, { auditId: "a", randomness: "cd", round: 9, k: 1, maxRecordProducts: 0 }),
    RangeError,
  );
});

Deno.test("parseAuditPlan() refuses a budget that is no whole number of products in 1..2^53 - 1", () => {
  const v = JSON.parse(text);
  for (const bad of [0, -1, 1.5, 2 ** 53, "1000"]) {
    const t = `${JSON.stringify({ ...v, maxRecordProducts: bad })}\n`;
    assert.throws(() => parseAuditPlan(t, "p"), code("PLAN_INVALID"), t.slice(0, 80));
  }
});
