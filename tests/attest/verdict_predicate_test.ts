import assert from "node:assert/strict";
import {
  buildVerdictPredicate,
  generateKeyPair,
  InputError,
  keyId,
  parseVerdictPredicate,
  type VerdictPredicate,
  type VerdictPredicateCode,
} from "../../mod.ts";
import { SFU_EVIDENCE, verdictReport } from "./_verdict_report.ts";
import { MAX_PRODUCT_BUDGET } from "../../src/verify/mod.ts";
import { isCode } from "../_assert_code.ts";

const options = {
  verifier: { version: "0.1.0", engine: "wasm", runtime: "deno 2.9.6" },
  assets: { "tables/manifest.json": "66".repeat(32), "profiles/a100.json": "77".repeat(32) },
  timeVerified: "2026-03-01T12:00:00Z",
};
const built = buildVerdictPredicate(verdictReport(), options);
/** The predicate as a verifier receives it: plain JSON. */
const json = (): Record<string, unknown> => JSON.parse(JSON.stringify(built));
const code = (c: VerdictPredicateCode) => isCode(InputError, c);

type Json = Record<string, unknown> | unknown[];
/** Every object in the predicate with its path, the free-form `assets` map excluded. */
function objects(value: unknown, path = "predicate"): [string, Record<string, unknown>][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => objects(v, `${path}[${i}]`));
  if (typeof value !== "object" || value === null || path === "predicate.assets") return [];
  const obj = value as Record<string, unknown>;
  return [[path, obj], ...Object.entries(obj).flatMap(([k, v]) => objects(v, `${path}.${k}`))];
}
/** A fresh copy of the predicate with the object at `path` changed by `edit`. */
function edited(path: string, edit: (o: Json) => void): Record<string, unknown> {
  const copy = json();
  const found = objects(copy).find(([p]) => p === path);
  if (found === undefined) throw new Error(`no object at ${path}`);
  edit(found[1]);
  return copy;
}

Deno.test("parseVerdictPredicate() returns what buildVerdictPredicate() built, through JSON", () => {
  const back: VerdictPredicate = parseVerdictPredicate(json());
  assert.deepEqual(back, built);
  assert.equal(back.verdict, "FAILED");
  const statuses = back.results.map((r) => r.status).sort();
  assert.ok(statuses.includes("FAIL") && statuses.includes("NOT_VERIFIED"), statuses.join());
  assert.ok(back.results.some((r) => r.sfu?.[0]?.status === "spot-checked"));
  assert.ok(back.results.some((r) => r.firstDifference?.claimed === "0x3f49"));
});

Deno.test("buildVerdictPredicate() leaves out the pipeline trace and writes sfu only when used", () => {
  const r = json().results as Record<string, unknown>[];
  assert.ok(r.every((x) => !("steps" in x)));
  assert.deepEqual(r.filter((x) => !("sfu" in x)).map((x) => x.index).sort(), [1, 2]);
  assert.equal(built.audit.k, built.audit.selected.length);
  assert.deepEqual(built.verifier, { id: "bitaudit", ...options.verifier });
});

Deno.test("parseVerdictPredicate() throws VERDICT_FIELD_MISSING for each missing field", () => {
  let cases = 0;
  for (const [path, obj] of objects(json())) {
    for (const key of Object.keys(obj)) {
      const p = edited(path, (o) => delete (o as Record<string, unknown>)[key]);
      if (key === "sfu") {
        assert.doesNotThrow(() => parseVerdictPredicate(p), `${path}.${key} is optional`);
        continue;
      }
      if (key === "finding") {
        // Optional in form, required on a FAIL: without it the result contradicts its status.
        assert.throws(() => parseVerdictPredicate(p), code("VERDICT_FIELD_VALUE"), path);
        continue;
      }
      assert.throws(
        () => parseVerdictPredicate(p),
        code("VERDICT_FIELD_MISSING"),
        `${path}.${key}`,
      );
      cases++;
    }
  }
  assert.ok(cases > 40, `${cases} cases`);
  assert.throws(() => parseVerdictPredicate(undefined), code("VERDICT_FIELD_MISSING"));
  const { results: _, ...noResults } = json();
  assert.throws(() => parseVerdictPredicate(noResults), (e: unknown) => {
    return code("VERDICT_FIELD_MISSING")(e) && /'predicate\.results' is missing/.test(String(e));
  });
});

