import assert from "node:assert/strict";
import {
  auditPlanDigest,
  encodeItemResult,
  type ItemResult,
  mergeAdmission,
  mergeItemResults,
  MISSING_RESULT_REASON,
  ownBuild,
  parseItemResult,
  resultInconsistency,
  runAudit,
  workItem,
} from "../../src/verify/mod.ts";
import { futureAudit } from "./_future_audit.ts";

const inputs = { auditId: "m", randomness: "01".repeat(32), round: 3, k: 5 };
const { log, plan, planDigest, ctx, results } = await futureAudit(12, inputs);
const WORKER = "77".repeat(32);
const merge = (rs: ItemResult[]) =>
  mergeItemResults(plan, {
    planDigest,
    results: rs.map((result) => ({ result, worker: WORKER })),
    build: ownBuild(ctx.store),
  });
const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

Deno.test("mergeItemResults() gives runAudit()'s report from results in any order, duplicates agreeing", async () => {
  const single = await runAudit(ctx, { log, ...inputs });
  const merged = merge([...results].reverse().concat(results.slice(0, 2)));
  assert.deepEqual(merged.report, single);
  assert.equal(merged.duplicates, 2);
  assert.deepEqual(merged.missing, []);
  assert.equal(merged.verifier.engine, "reference");
  assert.deepEqual(merged.workers, plan.items.map(() => WORKER));
});

Deno.test("mergeItemResults() makes a missing item NOT_VERIFIED, so the verdict is INCONCLUSIVE", () => {
  const merged = merge(results.slice(1));
  assert.deepEqual(merged.missing, [plan.items[0]!.index]);
  assert.equal(merged.report.results[0]!.reason, MISSING_RESULT_REASON);
  assert.equal(merged.report.verdict, "INCONCLUSIVE");
});

Deno.test("mergeItemResults() fails with MERGE_CONFLICT when two results of one item differ", () => {
  const forged = { ...results[1]!, result: { ...results[1]!.result, reason: "other" } };
  assert.throws(() => merge([...results, forged]), code("MERGE_CONFLICT"));
  const other = { ...results[1]!, result: { ...results[1]!.result, reason: "other reason" } };
  assert.throws(() => merge([other, ...results]), code("MERGE_CONFLICT"));
});

Deno.test("mergeItemResults() names the one worker that signed two different results of an item, not that worker twice", () => {
  const other = { ...results[1]!, result: { ...results[1]!.result, reason: "other reason" } };
  const same = new RegExp(
    `^Cannot merge record ${other.result.index}: worker 7{16} signed two different results for ` +
      `it \\(${results[1]!.result.status}, then ${other.result.status}\\)$`,
  );
  assert.throws(
    () => merge([...results, other]),
    (e: unknown) => same.test(String((e as Error).message)),
  );
  const two = () =>
    mergeItemResults(plan, {
      planDigest,
      results: [
        { result: results[1]!, worker: "aa".repeat(32) },
        { result: other, worker: "bb".repeat(32) },
      ],
      build: ownBuild(ctx.store),
    });
  assert.throws(two, (e: unknown) =>
    code("MERGE_CONFLICT")(e) &&
    / workers a{16} \([A-Z_]+\) and b{16} \([A-Z_]+\) disagree$/.test((e as Error).message));
});

Deno.test("mergeItemResults() refuses a result whose fields contradict its status (RESULT_INCONSISTENT)", () => {
  const r = results[1]!;
  const passed = { ...r, result: { ...r.result, status: "PASS" as const } };
  assert.throws(() => merge([passed]), code("RESULT_INCONSISTENT"));
  const recomputed = r.result.claimed;
  const forged = {
    ...r,
    result: { ...r.result, status: "PASS" as const, recomputed, steps: [] },
  };
  // recomputed = claimed, but a PASS of a kind this version cannot verify, with no steps
  assert.throws(() => merge([forged]), code("RESULT_INCONSISTENT"));
});

