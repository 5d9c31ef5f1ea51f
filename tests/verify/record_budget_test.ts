/**
 * The audit's budget a record (`VerifyContext.maxRecordProducts`, from `--max-record-products`):
 * a record of every kind predicted over it is NOT_VERIFIED before anything is computed, naming
 * its count and the budget, and the count is the one `predictRecordProducts` predicts (a budget
 * one below it refuses the record, a budget equal to it recomputes it). The refusal stays where the
 * verifier's own limit is checked: after the record's own contradictions (a budget of one product
 * hides none of them). Review h151: one admitted record could hold an audit for 14 hours, with no
 * budget a command could set and no prediction. Review h184: a GEMM's or block's budget was
 * checked before its committed tensors, its world and its kernel were, so that a budget of one
 * product turned a missing tensor, tp=3 on one GPU, a version its stack excludes or a kernel of
 * another source than its stack's from FAIL into NOT_VERIFIED; it now waits for them, as a model
 * record's does.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  type BlockWorkload,
  type ClaimLog,
  type ClaimPredicate,
  formatClaimLog,
  type GemmWorkload,
  type ModelForwardWorkload,
  parseClaimLog,
  type SequenceWorkload,
} from "../../src/claims/mod.ts";
import { loadClaimLog } from "../../src/cli/load_inputs.ts";
import { openBlobFolder } from "../../src/cli/work_context.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import {
  budgetText,
  MAX_PRODUCT_BUDGET,
  MAX_RECORD_PRODUCTS,
  planAudit,
  predictRecordProducts,
  productBudget,
  runAudit,
  runAuditPlan,
  verifyRecord,
} from "../../src/verify/mod.ts";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { chainLog } from "../hostile/_recompute_fixture.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { servingScenario } from "./_serving_fixture.ts";

const store = await openAssetStore();
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });
const ctx = { store, walker: engineWalker, attention };

const f = await makeAuditFixture({
  records: 1,
  blocks: 2,
  blockTokens: [4],
  forward: 1,
  falsify: [],
});
const fixture = {
  log: await loadClaimLog(f.log),
  blobs: await openBlobFolder(`${f.dir}/log/blobs`),
};
const served = await makeClaims(parseScenario(servingScenario([], 1)), {
  store,
  walker: engineWalker,
  attention,
});
const serving = {
  log: parseClaimLog(formatClaimLog(served.records)),
  blobs: { dir: "memory", get: (d: string) => Promise.resolve(served.blobs.get(d) ?? null) },
};

/** Every record of a kind: its prediction, refused one product below it, recomputed at it. */
async function holdsToPrediction(
  o: { log: ClaimLog; blobs: BlobStore },
  kind: string,
): Promise<void> {
  const index = o.log.records.findIndex((r) => r.predicate.workload.kind === kind);
  assert.ok(index >= 0, `the log holds a ${kind} record`);
  const predicted = await predictRecordProducts(o.blobs, o.log.records[index]!.predicate.workload);
  assert.ok(predicted !== null && predicted > 1, `${kind}: predicted ${predicted}`);
  const target = { log: o.log, index };
  const over = await verifyRecord(
    { ...ctx, blobs: o.blobs, maxRecordProducts: predicted - 1 },
    target,
  );
  assert.equal(over.status, "NOT_VERIFIED", `${kind}: ${over.reason}`);
  assert.ok(
    over.reason.includes(
      `takes about ${predicted.toPrecision(3)} products to recompute, over the audit's budget ` +
        `(--max-record-products) of ${predicted - 1} a record`,
    ),
    `${kind}: ${over.reason}`,
  );
  assert.ok(!over.steps.some((s) => s.step === "recompute"), `${kind}: nothing recomputed`);
  const at = await verifyRecord({ ...ctx, blobs: o.blobs, maxRecordProducts: predicted }, target);
  assert.equal(at.status, "PASS", `${kind}: ${at.reason}`);
}

for (const kind of ["gemm", "attention_block", "ffn_block", "model_forward"]) {
  Deno.test(`verifyRecord() refuses the ${kind} record over the audit's budget, by the count predictRecordProducts() predicts`, async () => {
    await holdsToPrediction(fixture, kind);
  });
}

Deno.test("verifyRecord() refuses a sequence record over the audit's budget, by the count predictRecordProducts() predicts", async () => {
  await holdsToPrediction(serving, "sequence");
});

/** Contradictions a record of each kind states about itself, and the FAIL reason each gives. */
const LIES: [string, (p: ClaimPredicate) => ClaimPredicate, RegExp][] = [
  [
    "a fingerprint one column wider than its output",
    (p) => {
      const [rows, cols] = p.fingerprint.shape;
      return { ...p, fingerprint: { ...p.fingerprint, shape: [rows!, cols! + 1] } };
    },
    /fingerprint shape is \[\d+, \d+\]/,
  ],
  [
    "tp=3 on one GPU",
    (p) => ({
      ...p,
      parallelism: { ...p.parallelism, tp: 3 },
      hardware: { ...p.hardware, count: 1 },
    }),
    /record contradicts itself: tp=3 x pp=1 x dp=1 ranks on 1 GPU\(s\)/,
  ],
];

