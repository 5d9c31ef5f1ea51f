/**
 * Issue 25, item 1: property-based fuzzing of the recompute paths, with a fixed seed. Honest
 * records of every kind are bent where a prover controls them (serving histories, token batches,
 * positions and chains, checkpoint configs with weights made to match, block and GEMM shapes,
 * formats and tensors), each changed blob re-committed so that the digests hold and the mutation
 * reaches the recomputation. The property: `verifyRecord` returns a result, never throws (a throw
 * is the audit's exit 70), the result obeys the rules of its status, and no internal error's
 * text became a reason. `BITAUDIT_FUZZ_SCALE=50` runs 50 times more cases.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type ClaimLog,
  type ClaimPredicate,
  encodeServingHistory,
  parseServingHistory,
  type SequenceWorkload,
} from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { resultInconsistency, verifyRecord } from "../../src/verify/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { servingScenario } from "../verify/_serving_fixture.ts";
import { FUZZ_SEED, fuzzRuns } from "./_fuzz.ts";
import {
  attention,
  chainLog,
  commit,
  DENSE_CONFIG,
  forwardScenario,
  memoryStore,
  MOE_CONFIG,
  proverRun,
  store,
} from "./_recompute_fixture.ts";
import { CONFIG_EDITS, editConfig } from "./_mutate_config.ts";
import { editHistory, HISTORY_EDITS } from "./_mutate_history.ts";
import { BLOCK_EDITS, editBlock, editGemm, GEMM_EDITS } from "./_mutate_tensors.ts";
import { editForward, editSequence, WORKLOAD_EDITS } from "./_mutate_workload.ts";

/** The kernel of the block records and of configs fuzzed on a recipe stack (CUTLASS K-walk). */
const RECIPE = {
  schema: "bitaudit.gemm-recipe/v1",
  name: "cutlass-kwalk-128x128x64",
  family: "kwalk",
  threadblock: [128, 128, 64],
  warp: [64, 64, 64],
  instruction: [16, 8, 16],
};
/** A stack that runs recipes, FA2 and padded batches (dense models only: no MoE experts). */
const RECIPE_STACK = "cutlass-3.5-hf-flash-attn";

const scenario = forwardScenario([], 2) as Record<string, unknown>;
const out = await proverRun({
  ...scenario,
  serving: (servingScenario([], 1) as Record<string, unknown>).serving,
  blocks: {
    stack: RECIPE_STACK,
    components: { cutlass: "3.5.0", pytorch: "2.8.0", flash_attn: "2.8.3" },
    recipe: RECIPE,
    shape: { hidden: 256, intermediate: 768, heads: 2, kvHeads: 1, headDim: 128 },
    tokens: [4, 8],
    records: 2,
    multiProcessorCount: 108,
    ropeTheta: "1000000",
  },
});
const of = (kind: string) =>
  out.records.map((r) => r.predicate).filter((p) => p.workload.kind === kind);
const sequences = of("sequence");
const forwards = of("model_forward");
const models = [...forwards, ...sequences];
const blocks = of("attention_block").concat(of("ffn_block"));
const gemms = of("gemm");
/** The bundled GEMM recipes, named by GEMM records on a recipe stack. */
const RECIPES: Record<string, unknown>[] = [];
for await (const f of Deno.readDir(new URL("../../profiles/recipes/", import.meta.url))) {
  if (f.name.endsWith(".json")) {
    RECIPES.push(
      JSON.parse(
        await Deno.readTextFile(new URL(`../../profiles/recipes/${f.name}`, import.meta.url)),
      ),
    );
  }
}
RECIPES.sort((a, b) => String(a.name).localeCompare(String(b.name))); // a fixed order

/** Longest one case may take (ms): the tiny checkpoints recompute in well under a second. */
const CASE_MS = 20_000;

/**
 * The property: one bent record verifies to a consistent result, never a throw.
 *
 * @param what the case, for the message
 * @param p the bent predicate
 * @param blobs the blobs the prover produced
 */
async function holds(
  what: string,
  p: ClaimPredicate,
  blobs: ReadonlyMap<string, Uint8Array>,
): Promise<void> {
  let log: ClaimLog;
  try {
    log = chainLog([p]);
  } catch (e) {
    if (e instanceof InputError) return; // refused by the claim parser (fuzzed in fuzz_test.ts)
    throw e;
  }
  const t0 = performance.now();
  const ctx = { store, blobs: memoryStore(blobs), walker: engineWalker, attention };
  const r = await verifyRecord(ctx, { log, index: 0 }).catch((e: Error) => {
    throw new Error(`${what}: verifyRecord threw ${e?.name}: ${e?.message}`, { cause: e });
  });
  const ms = performance.now() - t0;
  const bad = resultInconsistency(r, { kind: p.workload.kind, chain: true });
  assert.equal(bad, null, `${what}: ${r.status} ${r.reason}`);
  assert.doesNotMatch(
    r.reason,
    /properties of (undefined|null)|is not a function|is not iterable|Maximum call stack/,
    what,
  );
  assert.ok(ms < CASE_MS, `${what}: ${Math.round(ms)} ms`);
}