Deno.test("mergeItemResults() refuses a layer-chain FAIL about a record whose claim has no layer chain", () => {
  const r = results[1]!;
  assert.equal(plan.items[1]!.kind, "speculative_decode");
  const chainFail = {
    ...r.result,
    status: "FAIL" as const,
    recomputed: r.result.claimed,
    finding: "layer-chain" as const,
    firstDivergence: { layer: 0, stage: "mlp" as const, layers: 1 },
    steps: [{ step: "compare", ok: false, detail: "layer chain differs" }],
  };
  assert.throws(() => merge([{ ...r, result: chainFail }]), code("RESULT_INCONSISTENT"));
  assert.match(resultInconsistency(chainFail, { kind: "gemm", chain: true }) ?? "", /gemm/);
  assert.equal(resultInconsistency(chainFail, { kind: "model_forward", chain: true }), null);
});

Deno.test("resultInconsistency(): a greedy-token FAIL can only be about a record that claims greedy tokens (a sequence)", () => {
  const tokenFail = {
    ...results[1]!.result,
    status: "FAIL" as const,
    recomputed: results[1]!.result.claimed,
    finding: "greedy-token" as const,
    firstDifference: null,
    steps: [{ step: "tokens", ok: false, detail: "token 3 is not the argmax" }],
  };
  for (const kind of ["gemm", "model_forward", "attention_block", "ffn_block"]) {
    assert.match(
      resultInconsistency(tokenFail, { kind, chain: true }) ?? "",
      new RegExp(`greedy-token FAIL about a ${kind} record`),
    );
  }
  assert.equal(resultInconsistency(tokenFail, { kind: "sequence", chain: true }), null);
});

Deno.test("resultInconsistency(): a PASS of a workload kind named like an object's inherited member is a kind this version cannot verify, not a crash", () => {
  const r = results[0]!.result;
  const pass = {
    ...r,
    status: "PASS" as const,
    recomputed: r.claimed,
    firstDifference: null,
    steps: [{ step: "inclusion", ok: true, detail: "" }],
  };
  const { finding: _f, obligation: _o, ...clean } = pass as typeof pass & {
    finding?: unknown;
    obligation?: unknown;
  };
  for (const kind of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    assert.equal(
      resultInconsistency(clean, { kind, chain: true }),
      `a PASS of workload kind '${kind}', which cannot be verified`,
    );
  }
});

Deno.test("mergeItemResults() refuses results of another plan, another record, another version, two asset digests", () => {
  const r = results[0]!;
  assert.throws(() => merge([{ ...r, plan: "00".repeat(32) }]), code("MERGE_FOREIGN"));
  assert.throws(() => merge([{ ...r, item: "00".repeat(32) }]), code("MERGE_FOREIGN"));
  const other = { ...r, result: { ...r.result, index: r.result.index + 1 } };
  assert.throws(() => merge([other]), code("MERGE_MISMATCH"));
  // The plan's index with another record's digest, or another claimed fingerprint (its recomputed
  // one moved with it, so that the result stays consistent with itself).
  const about = /it is about another record$/;
  const mismatch = (e: unknown) => code("MERGE_MISMATCH")(e) && about.test((e as Error).message);
  const digest = { ...r, result: { ...r.result, digest: "ee".repeat(32) } };
  assert.throws(() => merge([digest]), mismatch);
  const same = (h: string | null) => h === r.result.claimed ? "ee".repeat(32) : h;
  const claimed = {
    ...r,
    result: { ...r.result, claimed: "ee".repeat(32), recomputed: same(r.result.recomputed) },
  };
  assert.throws(() => merge([claimed]), mismatch);
  const old = { ...r, verifier: { ...r.verifier, version: "0.0.1" } };
  assert.throws(() => merge([old]), code("MERGE_VERSION"));
  // The same version from another build (its manifest names other code or tables; review h99).
  const build = { ...r, assets: { ...r.assets, "tables/manifest.json": "00".repeat(32) } };
  assert.throws(
    () => merge([build]),
    (e: unknown) =>
      code("MERGE_VERSION")(e) &&
      /computed by another build \(version '[^']+', manifest 0000000000000000…\)/.test(
        (e as Error).message,
      ),
  );
  // One asset path with two digests (the manifest the same): a path neither result names, so
  // that each result alone stays consistent with itself.
  const path = "profiles/gpu/zz-test.json";
  const one = { ...r, assets: { ...r.assets, [path]: "01".repeat(32) } };
  const two = { ...results[1]!, assets: { ...results[1]!.assets, [path]: "02".repeat(32) } };
  assert.throws(() => merge([one, two]), code("MERGE_ASSET_CONFLICT"));
});

