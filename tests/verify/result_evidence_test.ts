/**
 * Evidence in a result that crossed a machine boundary: read strictly (known levels, exact
 * fields), listed only where a recomputation ran, and the weakest entry found as reports show it.
 */
import assert from "node:assert/strict";
import {
  type ComponentEvidence,
  evidenceShortfall,
  meetsEvidence,
  parseRecordResult,
  resultInconsistency,
  weakestEvidence,
} from "../../src/verify/mod.ts";

const bad = (why: string): never => {
  throw new Error(why);
};
const base = {
  index: 0,
  digest: "11".repeat(32),
  status: "PASS",
  reason: "recomputed output matches the fingerprint bit for bit",
  claimed: "22".repeat(32),
  recomputed: "22".repeat(32),
  firstDifference: null,
  steps: [{ step: "compare", ok: true, detail: "fingerprints equal" }],
};
const evidence: ComponentEvidence[] = [
  { component: "datapath a100 mma-bf16-fp32", level: "measured-on-gpu" },
  { component: "decoder layer (llama)", level: "derived-from-source" },
];

Deno.test("a result's evidence is read strictly", () => {
  const r = parseRecordResult({ ...base, evidence }, { bad });
  assert.deepEqual(r.evidence, evidence);
  assert.throws(
    () => parseRecordResult({ ...base, evidence: [{ component: "x", level: "hearsay" }] }, { bad }),
    /'result\.evidence\[0\]\.level' is unknown/,
  );
  assert.throws(
    () =>
      parseRecordResult({
        ...base,
        evidence: [{ component: "x", level: "measured-on-gpu", extra: 1 }],
      }, { bad }),
    /extra/,
  );
  assert.throws(() => parseRecordResult({ ...base, evidence: "all good" }, { bad }), /array/);
});

Deno.test("evidence belongs to a recomputation: a NOT_VERIFIED that never recomputed lists none", () => {
  const unsupported = {
    ...base,
    status: "NOT_VERIFIED" as const,
    reason: "attention backend 'cudnn-sdpa' is not modelled",
    recomputed: null,
    steps: [{ step: "support", ok: false, detail: "attention backend 'cudnn-sdpa'" }],
  };
  assert.equal(resultInconsistency(unsupported, { chain: true }), null);
  assert.match(
    resultInconsistency({ ...unsupported, evidence: [evidence[0]!] } as never, { chain: true })!,
    /lists evidence without a recomputation/,
  );
});

Deno.test("a recomputation rests on something: an empty evidence list is refused (it would read as no component, meeting any --require-evidence)", () => {
  assert.equal(resultInconsistency({ ...base, evidence } as never, { chain: true }), null);
  assert.match(
    resultInconsistency({ ...base, evidence: [] } as never, { chain: true })!,
    /a PASS lists an empty evidence list/,
  );
});

Deno.test("levels order from source to measured; the weakest entry is the first of the lowest", () => {
  assert.ok(meetsEvidence("measured-on-gpu", "checked-against-peer"));
  assert.ok(meetsEvidence("checked-against-peer", "checked-against-peer"));
  assert.ok(!meetsEvidence("derived-from-source", "checked-against-peer"));
  assert.equal(weakestEvidence(evidence)?.component, "decoder layer (llama)");
  assert.equal(weakestEvidence([]), null);
});

Deno.test("evidenceShortfall() names the weakest component below the required level, and a list of none as showing nothing", () => {
  assert.equal(evidenceShortfall(evidence, "derived-from-source"), null);
  assert.equal(
    evidenceShortfall(evidence, "checked-against-peer"),
    "it rests on decoder layer (llama), derived-from-source, below the required checked-against-peer",
  );
  assert.equal(evidenceShortfall([evidence[0]!], "measured-on-gpu"), null);
  for (const none of [undefined, []]) {
    assert.equal(
      evidenceShortfall(none, "derived-from-source"),
      "it lists no evidence, so nothing shows the required derived-from-source",
    );
  }
});

