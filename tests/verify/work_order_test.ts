import assert from "node:assert/strict";
import {
  auditPlanDigest,
  checkPlanLog,
  checkWorkOrder,
  encodeWorkOrder,
  itemDigest,
  parseWorkOrder,
  planAudit,
  workOrders,
} from "../../src/verify/mod.ts";
import { futureLog } from "./_future_log.ts";

const log = futureLog(9);
const plan = planAudit(log, { auditId: "w", randomness: "02".repeat(32), round: 4, k: 3 });
const serve = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
const orders = workOrders(plan, { planDigest: auditPlanDigest(plan), serve });
const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

Deno.test("workOrders() round-trip through parseWorkOrder() and match their log", () => {
  assert.equal(orders.length, 3);
  for (const o of orders) {
    const back = parseWorkOrder(encodeWorkOrder(o));
    assert.deepEqual(back, o);
    checkWorkOrder(back, log);
  }
});

Deno.test("parseWorkOrder() refuses a non-canonical, unknown-field or re-targeted order", () => {
  const v = JSON.parse(encodeWorkOrder(orders[0]!));
  const other = { ...v, item: { ...v.item, index: (v.item.index + 1) % 9 } };
  const bad = [
    JSON.stringify(v, null, 1),
    JSON.stringify({ ...v, extra: 1 }),
    encodeWorkOrder(other), // the item digest no longer recomputes
    encodeWorkOrder({ ...v, seed: "00".repeat(32) }),
  ];
  for (const b of bad) assert.throws(() => parseWorkOrder(b), code("ORDER_INVALID"), b);
});

Deno.test("parseWorkOrder() holds the audit and log ids to their patterns, as plans are, even with a recomputed item digest", () => {
  const v = JSON.parse(encodeWorkOrder(orders[0]!));
  const cases: [string, string][] = [
    ["auditId", "w\u2011x"],
    ["auditId", "w\n"],
    ["logId", "l\u001b[2J"],
  ];
  for (const [field, value] of cases) {
    const o = { ...v, [field]: value };
    const item = { ...o.item, item: itemDigest(o, o.item) };
    const text = encodeWorkOrder({ ...o, item });
    assert.throws(
      () => parseWorkOrder(text),
      code("ORDER_INVALID"),
      `${field} ${JSON.stringify(value)}`,
    );
  }
});

Deno.test("workOrders() carry the serve's id, which parseWorkOrder() requires as a lowercase UUID", () => {
  for (const o of orders) assert.equal(o.serve, serve);
  const v = JSON.parse(encodeWorkOrder(orders[0]!));
  const { serve: _, ...none } = v;
  const bad = [
    encodeWorkOrder(none),
    encodeWorkOrder({ ...v, serve: serve.toUpperCase() }),
    encodeWorkOrder({ ...v, serve: `${serve}0` }),
    encodeWorkOrder({ ...v, serve: null }),
  ];
  for (const b of bad) assert.throws(() => parseWorkOrder(b), code("ORDER_INVALID"), b);
  assert.throws(
    () => workOrders(plan, { planDigest: auditPlanDigest(plan), serve: "one" }),
    RangeError,
  );
});

Deno.test("checkWorkOrder() refuses a worker log that is not the audit's", () => {
  assert.throws(() => checkWorkOrder(orders[0]!, futureLog(10)), code("PLAN_LOG_MISMATCH"));
});

Deno.test("checkWorkOrder() and checkPlanLog() refuse an item whose kind or fingerprint is not its record's", () => {
  const o = orders[0]!;
  const kind = { ...o, item: { ...o.item, kind: "sequence" } };
  const claimed = { ...o, item: { ...o.item, claimed: "cd".repeat(32) } };
  assert.notEqual(o.item.kind, "sequence");
  assert.notEqual(o.item.claimed, claimed.item.claimed);
  for (const bad of [kind, claimed]) {
    assert.throws(() => checkWorkOrder(bad, log), code("PLAN_LOG_MISMATCH"));
    assert.throws(
      () => checkPlanLog({ ...plan, items: [bad.item] }, log),
      code("PLAN_LOG_MISMATCH"),
    );
  }
  checkPlanLog(plan, log);
});

