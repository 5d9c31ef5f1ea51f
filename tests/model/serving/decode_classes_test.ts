import assert from "node:assert/strict";
import {
  catalogDispatch,
  decodeClasses,
  type DecodeClassesOptions,
  type DecoderConfig,
  decodeSignature,
  fixedRecipeDispatch,
  parseDecoderConfig,
} from "../../../src/model/mod.ts";
import {
  FA2_DAO_FASTMATH,
  parseDispatchCatalog,
  planFa2,
  REDUCE_STACK_CUDA_RECENT as reduceStack,
} from "../../../src/kernels/mod.ts";
import { createSfu, parseGpuProfile } from "../../../src/hardware/mod.ts";

const ROOT = new URL("../../../", import.meta.url);
const json = (path: string) => JSON.parse(Deno.readTextFileSync(new URL(path, ROOT)));
const QWEN3_4B = parseDecoderConfig(json("profiles/models/qwen3-4b.config.json"));
const TINY = parseDecoderConfig(json("tables/models/qwen3-tiny-dense/config.json"));
const TINY_MOE = parseDecoderConfig(json("tables/models/qwen3-tiny-moe/config.json"));
const TINY_CATALOG = json("tables/catalogs/demo-qwen3-tiny-a100.json");
const SINGLE = fixedRecipeDispatch({ family: "single_walk" });
const A100 = { reduceStack, multiProcessorCount: 108 };

const ranges = (c: DecoderConfig, o: Omit<DecodeClassesOptions, "reduceStack">) =>
  decodeClasses(c, { reduceStack, ...o }).classes.map((k) => `${k.from}-${k.to}`).join();

Deno.test("decodeClasses() splits RMSNorm over 2560 at 2, 4, 8, 16 rows and nowhere else", () => {
  // Context 99: 100 keys, one key block, so FA2 runs one split at every batch size. Hidden 2560
  // loads 640 vectors of 4: d0 = 512 lanes at one row, 512 / lastPow2(rows) from 2 rows on, down
  // to the warp (32) at 16 rows; values per thread 2560 / lanes; no warp split (80 < 256).
  const r = decodeClasses(QWEN3_4B, { ...A100, dispatch: SINGLE, context: 99, maxBatch: 64 });
  assert.deepEqual(r.classes.map((k) => [k.from, k.to]), [[1, 1], [2, 3], [4, 7], [8, 15], [
    16,
    64,
  ]]);
  const lanes = r.classes.map((k) => k.signature.norms[0]!.blockWidth);
  assert.deepEqual(lanes, [512, 256, 128, 64, 32]);
  assert.deepEqual(r.classes.map((k) => k.signature.norms[0]!.valuesPerThread), [
    5,
    10,
    20,
    40,
    80,
  ]);
  assert.equal(
    r.classes[1]!.changes.join(),
    "rms_norm tree: 512x1, 5/thread, vec -> 256x1, 10/thread, vec",
  );
  // float(B) / float(2560 B) is fl32(1/2560) for every B here; QK-norm (rows B x heads of 128)
  // keeps one 32-lane tree: its block height only counts rows per block.
  for (const k of r.classes) {
    const [rms, q, kn] = k.signature.norms;
    assert.equal(rms!.meanFactor, 0x39cccccd);
    assert.deepEqual([q!.blockWidth, q!.rowWarps, kn!.blockWidth, kn!.meanFactor], [
      32,
      1,
      32,
      0x3c000000,
    ]);
  }
  assert.equal(r.complete, true);
});

Deno.test("decodeSignature() follows FA2's split heuristic for Qwen3-4B on an A100 at 2000 keys", () => {
  // GQA swap: 8 heads of 4 query rows, BHM = 8 B, NSM = 216, 16 key blocks. B = 1: 16 splits
  // (spec §4.1 table). B = 2 (BHM 16): eligible splits 1, 2, 3, 4, 6, 8, 16; eff(8) = eff(16) =
  // 128/216 is best, so 8 splits of 2 blocks. B = 21: BHM 168 < 0.8f * 216; B = 22: 176 >= it,
  // so one split from 22 on.
  const sig = (batch: number) =>
    decodeSignature(QWEN3_4B, { ...A100, dispatch: SINGLE, context: 1999, batch }).attention;
  assert.deepEqual(sig(1), { seqlenK: 2000, nBlocks: 16, splits: 16, blocksPerSplit: 1 });
  assert.deepEqual([sig(2).splits, sig(2).blocksPerSplit], [8, 2]);
  assert.deepEqual([sig(3).splits, sig(3).blocksPerSplit], [8, 2]);
  assert.ok(sig(21).splits > 1);
  assert.deepEqual([sig(22).splits, sig(22).blocksPerSplit], [1, 16]);
  const r = decodeClasses(QWEN3_4B, { ...A100, dispatch: SINGLE, context: 1999 });
  const last = r.classes.at(-1)!;
  assert.deepEqual([last.from, last.to, last.signature.attention.splits], [22, 256, 1]);
  assert.match(last.changes.join(), /^FA2 splits: \d+ x \d+ blocks -> 1 x 16 blocks$/);
});

