/**
 * The published JSON Schemas (schemas/*.json, draft 2020-12) accept the real files bitaudit
 * writes: the demo scenario's claim records (every workload kind) and serving histories, and an
 * announced, sharded audit's trust roots, plan, worker-signed item results, attestation and
 * announcement (issue 29). Each schema compiles under Ajv's strict mode and documents its fields.
 */
import assert from "node:assert/strict";
import { makeDemoFiles, payloadJson } from "./_demo_files.ts";
import { SCHEMA_NAMES, schemaErrors, SCHEMAS } from "./_schemas.ts";

const files = await makeDemoFiles();

Deno.test("every schema is draft 2020-12 with its $id under bitaudit.dev/schemas and a description on every field", () => {
  for (const name of SCHEMA_NAMES) {
    const s = SCHEMAS[name];
    assert.equal(s.$schema, "https://json-schema.org/draft/2020-12/schema", name);
    assert.equal(s.$id, `https://bitaudit.dev/schemas/${name}.json`, name);
    assert.equal(typeof s.description, "string", name);
    assert.deepEqual(_undocumented(s, s, "#"), [], name);
  }
});

Deno.test("every claim record of the demo log is valid against claim-record.json", () => {
  const kinds = new Set<string>();
  files.claimLines.forEach((line, i) => {
    const record = JSON.parse(line);
    kinds.add(record.predicate.workload.kind);
    assert.equal(schemaErrors("claim-record", record), null, `line ${i + 1}`);
  });
  assert.deepEqual(
    [...kinds].sort(),
    ["attention_block", "ffn_block", "gemm", "model_forward", "sequence"],
  );
});

Deno.test("the serving histories the demo's sequence records commit to are valid against serving-history.json", () => {
  assert.ok(files.histories.length > 0);
  for (const h of files.histories) {
    assert.equal(schemaErrors("serving-history", JSON.parse(h)), null);
  }
});

Deno.test("the verdict predicate inside attestation.dsse.json is valid against verdict-predicate.json", () => {
  const env = JSON.parse(files.attestation);
  assert.equal(schemaErrors("dsse-envelope", env), null);
  const st = payloadJson(env);
  assert.equal(st.predicateType, "https://bitaudit.dev/audit-verdict/v2");
  const p = st.predicate as Record<string, Record<string, unknown>>;
  assert.equal(schemaErrors("verdict-predicate", p), null);
  // The optional parts are there, so the schema was exercised on them.
  for (const key of ["checkpoint", "announcement"]) assert.ok(key in p.audit!, key);
  assert.ok("drand" in (p.audit!.beacon as object));
  assert.deepEqual(
    new Set((p.results as unknown as { status: string }[]).map((r) => r.status)),
    new Set(["PASS", "FAIL"]),
  );
  assert.equal((p.workers!.reverified as unknown[]).length, 1);
});

Deno.test("trust roots (inspector only; with prover keys and a pinned drand chain) are valid against trust-root.json", () => {
  for (const t of files.trustRoots) assert.equal(schemaErrors("trust-root", JSON.parse(t)), null);
});

Deno.test("plan.json of `audit plan` is valid against audit-plan.json", () => {
  const plan = JSON.parse(files.plan);
  assert.equal(schemaErrors("audit-plan", plan), null);
  assert.ok(Object.keys(plan.evidence).length >= 4, "the evidence of an announced drand audit");
});

Deno.test("worker-signed result lines and their item results are valid against signed-item-result.json and item-result.json", () => {
  assert.equal(files.signedResults.length, 6);
  for (const line of files.signedResults) {
    const env = JSON.parse(line);
    assert.equal(schemaErrors("signed-item-result", env), null);
    assert.equal(schemaErrors("dsse-envelope", env), null);
    assert.equal(schemaErrors("item-result", payloadJson(env)), null);
  }
});

Deno.test("the announcement envelope and its statement are valid against dsse-envelope.json and announcement.json", () => {
  const env = JSON.parse(files.announcement);
  assert.equal(schemaErrors("dsse-envelope", env), null);
  assert.equal(schemaErrors("announcement", payloadJson(env)), null);
});

/**
 * Paths of the fields of object schemas (`type: "object"`) that have no description, directly or
 * on the definition they refer to. The conditions under `allOf` (consistency rules that restate
 * fields documented beside them, the workload dispatch) are not fields.
 */
function _undocumented(node: unknown, root: Record<string, unknown>, at: string): string[] {
  if (typeof node !== "object" || node === null) return [];
  const out: string[] = [];
  const n = node as Record<string, unknown>;
  if (n.type === "object" && typeof n.properties === "object") {
    for (const [key, sub] of Object.entries(n.properties as Record<string, unknown>)) {
      if (typeof sub === "boolean") continue;
      const s = sub as Record<string, unknown>;
      const target = typeof s.$ref === "string" ? _resolve(root, s.$ref) : s;
      if (typeof s.description !== "string" && typeof target.description !== "string") {
        out.push(`${at}/properties/${key}`);
      }
    }
  }
  for (const [key, sub] of Object.entries(n)) {
    if (key === "allOf") continue;
    if (Array.isArray(sub)) {
      sub.forEach((x, i) => out.push(..._undocumented(x, root, `${at}/${key}/${i}`)));
    } else out.push(..._undocumented(sub, root, `${at}/${key}`));
  }
  return out;
}

function _resolve(root: Record<string, unknown>, ref: string): Record<string, unknown> {
  let at: unknown = root;
  for (const part of ref.replace(/^#\//, "").split("/")) at = (at as Record<string, unknown>)[part];
  return at as Record<string, unknown>;
}
