/**
 * Red-team finding F3: a GEMM recipe comes verbatim from the record (`kernel.recipe`), and its
 * partition counts were never checked against the GEMM's K. `sliced_k {splitK 1024, tileK 64,
 * warpK 1}` walked a 128 x 128 x 16 output 65,536 times (10 s instead of 0.07 s; tileK 4096
 * about 10 min, a 1024 x 1024 x 16 GEMM about 11 h) and could even PASS, the extra walks being
 * empty. Now a recipe that does not fit its K (`recipeFit`) is NOT_VERIFIED with the reason, for
 * every record kind that runs recipes (GEMM, blocks, model forwards), before any walk; the
 * GEMM and block records once their committed tensors are read (a tensor contradicting the
 * record FAILs it first: a recipe not modelled hides no contradiction).
 */
import assert from "node:assert/strict";
import type { BlobStore } from "../../src/assets/mod.ts";
import type {
  BlockWorkload,
  ClaimPredicate,
  GemmWorkload,
  ModelForwardWorkload,
} from "../../src/claims/mod.ts";
import { fixedRecipeDispatch } from "../../src/model/mod.ts";
import { synthBf16 } from "../../src/prover/mod.ts";
import { type RecordResult, verifyRecord } from "../../src/verify/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { recipeEnvelope, recipeGemmRecord } from "./_recipe_gemm.ts";
import {
  attention,
  type Blobs,
  chainLog,
  commit,
  forwardScenario,
  memoryStore,
  proverRun,
  store,
} from "./_recompute_fixture.ts";

/** The red team's descriptors, each refused on a K = 16 GEMM. */
const HOSTILE: Record<string, unknown>[] = [
  { family: "sliced_k", splitK: 1024, tileK: 64, warpK: 1 },
  { family: "sliced_k", splitK: 1024, tileK: 64, warpK: 2 },
  { family: "sliced_k", splitK: 1024, tileK: 4096, warpK: 128 },
  { family: "serial_split_k", splitK: 1024, tileK: 4096 },
  { family: "parallel_split_k", splitK: 1024, tileK: 64, workspace: "output" },
  {
    family: "kwalk",
    threadblock: [128, 128, 4096],
    warp: [128, 128, 128],
    instruction: [16, 8, 16],
  },
];
/** The reason of a refused recipe. */
const REFUSED = /recipe \{.*\} (needs \d+ warps in one CTA|takes \d+ M x N walks for K = \d+)/;
/** Longest a refusal may take (ms): no walk is run (the red team's record took 10 s). */
const REFUSAL_MS = 2_000;

const BUNDLED: Record<string, unknown>[] = [];
for await (const f of Deno.readDir(new URL("../../profiles/recipes/", import.meta.url))) {
  const path = new URL(`../../profiles/recipes/${f.name}`, import.meta.url);
  BUNDLED.push(JSON.parse(await Deno.readTextFile(path)));
}
BUNDLED.sort((a, b) => String(a.name).localeCompare(String(b.name)));

/** A blob store over `blobs` that records the digests it is asked for. */
function recording(blobs: ReadonlyMap<string, Uint8Array>): { blobs: BlobStore; reads: string[] } {
  const reads: string[] = [];
  const inner = memoryStore(blobs);
  return {
    blobs: { dir: "recording", get: (d, o) => (reads.push(d), inner.get(d, o)) },
    reads,
  };
}

async function verifyTimed(
  p: ClaimPredicate,
  blobs: BlobStore,
): Promise<{ r: RecordResult; ms: number }> {
  const t0 = performance.now();
  const r = await verifyRecord(
    { store, blobs, walker: engineWalker, attention },
    { log: chainLog([p]), index: 0 },
  );
  return { r, ms: performance.now() - t0 };
}

/** The red team's 128 x 128 x 16 GEMM record on a recipe stack, its tensors committed. */
function gemmRecord(
  recipe: Record<string, unknown>,
  blobs: Blobs,
  fingerprint?: string,
): ClaimPredicate {
  return recipeGemmRecord(recipe, {
    blobs,
    logId: "recipe-walks",
    mnk: [128, 128, 16],
    fingerprint,
  });
}