Deno.test("parseItemResult() reads its canonical line back and refuses anything else", () => {
  const line = encodeItemResult(results[0]!).trimEnd();
  assert.deepEqual(parseItemResult(line, "x"), results[0]);
  const v = JSON.parse(line);
  const bad = [
    JSON.stringify(v, null, 1),
    line.replace('{"assets"', '{"timing":{"ms":1,"threads":1},"assets"'),
    JSON.stringify({ ...v, timing: { ms: 1 } }),
    JSON.stringify({ ...v, extra: 1 }),
    JSON.stringify({ ...v, result: { ...v.result, status: "OK" } }),
    JSON.stringify({ ...v, result: { ...v.result, surprise: 1 } }),
    JSON.stringify({ ...v, assets: { "../x": "00".repeat(32) } }),
    "not json",
  ];
  for (const b of bad) assert.throws(() => parseItemResult(b, "x"), code("RESULT_INVALID"), b);
});

Deno.test("parseItemResult() reads back the serve id a pool worker signs into its result (a shard's has none), and refuses one that is not a lowercase UUID", () => {
  const serve = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0";
  const pooled: ItemResult = { ...results[0]!, serve };
  const line = encodeItemResult(pooled).trimEnd();
  assert.deepEqual(parseItemResult(line, "x"), pooled);
  assert.equal("serve" in parseItemResult(encodeItemResult(results[0]!).trimEnd(), "x"), false);
  const v = JSON.parse(line);
  const bad = [
    JSON.stringify({ ...v, serve: serve.toUpperCase() }),
    JSON.stringify({ ...v, serve: serve.replaceAll("-", "") }),
    JSON.stringify({ ...v, serve: null }),
    JSON.stringify({ ...v, serve: 7 }),
  ].map((b) => encodeItemResult(JSON.parse(b)).trimEnd());
  for (const b of bad) assert.throws(() => parseItemResult(b, "x"), code("RESULT_INVALID"), b);
  // The serve id is not what a verdict signs: a pool result and a shard's of one item agree.
  assert.equal(merge([pooled, ...results]).duplicates, 1);
});

Deno.test("parseItemResult() reads back the budget a record a worker signs into its result, and refuses one that is no whole number in 1..2^53 - 1", () => {
  const budgeted = { ...results[0]!, maxRecordProducts: 777 };
  const line = encodeItemResult(budgeted).trimEnd();
  assert.deepEqual(parseItemResult(line, "x"), budgeted);
  for (const bad of [0, -3, 2.5, 2 ** 53, "777"]) {
    const b = line.replace(/"maxRecordProducts":777/, `"maxRecordProducts":${JSON.stringify(bad)}`);
    assert.throws(() => parseItemResult(b, "x"), code("RESULT_INVALID"), b.slice(0, 80));
  }
});

Deno.test("parseItemResult() reads a model-forward FAIL's first diverging layer back, and refuses a bad one (issue 17)", () => {
  const firstDivergence = { layer: 7, stage: "mlp" as const, layers: 36 };
  const chainFail = {
    ...results[0]!.result,
    status: "FAIL" as const,
    recomputed: results[0]!.result.claimed,
    finding: "layer-chain" as const,
    firstDivergence,
    steps: [{ step: "compare", ok: false, detail: "layer chain differs" }],
  };
  const r = { ...results[0]!, result: chainFail };
  const line = encodeItemResult(r).trimEnd();
  assert.deepEqual(parseItemResult(line, "x").result.firstDivergence, firstDivergence);
  const v = JSON.parse(line);
  const bad = [
    { layer: 36, stage: "mlp", layers: 36 },
    { layer: 7, stage: "ffn", layers: 36 },
    { layer: -1, stage: "mlp", layers: 36 },
    { layer: 7, stage: "mlp", layers: 36, step: 2 },
    { layer: 7, stage: "mlp" },
    { layer: 7, stage: "mlp", layers: 1025 },
    { layer: 7, stage: "mlp", layers: 4503599627370495 },
    { layer: 0, stage: "mlp", layers: 0 },
    null,
    undefined,
  ].map((d) => encodeItemResult(_json({ ...v, result: { ...v.result, firstDivergence: d } })));
  for (const b of bad) {
    assert.throws(() => parseItemResult(b.trimEnd(), "x"), code("RESULT_INVALID"), b);
  }
});

