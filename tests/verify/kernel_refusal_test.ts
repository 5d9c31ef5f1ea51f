/**
 * A model record's kernel that is not modelled (an unknown dispatch catalog, a malformed recipe)
 * is said only after the record's contradictions: a served sequence or a model forward that
 * contradicts its history, itself or its checkpoint FAILs whatever catalog or recipe it names
 * (a prover must not hide a falsification behind an unknown kernel); an honest one is
 * NOT_VERIFIED with the kernel's reason, nothing recomputed.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  type ClaimPredicate,
  type ClaimRecord,
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  type ModelForwardWorkload,
  parseClaimLog,
  type SequenceWorkload,
} from "../../src/claims/mod.ts";
import { type Fa2Forward, flashAttentionForward, type KWalker } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { type RecordResult, verifyRecord } from "../../src/verify/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { fingerprintShapeCases } from "./_fingerprint_shapes.ts";
import { forwardSection, oneGemmScenario } from "./_serving_fixture.ts";

const store = await openAssetStore();
const DENSE = "tables/models/qwen3-tiny-dense";
const made = await makeClaims(
  parseScenario(oneGemmScenario({ logId: "kernel-refusal", seed: "kernel-refusal-v1" }, {
    forward: { ...forwardSection([DENSE], { records: 1, lengths: [3] }), batchSizes: [1] },
    serving: {
      stack: "hf-qwen3-continuous-batching-torch2.8-lg2-model",
      components: { pytorch: "2.8.0", flash_attn: "2.8.3" },
      catalog: "demo-qwen3-tiny-a100",
      multiProcessorCount: 108,
      checkpoints: [DENSE],
      requests: 1,
      arrivalSteps: 1,
      promptLengths: [3],
      generate: [2],
      tokenBudget: 40,
      maxChunk: 32,
      layerChain: false,
    },
    falsify: [],
  })),
  { store, walker: engineWalker },
);
const blobs: BlobStore = { dir: "memory", get: (d) => Promise.resolve(made.blobs.get(d) ?? null) };
const forward = made.records.find((r) => r.predicate.workload.kind === "model_forward")!;
const sequence = made.records.find((r) => r.predicate.workload.kind === "sequence")!;
const RECIPE = JSON.parse(
  await Deno.readTextFile(
    new URL("../../profiles/recipes/cutlass-kwalk-128x128x64.json", import.meta.url),
  ),
);
/** A record's predicate as a test patches it. */
type Patched = { -readonly [K in keyof ClaimPredicate]: ClaimPredicate[K] };
const UNKNOWN = { catalog: "no-such-catalog", catalogSha256: "ab".repeat(32) };

/**
 * Verifies `record` alone, its predicate patched, counting the K-walks and attention cores the
 * verifier runs (none for a record it does not recompute).
 */
async function verify(
  record: ClaimRecord,
  patch: (p: Patched) => void,
): Promise<{ r: RecordResult; computed: number }> {
  const p: Patched = structuredClone(record.predicate);
  p.log = { logId: "x", seq: 0, prev: GENESIS_PREV };
  patch(p);
  const log = parseClaimLog(formatClaimLog([makeClaimRecord(p)]));
  let computed = 0;
  const walker: KWalker = (dp, job) => {
    computed++;
    return engineWalker(dp, job);
  };
  const attention: Fa2Forward = (i, o) => {
    computed++;
    return flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });
  };
  const r = await verifyRecord({ store, blobs, walker, attention }, { log, index: 0 });
  return { r, computed };
}

/** Sets fields of the record's workload (its kernel, its tokens, ...). */
function workload(p: Patched, o: Record<string, unknown>): void {
  p.workload = { ...p.workload, ...o } as never;
}

function assertNotComputed(v: { r: RecordResult; computed: number }, reason: RegExp): void {
  assert.equal(v.r.status, "NOT_VERIFIED", v.r.reason);
  assert.match(v.r.reason, reason);
  assert.equal(v.computed, 0, "nothing recomputed");
  assert.ok(!v.r.steps.some((s) => s.step === "kernel" || s.step === "recompute"));
}

const CATALOG = /^unsupported catalog: Cannot find dispatch catalog 'no-such-catalog'/;