Deno.test("decodeSignature()'s split count is the varlen launch's (planFa2 of B decode sequences)", () => {
  const profile = parseGpuProfile(json("profiles/gpu/a100.json"));
  const context = 1023, d = 128;
  for (const batch of [1, 2, 5, 9, 20, 40, 100, 173]) {
    const q = new Uint16Array(batch * TINY.heads * d);
    const k = new Uint16Array(batch * (context + 1) * TINY.kvHeads * d);
    const { plan } = planFa2({ q, k, v: k }, {
      heads: TINY.heads,
      kvHeads: TINY.kvHeads,
      headDim: d,
      causal: true,
      build: FA2_DAO_FASTMATH,
      profile,
      mufu: createSfu({ mode: "ieee" }),
      multiProcessorCount: 108,
      cuSeqlensQ: Array.from({ length: batch + 1 }, (_, i) => i),
      cuSeqlensK: Array.from({ length: batch + 1 }, (_, i) => i * (context + 1)),
    });
    const a = decodeSignature(TINY, { ...A100, dispatch: SINGLE, context, batch }).attention;
    assert.deepEqual([a.splits, a.seqlenK], [plan.splits, plan.seqlenK], `batch ${batch}`);
  }
});

Deno.test("decodeClasses() starts a class at each catalog boundary and groups equal changes", () => {
  const catalog = parseDispatchCatalog({
    ...TINY_CATALOG,
    entries: [...TINY_CATALOG.entries.filter((e: { n: number }) => e.n !== 512), {
      n: 512,
      k: 256,
      mMin: 1,
      mMax: 4096,
      recipe: { family: "single_walk" },
      kernel: null,
      verified: null,
      evidence: "test: lm_head covered",
    }],
  });
  const dispatch = catalogDispatch(catalog);
  // 100 keys: one split. Catalog: parallel 1..8, serial 9..16, single 17..; RMSNorm over 256
  // changes its tree at 16 rows (64 -> 32 lanes).
  assert.equal(
    ranges(TINY, { dispatch, multiProcessorCount: 108, context: 99, maxBatch: 40 }),
    "1-8,9-15,16-16,17-40",
  );
  const r = decodeClasses(TINY, { ...A100, dispatch, context: 99, maxBatch: 40 });
  assert.equal(r.complete, true);
  assert.deepEqual(r.classes[1]!.changes, [
    "q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj: " +
    "parallel_split_k(splitK=2, tileK=64, workspace=output) -> serial_split_k(splitK=2, tileK=64)",
  ]);
  assert.equal(
    r.classes[3]!.signature.gemms.find((g) => g.name === "lm_head")!.kernel,
    "single_walk",
  );
});

Deno.test("decodeClasses() marks uncovered GEMMs by batch range and is then not complete", () => {
  const dispatch = catalogDispatch(
    parseDispatchCatalog(json("tables/catalogs/a100-cublas-qwen3-4b-ffn.json")),
  );
  const r = decodeClasses(QWEN3_4B, { ...A100, dispatch, context: 99 });
  assert.equal(r.complete, false);
  assert.equal(
    ranges(QWEN3_4B, { dispatch, multiProcessorCount: 108, context: 99 }),
    "1-1,2-3,4-7,8-15,16-99,100-100,101-249,250-250,251-256",
  );
  assert.deepEqual(r.classes[5]!.uncovered, ["q_proj", "k_proj", "v_proj", "o_proj", "lm_head"]);
  const gate = r.notes.find((n) => n.startsWith("gate_proj "))!;
  assert.match(gate, /^gate_proj not covered at batch 1\.\.99, 101\.\.249, 251\.\.256: /);
  assert.equal(r.notes.filter((n) => n.includes("at batch 1..256:")).length, 5);
});

Deno.test("decodeClasses() of a MoE model covers the dense part and says the experts are data-dependent", () => {
  const r = decodeClasses(TINY_MOE, { ...A100, dispatch: SINGLE, context: 99, maxBatch: 8 });
  const names = r.classes[0]!.signature.gemms.map((g) => g.name);
  // Layer 0 is dense (mlp_only_layers), layer 1 sparse: both MLP kinds appear.
  assert.deepEqual(names, [
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "router",
    "gate_proj",
    "up_proj",
    "down_proj",
    "lm_head",
  ]);
  assert.equal(r.classes[0]!.signature.norms.at(-1)!.name, "topk_sum");
  assert.equal(r.classes[0]!.signature.norms.at(-1)!.meanFactor, null);
  assert.equal(r.complete, false);
  assert.match(r.notes.join("\n"), /MoE expert GEMMs .*data-dependent/);
});