/** The layer chain of five entries (the fixtures' checkpoints have fewer layers). */
function fiveLayerChain(p: ClaimPredicate): ClaimPredicate {
  const entry = { attention: "ab".repeat(32), mlp: "ab".repeat(32) };
  return { ...p, workload: { ...p.workload, layerChain: Array(5).fill(entry) } } as ClaimPredicate;
}

/** A token id past any of the fixtures' vocabularies, as the first token. */
const PAST_VOCAB = 2 ** 20;

/** A GEMM's or block's input tensor committed by a digest the blob store does not hold. */
const MISSING_INPUT: [string, (p: ClaimPredicate) => ClaimPredicate, RegExp] = [
  "an input tensor missing from the blob store",
  (p) => {
    const w = p.workload as GemmWorkload | BlockWorkload;
    return { ...p, workload: { ...w, input: { ...w.input, sha256: "ab".repeat(32) } } };
  },
  /^prover did not produce committed input: input tensor abababababababab… is missing/,
];

/** A block's PyTorch release other than the one its stack (CUTLASS with PyTorch 2.8.0) pins. */
const BLOCK_STACK_LIE: [string, (p: ClaimPredicate) => ClaimPredicate, RegExp] = [
  "a PyTorch release its stack does not pin",
  (p) => ({
    ...p,
    software: { ...p.software, components: { ...p.software.components, pytorch: "2.4.0" } },
  }),
  /record contradicts its stack '[^']+': components\.pytorch '2\.4\.0'/,
];

/** A block's GEMM kernel named by a dispatch catalog, on a stack that runs explicit recipes. */
const BLOCK_KERNEL_LIE: [string, (p: ClaimPredicate) => ClaimPredicate, RegExp] = [
  "a catalog kernel on a recipe stack",
  (p) => {
    const gemm = fixture.log.records.find((r) => r.predicate.workload.kind === "gemm")!;
    const kernel = (gemm.predicate.workload as GemmWorkload).kernel;
    return { ...p, workload: { ...(p.workload as BlockWorkload), kernel } };
  },
  /runs explicit recipes, but the record names catalog/,
];

/**
 * Each kind's own contradictions: a GEMM's batch one above its rows (checked before the limits); a
 * model record's layer chain (checked before its cost) and a token id past the vocabulary (which
 * the forward finds after the cost is checked: the refusal waits for it).
 */
const KIND_LIES: Record<string, [string, (p: ClaimPredicate) => ClaimPredicate, RegExp][]> = {
  gemm: [
    [
      "a batch one above its rows",
      (p) => ({ ...p, batch: { ...p.batch, size: p.batch.size + 1 } }),
      /record contradicts itself: batch size \d+ but \d+ input rows/,
    ],
    MISSING_INPUT,
    [
      // Its stack pins PyTorch 2.8.0; the record states the 2.5.1 it ran.
      "a stack that pins another PyTorch release",
      (p) => ({ ...p, software: { ...p.software, stack: "hf-qwen3-sdpa-torch2.8" } }),
      /record contradicts its stack 'hf-qwen3-sdpa-torch2\.8': components\.pytorch '2\.5\.1'/,
    ],
    [
      "a recipe kernel on a catalog stack",
      (p) => {
        const block = fixture.log.records.find((r) => r.predicate.workload.kind === "ffn_block")!;
        const kernel = (block.predicate.workload as BlockWorkload).kernel;
        return { ...p, workload: { ...(p.workload as GemmWorkload), kernel } };
      },
      /dispatches through a catalog, but the record names a recipe/,
    ],
  ],
  attention_block: [MISSING_INPUT, BLOCK_STACK_LIE, BLOCK_KERNEL_LIE],
  ffn_block: [MISSING_INPUT, BLOCK_STACK_LIE, BLOCK_KERNEL_LIE],
  model_forward: [
    ["a layer chain of five", fiveLayerChain, /layer chain has 5 entries for \d+ layers/],
    [
      "a token id past the vocabulary",
      (p) => {
        const w = p.workload as ModelForwardWorkload;
        const [first, ...rest] = w.tokens.sequences;
        const sequences = [[PAST_VOCAB, ...first!.slice(1)], ...rest];
        return { ...p, workload: { ...w, tokens: { ...w.tokens, sequences } } };
      },
      new RegExp(`token id ${PAST_VOCAB} is outside`),
    ],
  ],
  sequence: [
    ["a layer chain of five", fiveLayerChain, /layer chain has 5 entries for \d+ layers/],
    [
      "a token id past the vocabulary",
      (p) => {
        const w = p.workload as SequenceWorkload;
        const prompt = [PAST_VOCAB, ...w.tokens.prompt.slice(1)];
        return { ...p, workload: { ...w, tokens: { ...w.tokens, prompt } } };
      },
      new RegExp(`token id ${PAST_VOCAB} is outside`),
    ],
  ],
};

