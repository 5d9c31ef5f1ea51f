/**
 * Red-team finding F2: the tensors a GEMM or block record names by digest (input, weights) were
 * read before their element counts were checked against the verifier's limit of 2^28 elements
 * (`MAX_RECOMPUTE_ELEMENTS`): only the output and the activations were, so a GEMM input of 2^29
 * elements (1 GiB) was read and copied before the record ended. Now such a record is NOT_VERIFIED,
 * naming the tensor and its element count, and none of its tensors is read into memory. Likewise
 * a record whose recomputation would take more than 2^48 products (`MAX_RECORD_PRODUCTS`), each
 * of its tensors within the limit: an attention block of 2^20 tokens was four days of attention
 * on two cores. Neither refusal hides a FAIL (reviews h184, h187): each waits for the record's
 * contradictions (its world, its kernel, its committed tensors), and where one waits the
 * committed tensors are checked with the store's chunked hashing reader (`blobs.open`), held by
 * nothing: a tensor withheld, or one of another length than its shape holds, FAILs the record
 * (the prover's obligation), and tp=3 on one GPU or a PyTorch release the stack does not pin
 * FAILs it as it would without the limit.
 */
import assert from "node:assert/strict";
import type { BlobStore } from "../../src/assets/mod.ts";
import type { BlockWorkload, ClaimPredicate, GemmWorkload } from "../../src/claims/mod.ts";
import {
  decoderProducts,
  MAX_RECORD_PRODUCTS,
  recordProducts,
  type RecordResult,
  verifyRecord,
} from "../../src/verify/mod.ts";
import { parseDecoderConfig } from "../../src/model/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { recipeEnvelope } from "./_recipe_gemm.ts";
import { attention, chainLog, memoryStore, proverRun, store } from "./_recompute_fixture.ts";
import { oneGemmScenario } from "../verify/_serving_fixture.ts";
import { InputError } from "../../src/errors.ts";
import { _checkTensorUnheld } from "../../src/verify/_unheld_tensor.ts";
import { _weightShapes } from "../../src/verify/recompute_block.ts";

const RECIPE = JSON.parse(
  await Deno.readTextFile(
    new URL("../../profiles/recipes/cutlass-kwalk-128x128x64.json", import.meta.url),
  ),
);

/**
 * A blob store that holds every tensor asked for as zeros of the length asked (the committed
 * bytes, as far as the pipeline can tell: digests are the store's to check), recording each read.
 */
function zeroStore(): { blobs: BlobStore; reads: string[] } {
  const reads: string[] = [];
  const blobs: BlobStore = {
    dir: "zeros",
    get: (d, o) => (reads.push(d), Promise.resolve(new Uint8Array(o?.maxBytes ?? 0))),
  };
  return { blobs, reads };
}

/** An empty blob store that records the digests it is asked for. */
function emptyStore(): { blobs: BlobStore; reads: string[] } {
  const reads: string[] = [];
  const blobs: BlobStore = {
    dir: "empty",
    get: (d) => (reads.push(d), Promise.resolve(null)),
    open: (d) => (reads.push(d), Promise.resolve(null)),
  };
  return { blobs, reads };
}

async function verifyWith(p: ClaimPredicate, blobs: BlobStore): Promise<RecordResult> {
  return await verifyRecord(
    { store, blobs, walker: engineWalker, attention },
    { log: chainLog([p]), index: 0 },
  );
}

function predicate(o: {
  stack: string;
  batch: number;
  workload: GemmWorkload | BlockWorkload;
  out: [number, number];
}): ClaimPredicate {
  return {
    ...recipeEnvelope("tensor-limit", { stack: o.stack, batch: o.batch }),
    workload: o.workload,
    fingerprint: {
      tensor: o.workload.kind === "gemm"
        ? "layers.0.q_proj.out"
        : `layers.0.${o.workload.kind}.out`,
      dtype: "bf16",
      shape: o.out,
      sha256: "cd".repeat(32),
    },
  };
}

function gemm(m: number, n: number, k: number): ClaimPredicate {
  return predicate({
    stack: "cutlass-3.5-default",
    batch: m,
    workload: {
      kind: "gemm",
      m,
      n,
      k,
      dtype: "bf16",
      out: "bf16",
      layout: "tn",
      kernel: { recipe: RECIPE },
      weights: { sha256: "ab".repeat(32), shape: [n, k] },
      input: { sha256: "ef".repeat(32), shape: [m, k] },
    },
    out: [m, n],
  });
}