Deno.test("a result's reason and step details are read no longer than a verifier writes them", () => {
  const at = (n: number) => "x".repeat(n);
  assert.equal(parseRecordResult({ ...base, reason: at(2048) }, { bad }).reason.length, 2048);
  assert.throws(() => parseRecordResult({ ...base, reason: at(5e6) }, { bad }), /longer than 2048/);
  const step = { step: "compare", ok: true, detail: at(2049) };
  assert.throws(
    () => parseRecordResult({ ...base, steps: [step] }, { bad }),
    /steps\[0\]\.detail' is longer/,
  );
});

Deno.test("each SFU function a result lists is in its evidence list at the level its status gives (review h123)", () => {
  // --require-evidence reads the evidence list alone: an SFU list of model-only functions beside
  // an evidence list of measured components met a measured-on-gpu policy it does not meet.
  const sfu = [{ fn: "ex2", model: "tesla-sfu-v1", status: "model-only" as const }];
  const entry: ComponentEvidence = {
    component: "SFU ex2 (tesla-sfu-v1, model-only)",
    level: "derived-from-source",
  };
  const ok = { ...base, sfu, evidence: [...evidence, entry] } as never;
  assert.equal(resultInconsistency(ok, { chain: true }), null);
  const cases: [ComponentEvidence[], string][] = [
    [evidence, "left out"],
    [[...evidence, { ...entry, level: "measured-on-gpu" }], "raised to measured-on-gpu"],
    [
      [...evidence, { ...entry, component: "SFU ex2 (tesla-sfu-v1, exhaustive-on-gpu)" }],
      "other status",
    ],
    [evidence.map((e) => ({ ...e, level: "measured-on-gpu" as const })), "all measured"],
  ];
  for (const [list, what] of cases) {
    const r = { ...base, sfu, evidence: list } as never;
    assert.match(
      resultInconsistency(r, { chain: true }) ?? "consistent",
      /^SFU ex2 is model-only, but the evidence does not list 'SFU ex2 \(tesla-sfu-v1, model-only\)' at derived-from-source$/,
      what,
    );
    assert.throws(() => parseRecordResult(r, { bad }), /SFU ex2 is model-only/, what);
  }
  // A result that lists no evidence states nothing stronger than the weakest level: read so.
  assert.equal(resultInconsistency({ ...base, sfu } as never, { chain: true }), null);
});

Deno.test("parseRecordResult() refuses a list with holes a caller built by hand (evidence of 3 empty items was kept, and evidenceShortfall() then threw a TypeError)", () => {
  const holes = (n: number): unknown[] => {
    const a: unknown[] = [];
    a.length = n;
    return a;
  };
  const sfu = [{ fn: "ex2", model: "tesla-sfu-v1", status: "model-only" }];
  const cases: [string, Record<string, unknown>][] = [
    ["evidence", { evidence: holes(3) }],
    ["evidence", { evidence: [evidence[0], , evidence[1]] }],
    ["sfu", { sfu: holes(2), evidence }],
    ["sfu", { sfu: [...sfu, , ...sfu] }],
    ["steps", { steps: Object.assign(holes(2), [base.steps[0]]) }],
  ];
  for (const [key, fields] of cases) {
    assert.throws(
      () => parseRecordResult({ ...base, ...fields }, { bad }),
      new RegExp(`^Error: 'result\\.${key}\\[\\d\\]': expected an item, got a hole$`),
      key,
    );
  }
  // The lists kept are copies: what was checked is what the caller holds.
  const list = [...evidence];
  const r = parseRecordResult({ ...base, evidence: list }, { bad });
  assert.notEqual(r.evidence, list);
  assert.deepEqual(r.evidence, list);
  assert.equal(evidenceShortfall(r.evidence, "derived-from-source"), null);
});