Deno.test("decodeClasses() stops at the first batch size whose reduction is not modelled", () => {
  const big = parseDecoderConfig({
    model_type: "qwen3",
    vocab_size: 16,
    hidden_size: 65536,
    intermediate_size: 16,
    num_hidden_layers: 1,
    num_attention_heads: 512,
    num_key_value_heads: 512,
    head_dim: 128,
  });
  // 8192 rows of 65536 FP32 values pass 2^31 bytes: PyTorch splits the iterator (not modelled).
  const r = decodeClasses(big, { ...A100, dispatch: SINGLE, context: 1, maxBatch: 8200 });
  assert.equal(r.lastBatch, 8191);
  assert.equal(r.classes.at(-1)!.to, 8191);
  assert.match(r.notes[0]!, /^batch 8192 and above not derived: Cannot configure reduction/);
  assert.equal(r.complete, false);
});

Deno.test("decodeClasses() stops below stopAt with its reason (a batch whose all-reduce path differs)", () => {
  const o = { ...A100, dispatch: SINGLE, context: 10, maxBatch: 64 };
  const r = decodeClasses(TINY, { ...o, stopAt: { batch: 40, reason: "another path" } });
  assert.equal(r.maxBatch, 64);
  assert.equal(r.lastBatch, 39);
  assert.equal(r.classes.at(-1)!.to, 39);
  assert.deepEqual(r.notes, ["batch 40 and above not derived: another path"]);
  assert.equal(r.complete, false);
  // Beyond maxBatch it changes nothing.
  assert.deepEqual(
    decodeClasses(TINY, { ...o, stopAt: { batch: 65, reason: "x" } }),
    decodeClasses(TINY, o),
  );
});

Deno.test("decodeClasses() refuses a non-positive maxBatch or SM count and a negative context", () => {
  const o = { ...A100, dispatch: SINGLE, context: 10 };
  assert.throws(() => decodeClasses(TINY, { ...o, maxBatch: 0 }), RangeError);
  assert.throws(() => decodeClasses(TINY, { ...o, multiProcessorCount: 0 }), RangeError);
  assert.throws(() => decodeClasses(TINY, { ...o, context: -1 }), RangeError);
  assert.throws(() => decodeClasses(TINY, { ...o, context: 1.5 }), RangeError);
});

Deno.test("decodeClasses() under vLLM custom ops: merged GEMMs, one fused-norm switch at 256 tokens, and piecewise graphs make the classes coarser", () => {
  const vllm = { norm: "vllm-cuda", projections: "merged" } as const;
  // A dispatch with a boundary inside a capture bucket (9..16): split-K up to 12 rows.
  const seen: number[] = [];
  const dispatch = (call: { m: number; name: string }) => {
    if (call.name !== "lm_head") seen.push(call.m);
    return {
      covered: true as const,
      recipe: call.m <= 12
        ? { family: "serial_split_k" as const, splitK: 2, tileK: 64 }
        : { family: "single_walk" as const },
    };
  };
  const eager = decodeClasses(QWEN3_4B, {
    ...A100,
    dispatch,
    layer: vllm,
    context: 99,
    maxBatch: 300,
  });
  assert.deepEqual(eager.classes[0]!.signature.gemms.map((g) => g.name), [
    "qkv_proj",
    "o_proj",
    "gate_up_proj",
    "down_proj",
    "lm_head",
  ]);
  // Hidden 2560 = 320 vectors of 8: one each on min(2560, 1024) threads below 256 tokens, two on
  // some of 256 threads from 256 on.
  assert.deepEqual(eager.classes.map((k) => `${k.from}-${k.to}`), ["1-12", "13-255", "256-300"]);
  assert.equal(eager.padding, null);
  seen.length = 0;
  const sizes = [1, 2, 4, 8, 16, 24, 32, 256, 512];
  const piecewise = decodeClasses(QWEN3_4B, {
    ...A100,
    dispatch,
    layer: vllm,
    captureSizes: sizes,
    context: 99,
    maxBatch: 300,
  });
  // 9..12 now pad to 16 (single walk) but the LM head runs at the real batch (split-K up to 12),
  // so 9..12 stays apart by the LM head alone; 33..255 pad to 256, so the norm switch moves down
  // to 33 and 256..300 joins it.
  assert.ok(seen.every((m) => sizes.includes(m)), `GEMMs at padded sizes only: ${seen}`);
  assert.deepEqual(piecewise.classes.map((k) => `${k.from}-${k.to}`), [
    "1-8",
    "9-12",
    "13-32",
    "33-300",
  ]);
  assert.match(piecewise.padding!, /smallest capture size/);
});
