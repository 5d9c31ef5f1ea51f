/**
 * The published schemas never refuse what bitaudit's strict parsers accept (issue 29): valid
 * documents of every kind, mutated (a field dropped or added, a value's type changed, a digest
 * broken, an integer moved across a bound), are refused by the parser whenever the schema
 * refuses them. The parser may refuse more (canonical form, recomputed digests, cross-field
 * rules), which the schemas' descriptions name.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  parseAnnouncement,
  parseEnvelope,
  parseStatement,
  parseTrustRoot,
  parseVerdictPredicate,
  readItemResultUnchecked,
} from "../../src/attest/mod.ts";
import { canonicalJson, parseClaimRecord, parseServingHistory } from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { parseStrictJson, StrictJsonError } from "../../src/json_strict.ts";
import { parseAuditPlan, parseItemResult } from "../../src/verify/mod.ts";
import { makeDemoFiles, payloadJson } from "./_demo_files.ts";
import { mutate, mutationArb } from "./_mutate.ts";
import { type SchemaName, validator } from "./_schemas.ts";

const files = await makeDemoFiles();
const enc = new TextEncoder();

/** The canonical text of a value: the only text a canonical-form parser could accept for it. */
function canonical(v: unknown): string {
  return new TextDecoder().decode(canonicalJson(v));
}

/** Each schema's strict parser: throws when it refuses the document. */
const PARSERS: Record<SchemaName, (doc: unknown) => void> = {
  "claim-record": (d) => parseClaimRecord(parseStrictJson(JSON.stringify(d)), "mutant"),
  "serving-history": (d) => parseServingHistory(enc.encode(canonical(d))),
  "verdict-predicate": (d) => parseVerdictPredicate(d),
  "trust-root": (d) => parseTrustRoot(JSON.stringify(d)),
  "audit-plan": (d) => parseAuditPlan(`${canonical(d)}\n`, "mutant"),
  "item-result": (d) => parseItemResult(canonical(d), "mutant"),
  "signed-item-result": (d) => readItemResultUnchecked(canonical(d), "mutant"),
  "dsse-envelope": (d) => parseEnvelope(JSON.stringify(d)),
  announcement: (d) => parseAnnouncement(parseStatement(enc.encode(JSON.stringify(d)))),
};

/** Whether the parser accepts; a refusal is a coded or strict-JSON error, anything else a bug. */
function accepts(name: SchemaName, doc: unknown): boolean {
  try {
    PARSERS[name](doc);
    return true;
  } catch (e) {
    // TypeError: `canonical` found no JSON form (a fraction, an unsafe integer).
    if (e instanceof InputError || e instanceof StrictJsonError || e instanceof TypeError) {
      return false;
    }
    throw e;
  }
}

const claims = files.claimLines.map((l) => JSON.parse(l));
const SEEDS: Record<SchemaName, unknown[]> = {
  "claim-record": [...claims, ..._claimVariants(claims)],
  "serving-history": files.histories.map((h) => JSON.parse(h)),
  "verdict-predicate": [
    payloadJson(files.attestation).predicate,
    _withEvidencePolicy(payloadJson(files.attestation).predicate),
  ],
  "trust-root": files.trustRoots.map((t) => JSON.parse(t)),
  // And one with a budget a record (`audit plan --max-record-products`; the demo's sets none).
  "audit-plan": [JSON.parse(files.plan), { ...JSON.parse(files.plan), maxRecordProducts: 4096 }],
  "item-result": [
    ...files.signedResults.map((l) => payloadJson(l)),
    // A pool worker's result names the serve it answers (the demo's shard results name none).
    {
      ...payloadJson(files.signedResults[0]!),
      serve: "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0",
    },
    // And one stating the budget a record its worker applied (the demo's plan sets none).
    { ...payloadJson(files.signedResults[0]!), maxRecordProducts: 4096 },
  ],
  "signed-item-result": files.signedResults.map((l) => JSON.parse(l)),
  "dsse-envelope": [JSON.parse(files.attestation), JSON.parse(files.announcement)],
  announcement: [payloadJson(files.announcement)],
};