function block(kind: BlockWorkload["kind"], shape: BlockWorkload["shape"]): ClaimPredicate {
  const names = kind === "ffn_block"
    ? ["norm", "gate", "up", "down"]
    : ["norm", "q", "k", "v", "o", "qNorm", "kNorm"];
  return predicate({
    stack: "cutlass-3.5-hf-flash-attn",
    batch: 1,
    workload: {
      kind,
      tokens: 1,
      shape,
      rmsNormEps: "1e-6",
      kernel: { recipe: RECIPE },
      ...(kind === "attention_block"
        ? { attention: { multiProcessorCount: 108, rope: { theta: "1000000" } } }
        : {}),
      weights: Object.fromEntries(names.map((n, i) => [n, i.toString(16).repeat(64)])),
      input: { sha256: "ef".repeat(32), shape: [1, shape.hidden] },
    },
    out: [1, shape.hidden],
  });
}

/**
 * A blob store holding a blob of the given length for each digest (its bytes, as far as the
 * pipeline can tell: digests are the store's to check), opened without a byte read; `handed`
 * counts the bytes `get` hands out and `reads` the digests asked for.
 */
function sizedStore(sizes: Record<string, number>): {
  blobs: BlobStore;
  handed: () => number;
  reads: string[];
} {
  const reads: string[] = [];
  let handed = 0;
  const blobs: BlobStore = {
    dir: "sized",
    get: (d) => {
      reads.push(d);
      if (sizes[d] === undefined) return Promise.resolve(null);
      handed += sizes[d];
      return Promise.resolve(new Uint8Array(sizes[d]));
    },
    open: (d) => {
      reads.push(d);
      const size = sizes[d];
      if (size === undefined) return Promise.resolve(null);
      const refuse = () => Promise.reject(new Error("no byte is read"));
      return Promise.resolve({
        size,
        read: refuse,
        readInto: refuse,
        close: () => {},
        [Symbol.dispose]: () => {},
      });
    },
  };
  return { blobs, handed: () => handed, reads };
}

/** Each tensor's digest -> the bytes its shape holds (BF16). */
function committedSizes(p: ClaimPredicate): Record<string, number> {
  const w = p.workload as GemmWorkload | BlockWorkload;
  const bytes = (shape: readonly number[]) => 2 * shape.reduce((a, b) => a * b, 1);
  if (w.kind === "gemm") {
    return { [w.input.sha256]: bytes(w.input.shape), [w.weights.sha256]: bytes(w.weights.shape) };
  }
  const shapes = _weightShapes(w);
  return {
    [w.input.sha256]: bytes(w.input.shape),
    ...Object.fromEntries(Object.entries(shapes).map(([n, s]) => [w.weights[n]!, bytes(s)])),
  };
}

async function assertRefusedUnread(p: ClaimPredicate, reason: RegExp): Promise<void> {
  const { blobs, handed, reads } = sizedStore(committedSizes(p));
  const r = await verifyWith(p, blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, reason);
  assert.ok(!r.reason.includes("\n"), "one line");
  assert.equal(handed(), 0, "no tensor was read into memory");
  assert.deepEqual([...new Set(reads)].sort(), Object.keys(committedSizes(p)).sort());
  // The prover's tensors withheld: its obligation, which no limit hides.
  const withheld = await verifyWith(p, emptyStore().blobs);
  assert.equal(withheld.status, "FAIL", withheld.reason);
  assert.equal(withheld.obligation, "committed-input");
}

