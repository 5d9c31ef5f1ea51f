/**
 * The published schemas state the same tags, types and sets as the code that writes and reads
 * the documents (issue 29): a new model type, finding or format version in the code fails here
 * until the schema follows.
 */
import assert from "node:assert/strict";
import {
  ANNOUNCEMENT_PREDICATE_TYPE,
  AUDIT_PLAN_PAYLOAD_TYPE,
  ITEM_RESULT_PAYLOAD_TYPE,
  STATEMENT_TYPE,
  TRUST_ROOT_MEDIA_TYPE,
  VERDICT_PREDICATE_TYPE,
} from "../../src/attest/mod.ts";
import {
  BLOCK_WEIGHT_NAMES,
  CLAIM_PREDICATE_TYPE,
  MODEL_TYPES,
  SERVING_HISTORY_SCHEMA,
} from "../../src/claims/mod.ts";
import {
  AUDIT_ID_PATTERN,
  AUDIT_PLAN_FORMAT,
  AUDIT_SEED_DOMAIN,
  ELEMENT_BITS,
  EVIDENCE_LEVELS,
  FAIL_FINDINGS,
  isVerdictEngine,
  ITEM_RESULT_FORMAT,
  MAX_PLAN_SIGNATURES,
  MAX_PRODUCT_BUDGET,
  mergedEngineName,
  SAMPLE_ALGORITHM,
  WORKER_ENGINES,
} from "../../src/verify/mod.ts";
import { SCHEMAS } from "./_schemas.ts";

/** The value at a JSON Pointer-like path (`/`-separated) of a schema. */
function at(schema: Record<string, unknown>, path: string): unknown {
  let v: unknown = schema;
  for (const k of path.split("/").filter((p) => p !== "")) v = (v as Record<string, unknown>)[k];
  return v;
}

Deno.test("schema format tags and predicate types are the code's", () => {
  const cases: [keyof typeof SCHEMAS, string, string][] = [
    ["claim-record", "properties/_type/const", STATEMENT_TYPE],
    ["claim-record", "properties/predicateType/const", CLAIM_PREDICATE_TYPE],
    ["announcement", "properties/_type/const", STATEMENT_TYPE],
    ["announcement", "properties/predicateType/const", ANNOUNCEMENT_PREDICATE_TYPE],
    ["serving-history", "properties/schema/const", SERVING_HISTORY_SCHEMA],
    ["trust-root", "properties/mediaType/const", TRUST_ROOT_MEDIA_TYPE],
    ["audit-plan", "properties/format/const", AUDIT_PLAN_FORMAT],
    ["audit-plan", "properties/seedDerivation/const", AUDIT_SEED_DOMAIN],
    ["audit-plan", "properties/algorithm/const", SAMPLE_ALGORITHM],
    ["verdict-predicate", "properties/audit/properties/auditId/pattern", AUDIT_ID_PATTERN.source],
    ["audit-plan", "properties/auditId/pattern", AUDIT_ID_PATTERN.source],
    ["verdict-predicate", "properties/audit/properties/seedDerivation/const", AUDIT_SEED_DOMAIN],
    ["verdict-predicate", "properties/audit/properties/algorithm/const", SAMPLE_ALGORITHM],
    ["item-result", "properties/format/const", ITEM_RESULT_FORMAT],
    ["signed-item-result", "properties/payloadType/const", ITEM_RESULT_PAYLOAD_TYPE],
  ];
  for (const [name, path, value] of cases) assert.equal(at(SCHEMAS[name], path), value, name);
  // A verdict's engine: each worker engine, their merged set, or none (review h123).
  const engines = at(SCHEMAS["verdict-predicate"], "properties/verifier/properties/engine/enum");
  assert.deepEqual(engines, [...WORKER_ENGINES, mergedEngineName(WORKER_ENGINES), "none"]);
  for (const e of engines as string[]) assert.ok(isVerdictEngine(e), e);
  assert.match(
    String(SCHEMAS["verdict-predicate"].description),
    new RegExp(VERDICT_PREDICATE_TYPE),
  );
  // A plan's signatures: the payload type they are made under, and how many a plan may carry.
  assert.ok(String(SCHEMAS["audit-plan"].description).includes(AUDIT_PLAN_PAYLOAD_TYPE));
  assert.equal(at(SCHEMAS["audit-plan"], "properties/signatures/maxItems"), MAX_PLAN_SIGNATURES);
});

Deno.test("schema sets are the code's: model types, block weight names, FAIL findings, element bits", () => {
  const claim = SCHEMAS["claim-record"];
  assert.deepEqual(at(claim, "$defs/modelRef/properties/type/enum"), [...MODEL_TYPES]);
  for (
    const [kind, def] of [["attention_block", "attentionBlockWorkload"], [
      "ffn_block",
      "ffnBlockWorkload",
    ]] as const
  ) {
    assert.deepEqual(at(claim, `$defs/${def}/properties/weights/required`), [
      ...BLOCK_WEIGHT_NAMES[kind],
    ]);
  }
  const findings = Object.keys(FAIL_FINDINGS).sort();
  for (
    const [name, def] of [["verdict-predicate", "result"], ["item-result", "recordResult"]] as const
  ) {
    const s = SCHEMAS[name];
    assert.deepEqual(
      [...at(s, `$defs/${def}/properties/finding/enum`) as string[]].sort(),
      findings,
    );
    assert.equal(
      at(s, `$defs/${def}/properties/firstDifference/properties/claimed/pattern`),
      ELEMENT_BITS.source,
    );
  }
});

Deno.test("schema evidence levels are the code's: each result's components and the audit's policy", () => {
  const s = SCHEMAS["verdict-predicate"];
  for (
    const path of [
      "$defs/result/properties/evidence/items/properties/level/enum",
      "properties/audit/properties/requireEvidence/enum",
    ]
  ) {
    assert.deepEqual(at(s, path), [...EVIDENCE_LEVELS], path);
  }
});

Deno.test("schema budgets a record are the code's: 1..MAX_PRODUCT_BUDGET in the plan, the item result and the verdict", () => {
  for (
    const [name, path] of [
      ["audit-plan", "properties/maxRecordProducts"],
      ["item-result", "properties/maxRecordProducts"],
      ["verdict-predicate", "properties/audit/properties/maxRecordProducts"],
    ] as const
  ) {
    assert.equal(at(SCHEMAS[name], `${path}/minimum`), 1, name);
    assert.equal(at(SCHEMAS[name], `${path}/maximum`), MAX_PRODUCT_BUDGET, name);
  }
});