for (const name of Object.keys(SEEDS) as SchemaName[]) {
  Deno.test(`${name}.json refuses a mutated document only when the strict parser refuses it too`, () => {
    const valid = validator(name);
    const seeds = SEEDS[name];
    for (const [i, s] of seeds.entries()) {
      assert.equal(valid(s), true, `seed ${i}: ${JSON.stringify(valid.errors)}`);
      assert.equal(accepts(name, s), true, `seed ${i} is refused by the parser`);
    }
    let refused = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.nat(), mutationArb, (pick, m) => {
        const mutant = mutate(seeds[pick % seeds.length], m);
        if (mutant === null) return;
        runs++;
        if (valid(mutant.doc)) return;
        refused++;
        assert.equal(
          accepts(name, mutant.doc),
          false,
          `the schema refuses (${JSON.stringify(valid.errors?.[0])}) what the parser accepts ` +
            `after ${m.kind} at ${JSON.stringify(mutant.path)}`,
        );
      }),
      { numRuns: name === "claim-record" ? 600 : 250, seed: 29 },
    );
    // Not vacuous: most mutations are refused by the schema itself.
    assert.ok(refused > runs / 3, `${refused} of ${runs} mutants refused`);
  });
}

/**
 * A verdict predicate of an audit that applied an evidence policy and a budget a record (the
 * demo's applies neither).
 */
function _withEvidencePolicy(predicate: unknown): unknown {
  const p = structuredClone(predicate) as { audit: Record<string, unknown> };
  p.audit.requireEvidence = "derived-from-source";
  p.audit.maxRecordProducts = 4096;
  return p;
}

/**
 * Claim records of the forms the demo does not write: another kind, sampled decoding, RoPE by
 * table, an NCCL tree all-reduce with pipeline stages, an unmodelled all-reduce, vLLM's
 * dispatch with NCCL settings on stated links.
 */
function _claimVariants(records: Record<string, Record<string, unknown>>[]): unknown[] {
  const of = (kind: string) =>
    structuredClone(
      records.find((r) => (r.predicate!.workload as { kind: string }).kind === kind)!,
    ) as { predicate: { workload: Record<string, unknown> } };
  const other = of("gemm");
  other.predicate.workload = { kind: "decode_step", steps: 3, note: "x", more: { a: [1, null] } };
  const sampled = of("sequence");
  Object.assign(sampled.predicate.workload, { decoding: "sampled", sampler: "top-p 0.9, T 0.7" });
  const table = of("attention_block");
  (table.predicate.workload.attention as { rope: unknown }).rope = {
    invFreqSha256: "ab".repeat(32),
  };
  // Parallelism the demo does not write: an NCCL tree, and an implementation named but not modelled.
  const tree = of("model_forward") as unknown as { predicate: Record<string, unknown> };
  tree.predicate.hardware = { ...(tree.predicate.hardware as object), count: 8 };
  tree.predicate.parallelism = {
    tp: 4,
    pp: 2,
    ep: 1,
    dp: 1,
    allReduce: { kind: "nccl-tree", protocol: "ll128", trees: [{ down: [[1, 2, 3], [], [], []] }] },
  };
  const nvls = of("sequence") as unknown as { predicate: Record<string, unknown> };
  nvls.predicate.parallelism = { tp: 8, pp: 1, ep: 1, dp: 1, allReduce: { kind: "nccl-nvls" } };
  // vLLM's dispatch per message, with the NCCL settings and the links it reads.
  const dispatch = of("sequence") as unknown as { predicate: Record<string, unknown> };
  dispatch.predicate.parallelism = {
    tp: 4,
    pp: 1,
    ep: 1,
    dp: 1,
    interconnect: "pcie-p2p",
    allReduce: {
      kind: "vllm-dispatch",
      nccl: { kind: "nccl-ring", protocol: "simple", chunkBytes: 2097152, rings: [[0, 1, 2, 3]] },
    },
  };
  return [other, sampled, table, tree, nvls, dispatch];
}