Deno.test("parseVerdictPredicate() throws VERDICT_FIELD_UNKNOWN for an extra field anywhere", () => {
  for (const [path] of objects(json())) {
    const p = edited(path, (o) => (o as Record<string, unknown>).extra = 1);
    assert.throws(() => parseVerdictPredicate(p), code("VERDICT_FIELD_UNKNOWN"), path);
  }
  const proto = JSON.parse(
    JSON.stringify(built).replace('{"verifier"', '{"__proto__":{},"verifier"'),
  );
  assert.throws(() => parseVerdictPredicate(proto), code("VERDICT_FIELD_UNKNOWN"));
});

Deno.test("parseVerdictPredicate() throws VERDICT_FIELD_TYPE for each field of the wrong type", () => {
  const other = (v: unknown): unknown[] =>
    typeof v === "string"
      ? [1, null, ["x"]]
      : typeof v === "number"
      ? ["1", null, true]
      : Array.isArray(v)
      ? [{}, "x", null]
      : v === null
      ? [true, 1, []]
      : [[], "x", null];
  let cases = 0;
  for (const [path, obj] of objects(json())) {
    for (const [key, value] of Object.entries(obj)) {
      for (const wrong of other(value)) {
        // recomputed and firstDifference may be null: null is their other type, not a wrong one.
        if (wrong === null && (key === "recomputed" || key === "firstDifference")) continue;
        const p = edited(path, (o) => (o as Record<string, unknown>)[key] = wrong);
        assert.throws(
          () => parseVerdictPredicate(p),
          code("VERDICT_FIELD_TYPE"),
          `${path}.${key} = ${JSON.stringify(wrong)}`,
        );
        cases++;
      }
    }
  }
  assert.ok(cases > 150, `${cases} cases`);
  for (const top of [null, [], "predicate", 3]) {
    assert.throws(() => parseVerdictPredicate(top), code("VERDICT_FIELD_TYPE"));
  }
  const asset = edited("predicate", (o) => (o as { assets: unknown }).assets = { "x.json": 5 });
  assert.throws(() => parseVerdictPredicate(asset), code("VERDICT_FIELD_TYPE"));
});

Deno.test("parseVerdictPredicate() throws VERDICT_FIELD_VALUE outside a field's set or range", () => {
  const sfuAt = built.results.findIndex((r) => r.sfu !== undefined);
  const cases: [string, string, unknown][] = [
    ["predicate", "verdict", "PASS"],
    ["predicate.results[0]", "status", "PASSED"],
    [`predicate.results[${sfuAt}].sfu[0]`, "status", "measured"],
    ["predicate.audit", "population", -1],
    ["predicate.audit", "k", 1.5],
    // An audit of no record (`audit` refuses --k 0) would be a verdict on nothing.
    ["predicate.audit", "k", 0],
    // An id of the announced form with no announcement to derive it from.
    ["predicate.audit", "auditId", `announced-${"0".repeat(32)}`],
    // Its lookalike (U+2011 for the hyphen), a control character, none, too long (review h123).
    ["predicate.audit", "auditId", `announced\u2011${"0".repeat(32)}`],
    ["predicate.audit", "auditId", "x\n# heading"],
    ["predicate.audit", "auditId", ""],
    ["predicate.audit", "auditId", "a".repeat(129)],
    ["predicate.audit.beacon", "round", 2 ** 53],
    ["predicate.results[0]", "index", -0.5],
  ];
  for (const [path, key, value] of cases) {
    const p = edited(path, (o) => (o as Record<string, unknown>)[key] = value);
    assert.throws(() => parseVerdictPredicate(p), code("VERDICT_FIELD_VALUE"), `${path}.${key}`);
  }
});

Deno.test("parseVerdictPredicate() refuses a seed derivation, sampling algorithm or engine that no audit writes", () => {
  // Review h123: free strings, shown by the checker page, that check never compared with what it
  // recomputes with ("...v9 (k=1000, exhaustive)", engine "gpu-measured").
  const cases: [string, string, string, RegExp][] = [
    ["predicate.audit", "seedDerivation", "bitaudit/audit-seed/v2", /the one check recomputes/],
    [
      "predicate.audit",
      "algorithm",
      "bitaudit/sha256-counter-sample/v9 (k=1000, exhaustive)",
      /is not 'bitaudit\/sha256-counter-sample\/v1'/,
    ],
    ["predicate.verifier", "engine", "gpu-measured", /is not an engine an audit names/],
    ["predicate.verifier", "engine", "wasm+reference", /is not an engine an audit names/],
    ["predicate.verifier", "engine", "wasm+wasm", /is not an engine an audit names/],
  ];
  for (const [path, key, value, why] of cases) {
    const p = edited(path, (o) => (o as Record<string, unknown>)[key] = value);
    assert.throws(
      () => parseVerdictPredicate(p),
      (e) => code("VERDICT_FIELD_VALUE")(e) && why.test((e as Error).message),
      `${path}.${key}`,
    );
  }
  // What audits write: one engine, a merged audit's '+' set of them, none.
  for (const engine of ["wasm", "reference", "reference+wasm", "none"]) {
    const p = edited("predicate.verifier", (o) => (o as Record<string, unknown>).engine = engine);
    assert.equal(parseVerdictPredicate(p).verifier.engine, engine);
  }
});