/** An index into `xs` (a counterexample then prints the index, not the record). */
function indexOf(xs: readonly unknown[]): fc.Arbitrary<number> {
  return fc.nat({ max: xs.length - 1 });
}

/** Runs an async property with the fixed seed. */
async function fuzzAsync<T>(
  arb: fc.Arbitrary<T>,
  run: (input: T) => Promise<void>,
  runs: number,
): Promise<void> {
  await fc.assert(fc.asyncProperty(arb, run), { seed: FUZZ_SEED, numRuns: fuzzRuns(runs) });
}

Deno.test("fuzz: serving histories of sequence records reach a result, never a throw", async () => {
  await fuzzAsync(
    fc.tuple(indexOf(sequences), HISTORY_EDITS),
    async ([i, h]) => {
      const p = sequences[i]!;
      const w = p.workload as SequenceWorkload;
      const passes = editHistory(parseServingHistory(out.blobs.get(w.history.sha256)!), h.edits);
      const blobs = new Map(out.blobs);
      const sha256 = commit(blobs, encodeServingHistory(passes));
      const widest = Math.max(1, ...passes.map((q) => q.entries.length));
      const bent: ClaimPredicate = {
        ...p,
        batch: h.keepBatch ? p.batch : { size: widest },
        workload: {
          ...w,
          history: { sha256, passes: h.keepCount ? w.history.passes : Math.max(1, passes.length) },
        },
      };
      await holds(`history ${JSON.stringify(h)}`, bent, blobs);
    },
    30, // cheap: most bent histories are judged before anything is recomputed
  );
});

Deno.test("fuzz: token batches, positions and fields of model records reach a result", async () => {
  await fuzzAsync(
    fc.tuple(indexOf(models), WORKLOAD_EDITS),
    async ([i, edits]) => {
      const p = models[i]!;
      const bent = p.workload.kind === "sequence" ? editSequence(p, edits) : editForward(p, edits);
      await holds(`${p.workload.kind} ${JSON.stringify(edits)}`, bent, out.blobs);
    },
    16,
  );
});

Deno.test("fuzz: checkpoint configs (weights made to match) reach a result", async () => {
  await fuzzAsync(
    fc.tuple(indexOf(models), CONFIG_EDITS),
    async ([i, c]) => {
      const p = models[i]!;
      const blobs = new Map(out.blobs);
      const type = (p.workload as SequenceWorkload).model.type;
      let bent = editConfig(p, {
        config: type === "qwen3" ? DENSE_CONFIG : MOE_CONFIG,
        edits: c.edits,
        weights: c.weights,
        blobs,
      });
      if (c.recipe && bent.workload.kind === "model_forward") {
        bent = {
          ...bent,
          software: { ...bent.software, stack: RECIPE_STACK },
          workload: { ...bent.workload, kernel: { recipe: RECIPE } },
        };
      }
      await holds(`${p.workload.kind} config ${JSON.stringify(c)}`, bent, blobs);
    },
    10,
  );
});

Deno.test("fuzz: block shapes, tensors and RoPE reach a result", async () => {
  await fuzzAsync(
    fc.tuple(indexOf(blocks), BLOCK_EDITS),
    async ([i, edits]) => {
      const p = blocks[i]!;
      const blobs = new Map(out.blobs);
      const bent = editBlock(p, { edits, blobs });
      await holds(`${p.workload.kind} ${JSON.stringify(edits)}`, bent, blobs);
    },
    10,
  );
});

Deno.test("fuzz: GEMM shapes, formats and recipes reach a result", async () => {
  await fuzzAsync(
    fc.tuple(indexOf(gemms), GEMM_EDITS),
    async ([i, edits]) => {
      const blobs = new Map(out.blobs);
      const bent = editGemm(gemms[i]!, {
        edits,
        recipes: RECIPES,
        recipeStack: "cutlass-3.5-default",
        blobs,
      });
      await holds(`gemm ${JSON.stringify(edits)}`, bent, blobs);
    },
    12,
  );
});
