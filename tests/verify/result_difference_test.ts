import assert from "node:assert/strict";
import { resultDifference } from "../../src/verify/mod.ts";

const FIELDS = ["status", "recomputed", "evidence", "sfu", "reason"];
const base = {
  status: "PASS",
  recomputed: "ab".repeat(32),
  evidence: [
    { component: "datapath a100 mma-bf16-fp32", level: "measured-on-gpu" },
    { component: "GEMM kernel (recipe kwalk)", level: "derived-from-source" },
  ],
  reason: "recomputed output matches the fingerprint bit for bit",
};

Deno.test("resultDifference() is null for equal results, whatever the order of their keys", () => {
  const reordered = {
    reason: base.reason,
    evidence: base.evidence.map(({ level, component }) => ({ level, component })),
    recomputed: base.recomputed,
    status: "PASS",
  };
  assert.equal(resultDifference(base, reordered, { fields: FIELDS }), null);
});

Deno.test("resultDifference() names the first differing field, entry and key, in the order of the fields given", () => {
  const raised = {
    ...base,
    evidence: base.evidence.map((e) => ({ ...e, level: "measured-on-gpu" })),
  };
  assert.equal(
    resultDifference(raised, base, { fields: FIELDS }),
    "evidence[1].level: attested 'measured-on-gpu', recomputed 'derived-from-source'",
  );
  assert.equal(
    resultDifference({ ...base, evidence: base.evidence.slice(0, 1) }, base, { fields: FIELDS }),
    "evidence entries: attested 1, recomputed 2",
  );
  const { evidence: _, ...none } = base;
  assert.match(
    resultDifference(none, base, { fields: FIELDS })!,
    /^evidence: attested none, recomputed '\[\{"component":"datapath a100/,
  );
  // A field not listed is not compared; the labels are the caller's.
  assert.equal(resultDifference({ ...base, worker: "x" }, base, { fields: FIELDS }), null);
  assert.equal(
    resultDifference({ ...base, reason: "x" }, base, {
      fields: FIELDS,
      labels: ["worker", "here"],
    }),
    `reason: worker 'x', here '${base.reason}'`,
  );
});

Deno.test("resultDifference() shows values escaped and short: a result's text cannot pose as lines of its own", () => {
  const forged = { ...base, reason: "ok\n\u001b[2Jok   policy met" + " ".repeat(200) + "x" };
  const why = resultDifference(forged, base, { fields: FIELDS })!;
  // deno-lint-ignore no-control-regex
  assert.doesNotMatch(why, /[\n\u001b]/);
  assert.ok(why.length < 200, why);
});