Deno.test("parseItemResult() refuses step, SFU and evidence texts no verifier writes (a short token, a clipped component)", () => {
  const r = results[0]!;
  const fail = {
    ...r.result,
    status: "FAIL" as const,
    reason: "fingerprints differ",
    recomputed: r.result.claimed === "ab".repeat(32) ? "cd".repeat(32) : "ab".repeat(32),
    finding: "fingerprint" as const,
    steps: [{ step: "compare", ok: false, detail: "fingerprints differ" }],
    sfu: [{ fn: "ex2", model: "tesla-sfu-v1", status: "spot-checked" as const }],
    evidence: [
      { component: "datapath a100 bf16", level: "derived-from-source" as const },
      { component: "SFU ex2 (tesla-sfu-v1, spot-checked)", level: "derived-from-source" as const },
    ],
  };
  const line = (result: typeof fail) => encodeItemResult({ ...r, result }).trimEnd();
  assert.deepEqual(parseItemResult(line(fail), "x").result, fail);
  const sfuEntry = fail.evidence[1]!;
  const clipped = [{ component: "c".repeat(248), level: "derived-from-source" as const }, sfuEntry];
  assert.ok(parseItemResult(line({ ...fail, evidence: clipped }), "x"));
  const long = "x".repeat(600_000);
  const bad = [
    { ...fail, steps: [{ ...fail.steps[0]!, step: long }] },
    { ...fail, steps: [{ ...fail.steps[0]!, step: "compare\n| forged" }] },
    { ...fail, steps: [{ ...fail.steps[0]!, step: "" }] },
    { ...fail, sfu: [{ ...fail.sfu[0]!, fn: long }] },
    { ...fail, sfu: [{ ...fail.sfu[0]!, fn: "x".repeat(65) }] },
    { ...fail, sfu: [{ ...fail.sfu[0]!, model: long }] },
    { ...fail, sfu: [{ ...fail.sfu[0]!, model: "Tesla SFU" }] },
    { ...fail, evidence: [{ ...fail.evidence[0]!, component: long }, sfuEntry] },
    { ...fail, evidence: [{ ...fail.evidence[0]!, component: "c".repeat(249) }, sfuEntry] },
  ];
  for (const b of bad) {
    assert.throws(
      () => parseItemResult(line(b), "x"),
      code("RESULT_INVALID"),
      line(b).slice(0, 200),
    );
  }
});

/** Drops undefined fields, as a JSON round trip does. */
function _json<T>(v: T): T {
  return JSON.parse(JSON.stringify(v));
}

Deno.test("parseItemResult() reads a breached prover obligation back (a FAIL only), so sharded audits merge it", () => {
  const fail = {
    ...results[0]!.result,
    status: "FAIL" as const,
    obligation: "committed-input" as const,
    finding: "committed-input" as const,
    steps: [{ step: "check", ok: false, detail: "weights missing" }],
  };
  const line = encodeItemResult({ ...results[0]!, result: fail }).trimEnd();
  assert.equal(parseItemResult(line, "x").result.obligation, "committed-input");
  const v = JSON.parse(line);
  const bad = [
    { ...v.result, obligation: "other" },
    { ...v.result, status: "PASS" },
    { ...v.result, obligation: 1 },
    { ...v.result, finding: "contradiction" },
    { ...v.result, obligation: undefined },
    { ...v.result, recomputed: "cd".repeat(32) },
  ].map((r) => encodeItemResult(_json({ ...v, result: r })).trimEnd());
  for (const b of bad) assert.throws(() => parseItemResult(b, "x"), code("RESULT_INVALID"), b);
});

Deno.test("parseItemResult() reads a fingerprint FAIL's first difference as the engine writes it (0x bit patterns)", () => {
  const fail = {
    ...results[0]!.result,
    status: "FAIL" as const,
    recomputed: "cd".repeat(32),
    finding: "fingerprint" as const,
    firstDifference: { index: 3, claimed: "0x416e", recomputed: "0x416f" },
    steps: [{ step: "compare", ok: false, detail: "fingerprints differ" }],
  };
  const line = encodeItemResult({ ...results[0]!, result: fail }).trimEnd();
  assert.deepEqual(parseItemResult(line, "x").result.firstDifference, fail.firstDifference);
  const v = JSON.parse(line);
  const bad = [
    { ...v.result, firstDifference: { index: 3, claimed: "416e", recomputed: "0x416f" } },
    { ...v.result, firstDifference: { index: 3, claimed: "0x416e", recomputed: "0x416e" } },
    { ...v.result, recomputed: v.result.claimed },
    { ...v.result, finding: undefined },
    { ...v.result, status: "NOT_VERIFIED", finding: undefined },
    { ...v.result, steps: [{ step: "compare", ok: true, detail: "fingerprints differ" }] },
  ].map((r) => encodeItemResult(_json({ ...v, result: r })).trimEnd());
  for (const b of bad) assert.throws(() => parseItemResult(b, "x"), code("RESULT_INVALID"), b);
});