Deno.test("parseVerdictPredicate() refuses result texts longer than a verifier writes them, and names that are not tokens", () => {
  const sfuAt = built.results.findIndex((r) => r.sfu !== undefined);
  const recomputedAt = built.results.findIndex((r) => r.recomputed !== null);
  const withEvidence = (component: string) =>
    edited(`predicate.results[${recomputedAt}]`, (o) => {
      const r = o as Record<string, unknown>;
      // With the SFU function it used, as every verifier's list has it.
      r.evidence = [
        { component, level: "derived-from-source" },
        ...(r.sfu === undefined ? [] : [SFU_EVIDENCE]),
      ];
    });
  assert.ok(parseVerdictPredicate(withEvidence("x".repeat(248))));
  const cases: [Record<string, unknown>, string][] = [
    [withEvidence("x".repeat(600_000)), "component"],
    [
      edited(
        "predicate.results[0]",
        (o) => (o as Record<string, unknown>).reason = "r".repeat(2049),
      ),
      "reason",
    ],
    ...["fn", "model"].flatMap((key): [Record<string, unknown>, string][] =>
      ["x".repeat(65), "ex2\n| forged | row", "", "EX2"].map((v) => [
        edited(
          `predicate.results[${sfuAt}].sfu[0]`,
          (o) => (o as Record<string, unknown>)[key] = v,
        ),
        key,
      ])
    ),
  ];
  for (const [p, key] of cases) {
    assert.throws(() => parseVerdictPredicate(p), code("VERDICT_FIELD_VALUE"), key);
  }
});

Deno.test("parseVerdictPredicate() refuses a result whose evidence list leaves out or raises an SFU function it lists (review h123)", () => {
  const at = built.results.findIndex((r) => r.sfu !== undefined);
  const where = `predicate.results[${at}]`;
  const measured = { component: "datapath a100 mma-bf16-fp32", level: "measured-on-gpu" };
  const honest = edited(where, (o) =>
    (o as Record<string, unknown>).evidence = [
      measured,
      SFU_EVIDENCE,
    ]);
  assert.ok(parseVerdictPredicate(honest));
  for (
    const evidence of [
      [measured],
      [measured, { ...SFU_EVIDENCE, level: "measured-on-gpu" }],
    ]
  ) {
    const p = edited(where, (o) => (o as Record<string, unknown>).evidence = evidence);
    assert.throws(
      () => parseVerdictPredicate(p),
      (e) =>
        code("VERDICT_FIELD_VALUE")(e) &&
        /contradicts itself: SFU ex2 is spot-checked, but the evidence does not list/.test(
          (e as Error).message,
        ),
      JSON.stringify(evidence),
    );
  }
});

Deno.test("parseVerdictPredicate() escapes control characters of unknown field names", () => {
  const p = edited("predicate.audit", (o) => (o as Record<string, unknown>)["\u001b[2J\u009b"] = 1);
  assert.throws(() => parseVerdictPredicate(p), (e: unknown) => {
    const m = (e as Error).message;
    const control = [...m].some((c) => c < " " || (c >= "\u007f" && c <= "\u009f"));
    return code("VERDICT_FIELD_UNKNOWN")(e) && !control;
  });
});

Deno.test("buildVerdictPredicate() records the audit's evidence policy only when it had one, and parseVerdictPredicate() reads it strictly", () => {
  assert.ok(!("requireEvidence" in (json().audit as Record<string, unknown>)));
  const strict = buildVerdictPredicate(
    { ...verdictReport(), requireEvidence: "checked-against-peer" },
    options,
  );
  assert.equal(strict.audit.requireEvidence, "checked-against-peer");
  const back = parseVerdictPredicate(JSON.parse(JSON.stringify(strict)));
  assert.deepEqual(back, strict);
  const cases: [unknown, VerdictPredicateCode][] = [
    ["hearsay", "VERDICT_FIELD_VALUE"],
    ["MEASURED-ON-GPU", "VERDICT_FIELD_VALUE"],
    [null, "VERDICT_FIELD_TYPE"],
    [["measured-on-gpu"], "VERDICT_FIELD_TYPE"],
  ];
  for (const [value, c] of cases) {
    const p = edited(
      "predicate.audit",
      (o) => (o as Record<string, unknown>).requireEvidence = value,
    );
    assert.throws(() => parseVerdictPredicate(p), code(c), JSON.stringify(value));
  }
});