Deno.test("checkPlanLog() refuses a plan whose log id is not the log's (the id is signed into the verdict)", () => {
  assert.throws(
    () => checkPlanLog({ ...plan, logId: "another-log" }, log),
    (e: unknown) =>
      code("PLAN_LOG_MISMATCH")(e) && /log id is .*the plan's 'another-log'/.test(String(e)),
  );
  checkPlanLog(plan, log);
});

Deno.test("checkWorkOrder() refuses an order naming another log id than the worker's log", () => {
  const renamed = workOrders({ ...plan, logId: "another-log" }, {
    planDigest: auditPlanDigest(plan),
    serve,
  })[0]!;
  assert.equal(parseWorkOrder(encodeWorkOrder(renamed)).logId, "another-log");
  assert.throws(() => checkWorkOrder(renamed, log), code("PLAN_LOG_MISMATCH"));
  checkWorkOrder(orders[0]!, log);
});

Deno.test("parseWorkOrder() reads at most 96 values (32 and the plan's most signers), refusing a larger text unread (review h115)", () => {
  const text = `{"item":[${"0,".repeat(1_000)}0]} and then not JSON`;
  assert.throws(
    () => parseWorkOrder(text),
    (e: unknown) =>
      code("ORDER_INVALID")(e) &&
      /^Cannot read a work order: more than 96 values at '\$\.item\[94\]'$/.test(
        (e as Error).message,
      ),
  );
});

Deno.test("workOrders() carry the plan's budget a record, which parseWorkOrder() reads back (1..2^53 - 1)", () => {
  const budgeted = planAudit(log, {
    auditId: "w",
    randomness: "02".repeat(32),
    round: 4,
    k: 3,
    maxRecordProducts: 777,
  });
  const [o] = workOrders(budgeted, { planDigest: auditPlanDigest(budgeted), serve });
  assert.equal(o!.maxRecordProducts, 777);
  assert.deepEqual(parseWorkOrder(encodeWorkOrder(o!)), o);
  assert.ok(!("maxRecordProducts" in orders[0]!), "none where the plan sets none");
  for (const bad of [0, -3, 2.5, 2 ** 53]) {
    const t = encodeWorkOrder(o!).replace(/"maxRecordProducts":777/, `"maxRecordProducts":${bad}`);
    assert.throws(() => parseWorkOrder(t), code("ORDER_INVALID"), t);
  }
});

Deno.test("workOrders() name the plan's signers (key ids), which parseWorkOrder() reads back and holds to at most MAX_PLAN_SIGNATURES distinct key ids", () => {
  const signatures = ["0a", "0b"].map((b) => ({ keyid: b.repeat(32), sig: "AA==" }));
  const [order] = workOrders({ ...plan, signatures }, { planDigest: auditPlanDigest(plan), serve });
  assert.deepEqual(order!.signers, signatures.map((s) => s.keyid));
  assert.deepEqual(parseWorkOrder(encodeWorkOrder(order!)), order);
  assert.deepEqual(orders[0]!.signers, []); // an unsigned plan (served from one process)
  const v = JSON.parse(encodeWorkOrder(order!));
  const { signers: _, ...none } = v;
  const bad = [
    JSON.stringify(none),
    encodeWorkOrder({ ...v, signers: "0a".repeat(32) }),
    encodeWorkOrder({ ...v, signers: ["0A".repeat(32)] }),
    encodeWorkOrder({ ...v, signers: ["0a".repeat(32), "0a".repeat(32)] }),
    encodeWorkOrder({
      ...v,
      signers: Array.from({ length: 65 }, (_, i) => i.toString(16).padStart(64, "0")),
    }),
  ];
  for (const b of bad) assert.throws(() => parseWorkOrder(b), code("ORDER_INVALID"), b);
});