Deno.test("a budget of one product hides none of a record's own contradictions: each kind FAILs as without a budget", async () => {
  const cases = [
    ...["gemm", "attention_block", "ffn_block", "model_forward"].map((kind) => ({
      kind,
      ...fixture,
    })),
    { kind: "sequence", ...serving },
  ];
  for (const { kind, log, blobs } of cases) {
    const honest = log.records.find((r) => r.predicate.workload.kind === kind)!.predicate;
    for (const [lie, edit, reason] of [...LIES, ...(KIND_LIES[kind] ?? [])]) {
      const target = { log: chainLog([edit(honest)]), index: 0 };
      const unbudgeted = await verifyRecord({ ...ctx, blobs }, target);
      assert.equal(unbudgeted.status, "FAIL", `${kind}, ${lie}: ${unbudgeted.reason}`);
      assert.match(unbudgeted.reason, reason, `${kind}, ${lie}`);
      const r = await verifyRecord({ ...ctx, blobs, maxRecordProducts: 1 }, target);
      assert.equal(r.status, "FAIL", `${kind}, ${lie}, budget 1: ${r.reason}`);
      assert.equal(r.reason, unbudgeted.reason, `${kind}, ${lie}, budget 1`);
    }
  }
});

Deno.test("a GEMM or block record over the budget and not modelled, or falsified, is refused for its budget: its tensors read, nothing recomputed", async () => {
  for (const kind of ["gemm", "attention_block", "ffn_block"]) {
    const honest = fixture.log.records.find((r) => r.predicate.workload.kind === kind)!.predicate;
    const edits: [string, (p: ClaimPredicate) => ClaimPredicate, RegExp][] = [
      [
        "an unknown profile",
        (p) => ({ ...p, hardware: { ...p.hardware, profile: "no-such-gpu" } }),
        /^unsupported profile/,
      ],
      [
        "a falsified fingerprint",
        (p) => ({ ...p, fingerprint: { ...p.fingerprint, sha256: "0".repeat(64) } }),
        /differs from the claimed/,
      ],
    ];
    for (const [what, edit, unbudgetedReason] of edits) {
      const target = { log: chainLog([edit(honest)]), index: 0 };
      const unbudgeted = await verifyRecord({ ...ctx, blobs: fixture.blobs }, target);
      assert.match(unbudgeted.reason, unbudgetedReason, `${kind}, ${what}`);
      const r = await verifyRecord({ ...ctx, blobs: fixture.blobs, maxRecordProducts: 1 }, target);
      assert.equal(r.status, "NOT_VERIFIED", `${kind}, ${what}: ${r.reason}`);
      assert.match(r.reason, /over the audit's budget \(--max-record-products\) of 2\^0 a record$/);
      assert.ok(
        r.steps.some((s) => s.step === "tensors" && s.ok),
        `${kind}, ${what}: tensors read`,
      );
      assert.ok(
        !r.steps.some((s) => s.step === "recompute"),
        `${kind}, ${what}: nothing recomputed`,
      );
    }
  }
});

Deno.test("productBudget() defaults to MAX_RECORD_PRODUCTS and refuses what is no whole number of products", () => {
  assert.equal(productBudget(undefined), MAX_RECORD_PRODUCTS);
  assert.equal(productBudget(1), 1);
  assert.equal(productBudget(MAX_PRODUCT_BUDGET), MAX_PRODUCT_BUDGET);
  for (const bad of [0, -1, 1.5, MAX_PRODUCT_BUDGET + 1, Number.NaN, Infinity]) {
    assert.throws(() => productBudget(bad), RangeError, String(bad));
  }
});

Deno.test("budgetText() writes powers of two as 2^n, exactly, and other budgets as digits", () => {
  assert.equal(budgetText(MAX_RECORD_PRODUCTS), "2^48");
  assert.equal(budgetText(1), "2^0");
  assert.equal(budgetText(3 * 2 ** 40), "3298534883328");
  // Math.log2(2^53 - 1) rounds to 53.
  assert.equal(budgetText(MAX_PRODUCT_BUDGET), "9007199254740991");
});

Deno.test("runAudit() plans with the context's budget and its report records it; runAuditPlan() refuses a context budget that is not the plan's", async () => {
  const inputs = { log: fixture.log, auditId: "b", randomness: "05".repeat(32), round: 2, k: 4 };
  const c = { ...ctx, blobs: fixture.blobs, maxRecordProducts: 300_000 };
  const report = await runAudit(c, inputs);
  assert.equal(report.maxRecordProducts, 300_000);
  const refused = report.results.filter((r) => /budget \(--max-record-products\)/.test(r.reason));
  assert.ok(refused.length > 0 && refused.length < 4, JSON.stringify(report.results));
  const plan = planAudit(fixture.log, inputs); // the default budget
  await assert.rejects(
    () => runAuditPlan({ ...c, engine: "test" }, { plan, log: fixture.log, worker: "w" }),
    RangeError,
  );
});