Deno.test("sequence records: an unknown catalog is NOT_VERIFIED only once the record's contradictions (batch size, history, fingerprint, tokens) have FAILed it", async () => {
  const w = sequence.predicate.workload as SequenceWorkload;
  const honest = await verify(sequence, () => {});
  assert.equal(honest.r.status, "PASS", honest.r.reason);
  assert.ok(honest.computed > 0);
  // Honest but for the catalog: said as before, and nothing is replayed.
  assertNotComputed(await verify(sequence, (p) => workload(p, { kernel: UNKNOWN })), CATALOG);
  const falsified: [string, (p: Patched) => void, RegExp][] = [
    [
      "batch size",
      (p) => p.batch = { size: p.batch.size + 2 },
      /^record contradicts its history: batch size 3, its widest pass has 1 entries$/,
    ],
    [
      "history",
      (p) => workload(p, { history: { ...w.history, passes: w.history.passes + 1 } }),
      new RegExp(`^record says ${w.history.passes + 1} passes, its history holds`),
    ],
    ...fingerprintShapeCases(w.positions.length),
    [
      "token",
      (p) => workload(p, { tokens: { ...w.tokens, prompt: [99999, ...w.tokens.prompt.slice(1)] } }),
      /token id 99999 is outside/,
    ],
  ];
  for (const [what, patch, reason] of falsified) {
    const { r } = await verify(sequence, (p) => {
      patch(p);
      workload(p, { kernel: UNKNOWN });
    });
    assert.equal(r.status, "FAIL", `${what}: ${r.reason}`);
    assert.match(r.reason, reason, what);
  }
});

Deno.test("model_forward records: an unknown catalog or a malformed recipe is NOT_VERIFIED only once the record's contradictions have FAILed it", async () => {
  const w = forward.predicate.workload as ModelForwardWorkload;
  const recipeStack = (p: Patched, recipe: unknown) => {
    p.software = { stack: "cutlass-3.5-hf-flash-attn", components: {} };
    workload(p, { kernel: { recipe } });
  };
  const malformed = { ...RECIPE, family: "no-such-family" };
  const honest = await verify(forward, () => {});
  assert.equal(honest.r.status, "PASS", honest.r.reason);
  assert.ok(honest.computed > 0);
  // The recipe stack runs the record with a recipe it models (computing it: not refused).
  const recipe = await verify(forward, (p) => recipeStack(p, RECIPE));
  assert.notEqual(recipe.r.status, "NOT_VERIFIED", recipe.r.reason);
  assert.ok(recipe.computed > 0, recipe.r.reason);
  assertNotComputed(await verify(forward, (p) => workload(p, { kernel: UNKNOWN })), CATALOG);
  const bad = await verify(forward, (p) => recipeStack(p, malformed));
  assertNotComputed(bad, /no-such-family/);
  const kernels: [string, (p: Patched) => void][] = [
    ["catalog", (p) => workload(p, { kernel: UNKNOWN })],
    ["recipe", (p) => recipeStack(p, malformed)],
  ];
  const falsified: [string, (p: Patched) => void, RegExp][] = [
    [
      "batch size",
      (p) => p.batch = { size: p.batch.size + 2 },
      /^record contradicts itself: batch size 3 but 1 sequences$/,
    ],
    ...fingerprintShapeCases(w.positions.length),
    [
      "layer chain",
      (p) => workload(p, { layerChain: [...w.layerChain!, ...w.layerChain!] }),
      /^record's layer chain has \d+ entries for 2 layers$/,
    ],
    [
      "token",
      (p) => workload(p, { tokens: { sequences: [[99999, ...w.tokens.sequences[0]!.slice(1)]] } }),
      /token id 99999 is outside/,
    ],
  ];
  for (const [kernel, named] of kernels) {
    for (const [what, patch, reason] of falsified) {
      const { r } = await verify(forward, (p) => {
        named(p);
        patch(p);
      });
      assert.equal(r.status, "FAIL", `${kernel}, ${what}: ${r.reason}`);
      assert.match(r.reason, reason, `${kernel}, ${what}`);
    }
  }
});