Deno.test("mergeItemResults() credits agreeing duplicates to the lowest worker key, in any order", () => {
  const LOW = "11".repeat(32);
  const attributed = (worker: string) => results.map((result) => ({ result, worker }));
  const forward = mergeItemResults(plan, {
    planDigest,
    results: [...attributed(WORKER), ...attributed(LOW)],
    build: ownBuild(ctx.store),
  });
  const backward = mergeItemResults(plan, {
    planDigest,
    results: [...attributed(LOW), ...attributed(WORKER)],
    build: ownBuild(ctx.store),
  });
  assert.deepEqual(forward.workers, plan.items.map(() => LOW));
  assert.deepEqual(backward, forward);
});

Deno.test("mergeItemResults() refuses a result computed under another budget a record than the plan's (a forged work order's): MERGE_FOREIGN naming the record, the item and both budgets", async () => {
  const item = plan.items[1]!;
  // What a pool worker signs after taking a forged work order that carries a budget of 1000
  // (review h180): before, nothing in the result showed it, and the merge took it.
  const forged = await workItem(ctx, { planDigest, log, item, maxRecordProducts: 1000 });
  const rest = results.filter((r) => r.item !== item.item);
  const refusal = new RegExp(
    `^Cannot merge record ${item.index} \\(item ${item.item.slice(0, 16)}\\) from worker 7{16}: ` +
      "it was computed under a budget of 1000 products a record, the plan's is the default " +
      "\\(2\\^48\\): it answers a work order that is not the plan's",
  );
  const refused = (e: unknown) => code("MERGE_FOREIGN")(e) && refusal.test((e as Error).message);
  assert.throws(() => merge([forged, ...rest]), refused);
  // In every order: never compared with (or kept as) a duplicate of the honest result.
  assert.throws(() => merge([...results, forged]), refused);
  assert.throws(() => merge([forged, ...results]), refused);
  // A plan with a budget: a result stating none (the default) or another is refused; the plan's
  // own is admitted.
  const budgeted = { ...plan, maxRecordProducts: 5000 };
  const digest = auditPlanDigest(budgeted);
  const admit = mergeAdmission(budgeted, { planDigest: digest, build: ownBuild(ctx.store) });
  const r = { ...results[1]!, plan: digest };
  const signed = (result: ItemResult) => ({ result, worker: WORKER });
  assert.throws(
    () => admit(signed(r)),
    (e: unknown) =>
      code("MERGE_FOREIGN")(e) &&
      /under a budget of the default \(2\^48\) products a record, the plan's is 5000:/.test(
        (e as Error).message,
      ),
  );
  assert.throws(() => admit(signed({ ...r, maxRecordProducts: 5001 })), code("MERGE_FOREIGN"));
  assert.throws(() => admit(signed({ ...r, maxRecordProducts: 2 ** 48 })), code("MERGE_FOREIGN"));
  assert.equal(admit(signed({ ...r, maxRecordProducts: 5000 })), 1);
});

Deno.test("parseItemResult() reads back the budget a record a worker states, and refuses one that is not an integer in 1..2^53 - 1", () => {
  const budgeted: ItemResult = { ...results[0]!, maxRecordProducts: 4096 };
  const line = encodeItemResult(budgeted).trimEnd();
  assert.deepEqual(parseItemResult(line, "x"), budgeted);
  const top: ItemResult = { ...results[0]!, maxRecordProducts: Number.MAX_SAFE_INTEGER };
  assert.deepEqual(parseItemResult(encodeItemResult(top).trimEnd(), "x"), top);
  const v = JSON.parse(line);
  for (const b of [0, -1, 1.5, "4096", null, 2 ** 53]) {
    const text = JSON.stringify({ ...v, maxRecordProducts: b });
    assert.throws(() => parseItemResult(text, "x"), code("RESULT_INVALID"), text);
  }
});