Deno.test("a GEMM record whose recipe walks its 128x128x16 output thousands of times is NOT_VERIFIED at once, its tensors read and no walk run", async () => {
  for (const recipe of HOSTILE) {
    const blobs: Blobs = new Map();
    const store = recording(blobs);
    const p = gemmRecord(recipe, blobs);
    const { r, ms } = await verifyTimed(p, store.blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${JSON.stringify(recipe)}: ${r.reason}`);
    assert.match(r.reason, REFUSED);
    assert.ok(!r.reason.includes("\n"), "one line");
    const w = p.workload as GemmWorkload;
    assert.deepEqual(store.reads, [w.input.sha256, w.weights.sha256], "its tensors, once each");
    assert.equal(r.recomputed, null);
    assert.ok(ms < REFUSAL_MS, `${JSON.stringify(recipe)} took ${ms.toFixed(0)} ms`);
  }
  const blobs: Blobs = new Map();
  const { r } = await verifyTimed(gemmRecord(HOSTILE[1]!, blobs), memoryStore(blobs));
  assert.match(r.reason, /32768 M x N walks for K = 16 \(32760 of them over no K element\)/);
});

Deno.test("a GEMM record on the same shape with each bundled recipe still recomputes, and PASSes when honest", async () => {
  for (const recipe of BUNDLED) {
    const blobs: Blobs = new Map();
    const first = await verifyTimed(gemmRecord(recipe, blobs), memoryStore(blobs));
    assert.equal(first.r.status, "FAIL", `${recipe.name}: ${first.r.reason}`);
    const honest = gemmRecord(recipe, blobs, first.r.recomputed!);
    const { r } = await verifyTimed(honest, memoryStore(blobs));
    assert.equal(r.status, "PASS", `${recipe.name}: ${r.reason}`);
  }
});

Deno.test("ffn and attention block records on a recipe stack refuse a recipe that does not fit a projection's K, their tensors read and no walk run", async () => {
  const shape = { hidden: 64, intermediate: 96, heads: 2, kvHeads: 1, headDim: 128 };
  const sizes: Record<string, number> = {
    norm: 64,
    gate: 96 * 64,
    up: 96 * 64,
    down: 64 * 96,
    q: 256 * 64,
    k: 128 * 64,
    v: 128 * 64,
    o: 64 * 256,
    qNorm: 128,
    kNorm: 128,
  };
  const blobs: Blobs = new Map();
  const tensor = (label: string, count: number) => {
    const t = synthBf16("recipe-walks", { label, count, span: 4 });
    return commit(blobs, new Uint8Array(t.buffer, t.byteOffset, t.byteLength));
  };
  for (const kind of ["ffn_block", "attention_block"] as const) {
    const names = kind === "ffn_block"
      ? ["norm", "gate", "up", "down"]
      : ["norm", "q", "k", "v", "o", "qNorm", "kNorm"];
    const workload = {
      kind,
      tokens: 3,
      shape,
      rmsNormEps: "1e-6",
      kernel: { recipe: HOSTILE[1]! },
      ...(kind === "attention_block"
        ? { attention: { multiProcessorCount: 108, rope: { theta: "1000000" } } }
        : {}),
      weights: Object.fromEntries(names.map((n) => [n, tensor(n, sizes[n]!)])),
      input: { sha256: tensor("x", 3 * 64), shape: [3, 64] },
    } as BlockWorkload;
    const p = {
      ...recipeEnvelope("recipe-walks", { stack: "cutlass-3.5-hf-flash-attn", batch: 1 }),
      workload,
      fingerprint: {
        tensor: `layers.0.${kind}.out`,
        dtype: "bf16",
        shape: [3, 64],
        sha256: "cd".repeat(32),
      },
    } as ClaimPredicate;
    const store = recording(blobs);
    const { r, ms } = await verifyTimed(p, store.blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${kind}: ${r.reason}`);
    assert.match(r.reason, /^(gate|up|q)_proj \(K = 64\): recipe .* 32768 M x N walks/);
    assert.equal(store.reads.length, names.length + 1, `${kind}: its tensors, once each`);
    assert.ok(ms < REFUSAL_MS, `${kind} took ${ms.toFixed(0)} ms`);
  }
});

Deno.test("a model_forward record on a recipe stack refuses a recipe that does not fit, and runs a bundled one", async () => {
  const out = await proverRun(forwardScenario([], 2));
  const dense = out.records.map((r) => r.predicate).find((p) =>
    p.workload.kind === "model_forward" &&
    (p.workload as ModelForwardWorkload).model.type === "qwen3"
  )!;
  const onRecipe = (recipe: Record<string, unknown>): ClaimPredicate => ({
    ...dense,
    software: { ...dense.software, stack: "cutlass-3.5-hf-flash-attn" },
    workload: { ...dense.workload, kernel: { recipe } } as ModelForwardWorkload,
  });
  const { r, ms } = await verifyTimed(onRecipe(HOSTILE[4]!), memoryStore(out.blobs));
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /_proj \(K = \d+\): recipe .* takes 1024 M x N walks/);
  assert.ok(ms < 10 * REFUSAL_MS, `took ${ms.toFixed(0)} ms`);
  // The bundled CUTLASS K-walk runs the same forward (another kernel than the record's catalog
  // dispatch, so the fingerprint may differ: what matters is that it is recomputed).
  const kwalk = BUNDLED.find((b) => b.family === "kwalk")!;
  const ran = await verifyTimed(onRecipe(kwalk), memoryStore(out.blobs));
  assert.notEqual(ran.r.recomputed, null, `${ran.r.status}: ${ran.r.reason}`);
});

Deno.test("fixedRecipeDispatch() leaves a projection uncovered when the recipe does not fit its K", () => {
  const d = fixedRecipeDispatch({ family: "sliced_k", splitK: 1024, tileK: 64, warpK: 2 });
  const hit = d({ name: "down_proj", m: 128, n: 128, k: 16 });
  assert.ok(!hit.covered && /^down_proj \(K = 16\): recipe .* 32768 M x N walks/.test(hit.reason));
  // 32,768 walks fit a K of 2^21 (ceil(K / 64) = 32,768).
  assert.ok(d({ name: "down_proj", m: 1, n: 1, k: 1 << 21 }).covered);
  const single = fixedRecipeDispatch({ family: "single_walk" });
  assert.ok(single({ name: "down_proj", m: 1, n: 1, k: 0 }).covered);
});