Deno.test("a GEMM record whose input or weights exceed 2^28 elements is NOT_VERIFIED, none of its tensors read into memory", async () => {
  // The red team's record: a [16384, 1] output of a 1 GiB input.
  await assertRefusedUnread(
    gemm(16384, 1, 32768),
    /^input \[16384, 32768\] has 536870912 elements, over the verifier's limit of 2\^28$/,
  );
  // Weights over the limit: the input, within it, is not read into memory either.
  await assertRefusedUnread(
    gemm(1, 16384, 32768),
    /^weights \[16384, 32768\] has 536870912 elements/,
  );
  // A store without a chunked reader is not asked for a tensor over the limit.
  const { blobs, reads } = zeroStore();
  const r = await verifyWith(gemm(1, 16384, 32768), blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.deepEqual(reads, ["ef".repeat(32)], "the input, within the limit, read and dropped");
  // Within the limit, the empty store is asked for the input, and its absence FAILs.
  const empty = emptyStore();
  const within = await verifyWith(gemm(16, 16, 64), empty.blobs);
  assert.equal(within.status, "FAIL", within.reason);
  assert.equal(within.obligation, "committed-input");
  assert.deepEqual(empty.reads, ["ef".repeat(32)]);
});

Deno.test("a block record whose weight exceeds 2^28 elements is NOT_VERIFIED, none of its tensors read into memory", async () => {
  // gate [2^19, 1024] = 2^29 elements, while the activations ([1, 2^19]) are within the limit.
  await assertRefusedUnread(
    block("ffn_block", { hidden: 1024, intermediate: 1 << 19, heads: 8, kvHeads: 8, headDim: 128 }),
    /^weight 'gate' \[524288, 1024\] has 536870912 elements, over the verifier's limit of 2\^28$/,
  );
  // q [1024 x 128, 4096] = 2^29 elements.
  await assertRefusedUnread(
    block("attention_block", {
      hidden: 4096,
      intermediate: 4096,
      heads: 1024,
      kvHeads: 8,
      headDim: 128,
    }),
    /^weight 'q' \[131072, 4096\] has 536870912 elements/,
  );
});

Deno.test("a size limit hides none of a record's contradictions: tp=3 on one GPU over the limit, a PyTorch release its stack does not pin at 2^20 tokens, and a tensor of another length FAIL, none of its tensors read into memory", async () => {
  // K = 2^24: the weights [32, 2^24] are 2^29 elements.
  const big = gemm(4, 32, 1 << 24);
  const tp3 = {
    ...big,
    parallelism: { ...big.parallelism, tp: 3 },
  } as ClaimPredicate;
  const block20 = (() => {
    const p = block("attention_block", {
      hidden: 256,
      intermediate: 768,
      heads: 2,
      kvHeads: 1,
      headDim: 128,
    });
    const w = p.workload as BlockWorkload;
    const tokens = 1 << 20;
    return {
      ...p,
      software: { ...p.software, components: { pytorch: "2.4.0" } },
      workload: { ...w, tokens, input: { ...w.input, shape: [tokens, 256] } },
      fingerprint: { ...p.fingerprint, shape: [tokens, 256] },
    } as ClaimPredicate;
  })();
  for (
    const [p, reason] of [
      [tp3, /^record contradicts itself: tp=3 x pp=1 x dp=1 ranks on 1 GPU\(s\)$/],
      [block20, /components\.pytorch '2\.4\.0', where the stack pins/],
    ] as const
  ) {
    const { blobs, handed } = sizedStore(committedSizes(p));
    const r = await verifyWith(p, blobs);
    assert.equal(r.status, "FAIL", r.reason);
    assert.match(r.reason, reason);
    assert.equal(handed(), 0, "no tensor was read into memory");
  }
  // Without the contradiction, the weights' limit is said (and not the kernel's refusal of K).
  const { blobs } = sizedStore(committedSizes(big));
  assert.match((await verifyWith(big, blobs)).reason, /^weights \[32, 16777216\] has 536870912/);
  // The input one byte short of its shape: the record's contradiction with its own tensor.
  const sizes = committedSizes(big);
  sizes["ef".repeat(32)]! -= 2;
  const short = await verifyWith(big, sizedStore(sizes).blobs);
  assert.equal(short.status, "FAIL", short.reason);
  assert.match(short.reason, /^record contradicts its input tensor: 134217726 bytes, its shape/);
});

Deno.test("a GEMM or block record over the audit's budget, its tensors within the limit, is refused with none of them read into memory, and FAILs on a tensor withheld", async () => {
  const ffn = block("ffn_block", {
    hidden: 256,
    intermediate: 768,
    heads: 2,
    kvHeads: 1,
    headDim: 128,
  });
  for (const p of [gemm(4, 16, 1 << 24), ffn]) {
    const { blobs, handed, reads } = sizedStore(committedSizes(p));
    const r = await verifyRecord(
      { store, blobs, walker: engineWalker, attention, maxRecordProducts: 1 },
      { log: chainLog([p]), index: 0 },
    );
    assert.equal(r.status, "NOT_VERIFIED", r.reason);
    assert.match(r.reason, /over the audit's budget \(--max-record-products\) of 2\^0 a record$/);
    assert.equal(handed(), 0, "no tensor was read into memory");
    assert.deepEqual([...new Set(reads)].sort(), Object.keys(committedSizes(p)).sort());
    assert.ok(r.steps.some((s) => s.step === "tensors"), "its tensors checked");
    const withheld = await verifyRecord(
      { store, blobs: emptyStore().blobs, walker: engineWalker, attention, maxRecordProducts: 1 },
      { log: chainLog([p]), index: 0 },
    );
    assert.equal(withheld.status, "FAIL", withheld.reason);
    assert.equal(withheld.obligation, "committed-input");
  }
});

Deno.test("a tensor handed back at an odd byte offset is still read as its elements", async () => {
  const out = await proverRun(
    oneGemmScenario({ logId: "tensor-limit", seed: "tensor-limit" }, { falsify: [] }),
  );
  const p = out.records[0]!.predicate;
  const plain = memoryStore(out.blobs);
  const odd: BlobStore = {
    dir: "odd",
    get: async (d, o) => {
      const b = await plain.get(d, o);
      if (b === null) return null;
      const wide = new Uint8Array(b.length + 1);
      wide.set(b, 1);
      return wide.subarray(1);
    },
  };
  assert.equal((p.workload as GemmWorkload).kind, "gemm");
  assert.equal((await verifyWith(p, odd)).status, "PASS");
  assert.equal((await verifyWith(p, plain)).status, "PASS");
});

Deno.test("an attention block of 2^20 tokens (every tensor within the limit) is NOT_VERIFIED on its cost, its tensors read and nothing computed; withheld, they FAIL it", async () => {
  const tokens = 1 << 20;
  const shape = { hidden: 256, intermediate: 256, heads: 2, kvHeads: 1, headDim: 128 };
  const p = block("attention_block", shape);
  const w = p.workload as BlockWorkload;
  const huge = {
    ...p,
    batch: { size: 1 },
    workload: { ...w, tokens, input: { ...w.input, shape: [tokens, 256] } },
    fingerprint: { ...p.fingerprint, shape: [tokens, 256] },
  } as ClaimPredicate;
  assert.ok(recordProducts(huge.workload)! > MAX_RECORD_PRODUCTS);
  const { blobs, reads } = zeroStore();
  const r = await verifyWith(huge, blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(
    r.reason,
    /^the attention_block of 1048576 tokens takes about 2\.82e\+14 products to recompute, over the verifier's budget of 2\^48 a record$/,
  );
  assert.equal(reads.length, 8, "the input and the seven weights");
  assert.ok(!r.steps.some((s) => s.step === "recompute"), "nothing recomputed");
  // The prover's tensors withheld: its obligation, which no cost hides.
  const withheld = await verifyWith(huge, emptyStore().blobs);
  assert.equal(withheld.status, "FAIL", withheld.reason);
  assert.equal(withheld.obligation, "committed-input");
});

Deno.test("decoderProducts() bounds a forward's cost: Qwen3-4B at 250 tokens as measured, at 32,768 tokens within 2^48", () => {
  const config = (m: string) =>
    parseDecoderConfig(
      JSON.parse(
        Deno.readTextFileSync(new URL(`../../profiles/models/${m}.config.json`, import.meta.url)),
      ),
    );
  const prefill = (m: string, t: number) =>
    decoderProducts(config(m), [{ rows: t, logitsRows: 0, entries: [{ query: t, cached: 0 }] }]);
  // The GEMM products of a 250-token forward (908 G, docs/benchmarks.md) and its attention core.
  const at250 = prefill("qwen3-4b", 250);
  assert.ok(at250 > 908e9 && at250 < 920e9, String(at250));
  assert.ok(prefill("qwen3-4b", 32768) <= MAX_RECORD_PRODUCTS);
  assert.ok(prefill("qwen3-0.6b", 32768) <= MAX_RECORD_PRODUCTS);
  assert.ok(prefill("qwen3-4b", 65536) > MAX_RECORD_PRODUCTS);
  // A decode step attends to its cached keys: one row, 4,096 keys.
  const step = decoderProducts(config("qwen3-0.6b"), [
    { rows: 1, logitsRows: 1, entries: [{ query: 1, cached: 4095 }] },
  ]);
  assert.ok(step > prefill("qwen3-0.6b", 1), "the cached keys and the LM head cost");
});

Deno.test("a committed tensor over the element limit is hashed only up to the bytes one within it can have (review h190: a refused record hashed up to 4 GiB a tensor)", async () => {
  const MIB = 2 ** 20;
  const asked: number[] = [];
  // A store holding a 600 MiB blob, refusing by size as the file store does (before hashing).
  const store: BlobStore = {
    dir: "memory",
    get: () => Promise.reject(new Error("not read whole")),
    open: (_digest, options) => {
      asked.push(options?.maxBytes ?? Infinity);
      if (600 * MIB > (options?.maxBytes ?? Infinity)) {
        return Promise.reject(new InputError("BLOB_TOO_LARGE", "Cannot read blob: too large"));
      }
      return Promise.resolve({
        size: 600 * MIB,
        read: () => Promise.reject(new Error("not read")),
        readInto: () => Promise.reject(new Error("not read")),
        close: () => {},
        [Symbol.dispose]: () => {},
      });
    },
  };
  // 2^29 BF16 elements (1 GiB), over the 2^28 limit: left unchecked, nothing hashed.
  const over = {
    digest: "ab".repeat(32),
    shape: [2 ** 15, 2 ** 14],
    width: 2 as const,
    what: "input",
  };
  assert.equal(await _checkTensorUnheld(store, over), false);
  assert.deepEqual(asked, [2 ** 28 * 2]);
});