Deno.test("buildVerdictPredicate() records the audit's budget a record only when it set one, and parseVerdictPredicate() reads it strictly (1..2^53 - 1)", () => {
  assert.ok(!("maxRecordProducts" in (json().audit as Record<string, unknown>)));
  const budgeted = buildVerdictPredicate({ ...verdictReport(), maxRecordProducts: 4096 }, options);
  assert.equal(budgeted.audit.maxRecordProducts, 4096);
  assert.deepEqual(parseVerdictPredicate(JSON.parse(JSON.stringify(budgeted))), budgeted);
  const cases: [unknown, VerdictPredicateCode][] = [
    [0, "VERDICT_FIELD_VALUE"],
    [-1, "VERDICT_FIELD_VALUE"],
    [1.5, "VERDICT_FIELD_VALUE"],
    [2 ** 53, "VERDICT_FIELD_VALUE"],
    ["4096", "VERDICT_FIELD_TYPE"],
    [null, "VERDICT_FIELD_TYPE"],
  ];
  for (const [value, c] of cases) {
    const p = edited(
      "predicate.audit",
      (o) => (o as Record<string, unknown>).maxRecordProducts = value,
    );
    assert.throws(() => parseVerdictPredicate(p), code(c), JSON.stringify(value));
  }
  // A budget of none is refused by the rule, in the words, a plan's and a work order's is.
  const none = edited(
    "predicate.audit",
    (o) => (o as Record<string, unknown>).maxRecordProducts = 0,
  );
  assert.throws(() => parseVerdictPredicate(none), (e: unknown) => {
    assert.ok(e instanceof InputError && e.code === "VERDICT_FIELD_VALUE");
    assert.equal(
      e.message,
      "Cannot read verdict predicate: 'predicate.audit.maxRecordProducts' must be an integer in " +
        `1..${MAX_PRODUCT_BUDGET}`,
    );
    return true;
  });
});

Deno.test("parseVerdictPredicate(): where results name their workers, one without a worker must be NOT_VERIFIED (an item no worker returned); a PASS or FAIL there is refused", async () => {
  const key = await generateKeyPair();
  const id = keyId(key.publicKey);
  const report = verdictReport();
  const statuses = report.results.map((r) => r.status);
  const passAt = statuses.indexOf("PASS");
  const missingAt = statuses.indexOf("NOT_VERIFIED");
  // Every result by the worker but one NOT_VERIFIED item nobody returned: readable.
  const byResult = report.results.map((_, j) => j === missingAt ? null : id);
  const honest = buildVerdictPredicate(report, {
    ...options,
    workers: { byResult, keys: [key.publicKey], reverified: [] },
  });
  const back = parseVerdictPredicate(JSON.parse(JSON.stringify(honest)));
  assert.equal(back.results[missingAt]!.worker, undefined);
  // A PASS that no worker returned names no one who computed it.
  const forged = JSON.parse(JSON.stringify(honest));
  delete forged.results[passAt].worker;
  assert.throws(
    () => parseVerdictPredicate(forged),
    (e) =>
      code("VERDICT_FIELD_VALUE")(e) &&
      /results\[\d+\]\.status' is PASS with no worker, where the other results name theirs/.test(
        (e as Error).message,
      ),
  );
  // Without any worker named (an audit computed by its signer), no result names one.
  assert.ok(parseVerdictPredicate(json()).results.every((r) => r.worker === undefined));
});

Deno.test("parseVerdictPredicate() refuses arrays with holes: evidence of 3 empty items was accepted as it was", () => {
  const recomputedAt = built.results.findIndex((r) => r.recomputed !== null);
  const empty = (n: number) => {
    const a: unknown[] = [];
    a.length = n;
    return a;
  };
  const cases: [string, string, unknown[]][] = [
    [`predicate.results[${recomputedAt}]`, "evidence", empty(3)],
    ["predicate", "results", empty(built.results.length)],
    ["predicate.audit", "selected", empty(built.audit.selected.length)],
  ];
  for (const [path, key, value] of cases) {
    const p = edited(path, (o) => (o as Record<string, unknown>)[key] = value);
    assert.throws(
      () => parseVerdictPredicate(p),
      (e) =>
        code("VERDICT_FIELD_VALUE")(e) && /\[0\]' expected an item, got a hole/.test(String(e)),
      `${path}.${key}`,
    );
  }
});
