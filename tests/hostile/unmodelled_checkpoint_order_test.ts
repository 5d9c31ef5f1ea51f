/**
 * A checkpoint detail this version does not model hides no contradiction that needs only what is
 * at hand. A weight file whose header the loaders read all the same although the format does not
 * allow it (a tensor entry field it does not define), or a Qwen3-MoE config of a value HF builds a
 * model of that is not modelled (`num_experts` -1), was NOT_VERIFIED before the record was held to
 * its weight file names, the weights' metadata, its split, its fingerprint's width, its pipeline
 * stages and its layer chain: a model-forward or sequence record naming a `model.bin`, a metadata
 * format HF refuses, tp=2 over one KV head, pp=4096 over two layers, a fingerprint one wider than
 * the hidden size or a layer chain of three for two layers was NOT_VERIFIED over such a
 * checkpoint, where it FAILs over the modelled one. Each now FAILs with the same reason; such
 * weights are held to their config as any (a token id past the vocabulary FAILs too), and the
 * honest record stays NOT_VERIFIED.
 *
 * Such a config is read as any other but for its MoE section, so the record is also held to what
 * its vocabulary, hidden size and maximum positions fix, and to its weights' metadata (read from
 * their headers alone): a token id or a pad token past the vocabulary, a pad token on a stack that
 * flattens the batch, a prompt past vLLM's `max_model_len`, a pass past every vLLM token budget,
 * an all-reduce vLLM's dispatch does not take, or a metadata format HF refuses was NOT_VERIFIED
 * over a Qwen3-MoE config of `num_experts` -1 (HF stacks) or `decoder_sparse_step` -1 (vLLM, which
 * refuses a config of no sparse layer), and FAILs as over the modelled config.
 */
import assert from "node:assert/strict";
import type {
  ClaimPredicate,
  ModelForwardWorkload,
  SequenceWorkload,
} from "../../src/claims/mod.ts";
import { digestOfFiles } from "../../src/model/mod.ts";
import {
  forwardSection,
  oneGemmScenario,
  servedSection,
  servingScenario,
} from "../verify/_serving_fixture.ts";
import { setField, withConfig } from "./_config_edit.ts";
import {
  type Blobs,
  commit,
  forwardScenario,
  proverRun,
  verifyAlone,
} from "./_recompute_fixture.ts";
import { reencode, withHeader } from "./_weight_bytes.ts";

const forward = await proverRun(forwardScenario([], 2));
const serving = await proverRun(servingScenario([], 2));

/** The honest record of this kind over this model type, and the blobs it names. */
function honestOf(kind: string, type: string): [ClaimPredicate, Blobs] {
  const run = kind === "sequence" ? serving : forward;
  const r = run.records.find((r) => {
    const w = r.predicate.workload as ModelForwardWorkload;
    return w.kind === kind && w.model?.type === type;
  });
  assert.ok(r !== undefined, `a ${kind} record of ${type}`);
  return [r.predicate, new Map(run.blobs)];
}

/** The honest records of both kinds over the dense and MoE checkpoints. */
const RECORDS = ["model_forward", "sequence"].flatMap((kind) =>
  ["qwen3", "qwen3_moe"].map((type) => ({ kind, type, record: honestOf(kind, type) }))
);

/** An edit of a record that commits what it changes to the blobs. */
type Edit = (p: ClaimPredicate, into: Blobs) => ClaimPredicate | Promise<ClaimPredicate>;

/** The record with its first weight file's name and bytes as `edit` gives them. */
async function withFirstWeight(
  p: ClaimPredicate,
  into: Blobs,
  edit: (name: string, bytes: Uint8Array) => [string, Uint8Array] | Promise<[string, Uint8Array]>,
): Promise<ClaimPredicate> {
  const w = p.workload as ModelForwardWorkload;
  const [first, ...rest] = Object.entries(w.model.files);
  const [renamed, bytes] = await edit(first![0], into.get(first![1])!);
  const files = Object.fromEntries([[renamed, commit(into, bytes)], ...rest]);
  const model = { ...w.model, files, checkpointSha256: digestOfFiles(files) };
  return { ...p, workload: { ...w, model } } as ClaimPredicate;
}

/** The first weight file's first tensor entry with a field the format does not define. */
const offFormat: Edit = (p, into) =>
  withFirstWeight(p, into, (name, bytes) => [
    name,
    withHeader(bytes, (h) => h.replace('"dtype":', '"note":"x","dtype":')),
  ]);

/** The config with `num_experts` -1 (HF builds every layer dense; not modelled). */
const noExperts: Edit = (p, into) => withConfig(p, into, setField("num_experts", -1));

/** The record with other parallelism (on as many GPUs as it names ranks). */
function parallel(tp: number, pp: number): Edit {
  return (p) => ({
    ...p,
    parallelism: { ...p.parallelism, tp, pp },
    hardware: { ...p.hardware, count: tp * pp },
  });
}

/** Lies any checkpoint of two layers, a hidden size of 256 and one KV head contradicts. */
const SHAPE_LIES: [string, Edit, RegExp][] = [
  ["tp=2 over one KV head", parallel(2, 1), /cannot split 1 KV heads over 2 ranks/],
  [
    "a fingerprint one wider than the hidden size",
    (p) => ({ ...p, fingerprint: { ...p.fingerprint, shape: [p.fingerprint.shape[0]!, 257] } }),
    /fingerprint shape is \[\d+, 257\], .* computes \[\d+, 256\]/,
  ],
  [
    "a layer chain of three for two layers",
    (p) => {
      const entry = { attention: "ab".repeat(32), mlp: "ab".repeat(32) };
      return { ...p, workload: { ...p.workload, layerChain: [entry, entry, entry] } };
    },
    /layer chain has 3 entries for 2 layers/,
  ],
  [
    "its weight file named model.bin",
    (p, into) => withFirstWeight(p, into, (_, bytes) => ["model.bin", bytes]),
    /record contradicts its stack: weight file 'model\.bin' holds safetensors under a name HF/,
  ],
];

/** The record's FAIL over the modelled checkpoint, and the same FAIL over `unmodelled`'s. */
async function assertSameFail(
  p: ClaimPredicate,
  into: Blobs,
  o: { readonly reason: RegExp; readonly unmodelled: Edit; readonly what: string },
): Promise<void> {
  const modelled = await verifyAlone(p, into);
  assert.equal(modelled.status, "FAIL", `${o.what}: ${modelled.reason}`);
  assert.match(modelled.reason, o.reason, `${o.what}: ${modelled.reason}`);
  const r = await verifyAlone(await o.unmodelled(p, into), into);
  assert.equal(r.status, "FAIL", `${o.what}, not modelled: ${r.reason}`);
  assert.equal(r.reason, modelled.reason, o.what);
}

Deno.test("an honest record over weights read in a way not modelled, or over a config of values not modelled, is NOT_VERIFIED naming it (model_forward and sequence)", async () => {
  for (const { kind, type, record: [p, into] } of RECORDS) {
    const weights = await verifyAlone(await offFormat(p, into), into);
    assert.equal(weights.status, "NOT_VERIFIED", `${kind} ${type}: ${weights.reason}`);
    assert.match(
      weights.reason,
      /^checkpoint: Cannot open checkpoint: .*has a field 'note' the format does not define/,
    );
    if (type !== "qwen3_moe") continue;
    const config = await verifyAlone(await noExperts(p, into), into);
    assert.equal(config.status, "NOT_VERIFIED", `${kind}: ${config.reason}`);
    assert.match(config.reason, /^checkpoint: Cannot use config: num_experts -1 .* not modelled/);
  }
});

Deno.test("weights read in a way not modelled hide no contradiction with their config, names or metadata: each FAILs as over the modelled weights (model_forward and sequence)", async () => {
  for (const { kind, type, record: [p, into] } of RECORDS) {
    for (const [lie, edit, reason] of SHAPE_LIES) {
      const what = `${kind} ${type}: ${lie}`;
      await assertSameFail(await edit(p, into), into, { reason, unmodelled: offFormat, what });
    }
    if (type !== "qwen3") continue;
    // A metadata format HF Transformers 4.5x refuses to load.
    const np = await withFirstWeight(p, into, async (name, bytes) => [
      name,
      await reencode(bytes, { metadata: { format: "np" } }),
    ]);
    await assertSameFail(np, into, {
      reason: /HF Transformers refuses to load weight file 'model\.safetensors': .* format 'np'/,
      unmodelled: offFormat,
      what: `${kind}: metadata format np`,
    });
  }
  // The config is modelled: the forward's own check of the tokens still runs (and computes
  // nothing past it).
  const [p, into] = RECORDS[0]!.record;
  const w = p.workload as ModelForwardWorkload;
  const [first, ...rest] = w.tokens.sequences;
  const sequences = [[512, ...first!.slice(1)], ...rest];
  const past = { ...p, workload: { ...w, tokens: { ...w.tokens, sequences } } };
  await assertSameFail(past, into, {
    reason: /token id 512 is outside 0\.\.511/,
    unmodelled: offFormat,
    what: "a token id past the vocabulary",
  });
});

Deno.test("a config of values HF builds but not modelled hides no contradiction with the weight file names, split and shapes it fixes: each FAILs as over the modelled config (model_forward and sequence)", async () => {
  for (const { kind, type, record: [p, into] } of RECORDS) {
    if (type !== "qwen3_moe") continue;
    for (const [lie, edit, reason] of SHAPE_LIES) {
      const what = `${kind}: ${lie}`;
      await assertSameFail(await edit(p, into), into, { reason, unmodelled: noExperts, what });
    }
  }
});

Deno.test("a config its stack refuses to load comes before the record's contradictions with the config, modelled or not: a pad_token_id HF cannot build beside a fingerprint one wider FAILs for the pad_token_id (model_forward and sequence)", async () => {
  for (const { kind, type, record: [p, into] } of RECORDS) {
    if (type !== "qwen3_moe") continue;
    const refused = withConfig(p, into, setField("pad_token_id", 512));
    const wider = {
      ...refused,
      fingerprint: { ...refused.fingerprint, shape: [refused.fingerprint.shape[0]!, 257] },
    };
    await assertSameFail(wider, into, {
      reason: /^record contradicts its stack: .*pad_token_id 512 lies outside its vocabulary/,
      unmodelled: noExperts,
      what: `${kind}: a pad_token_id HF refuses and a fingerprint one wider`,
    });
  }
});

/** The record with its first sequence's first token past the bundled vocabulary of 512. */
const tokenPast: Edit = (p) => {
  if (p.workload.kind === "sequence") {
    const w = p.workload as SequenceWorkload;
    const prompt = [512, ...w.tokens.prompt.slice(1)];
    return { ...p, workload: { ...w, tokens: { ...w.tokens, prompt } } } as ClaimPredicate;
  }
  const w = p.workload as ModelForwardWorkload;
  const [first, ...rest] = w.tokens.sequences;
  const sequences = [[512, ...first!.slice(1)], ...rest];
  return { ...p, workload: { ...w, tokens: { ...w.tokens, sequences } } } as ClaimPredicate;
};

/** The record with its model-forward batch's tokens as `edit` gives them. */
function withTokens(
  edit: (t: ModelForwardWorkload["tokens"]) => ModelForwardWorkload["tokens"],
): Edit {
  return (p) => {
    const w = p.workload as ModelForwardWorkload;
    return { ...p, workload: { ...w, tokens: edit(w.tokens) } } as ClaimPredicate;
  };
}

Deno.test("a config of values HF builds but not modelled hides no contradiction with its vocabulary or the weights' metadata: a token id or pad token past it, or a metadata format HF refuses, FAILs as over the modelled config (model_forward and sequence)", async () => {
  const np = (p: ClaimPredicate, into: Blobs) =>
    withFirstWeight(p, into, async (name, bytes) => [
      name,
      await reencode(bytes, { metadata: { format: "np" } }),
    ]);
  let padded = 0;
  for (const { kind, type, record: [p, into] } of RECORDS) {
    if (type !== "qwen3_moe") continue;
    const lies: [string, Edit, RegExp][] = [
      ["a token id past the vocabulary", tokenPast, /token id 512 is outside 0\.\.511/],
      [
        "a metadata format HF refuses",
        np,
        /HF Transformers refuses to load weight file 'model-00001-of-00002\.safetensors': .* format 'np'/,
      ],
    ];
    const w = p.workload as ModelForwardWorkload;
    const lengths = w.kind === "model_forward" ? w.tokens.sequences.map((s) => s.length) : [];
    if (new Set(lengths).size > 1) {
      // A padded batch on a stack that pads to the longest sequence.
      padded++;
      lies.push([
        "a pad token past the vocabulary",
        withTokens((t) => ({ ...t, padTokenId: 512 })),
        /pad token id 512 is outside the vocabulary 0\.\.511/,
      ]);
    }
    for (const [lie, edit, reason] of lies) {
      const what = `${kind}: ${lie}`;
      await assertSameFail(await edit(p, into), into, { reason, unmodelled: noExperts, what });
    }
  }
  assert.equal(padded, 1, "the MoE forward record pads a batch");
});

const RING4 = { kind: "nccl-ring", protocol: "simple", chunkBytes: 2097152, rings: [[0, 1, 2, 3]] };

/**
 * vLLM forward records of the tiny MoE checkpoint with four KV heads: on one GPU, and at TP 4
 * naming the NCCL ring (computed with it) where vLLM's dispatch runs its one-stage custom
 * all-reduce on four NVLink-connected A100s.
 */
const vllm = await proverRun(oneGemmScenario({ logId: "unmodelled-vllm", seed: "unmodelled-v1" }, {
  hardware: { profile: "a100", count: 4 },
  forward: {
    ...forwardSection(["tables/models/qwen3-tiny-moe-tp"], {
      records: 2,
      catalog: "demo-qwen3-tiny-tp-a100",
    }),
    stack: "vllm-0.11-eager-fa2",
    components: { vllm: "0.11.0" },
    parallel: [{ tp: 1 }, { tp: 4, allReduce: RING4, interconnect: "nvlink" }],
  },
  falsify: [],
}));

/** A vLLM-served sequence of the same checkpoint at TP 4, naming the ring likewise. */
const served = servedSection(["tables/models/qwen3-tiny-moe-tp"], {
  catalog: "demo-qwen3-tiny-tp-a100",
  parallel: [{ tp: 4, allReduce: RING4, interconnect: "nvlink" }],
});
const vllmServed = await proverRun(
  oneGemmScenario({ logId: "unmodelled-vllm-served", seed: "unmodelled-served-v1" }, {
    hardware: { profile: "a100", count: 4 },
    serving: {
      ...served.serving,
      stack: "vllm-0.11-eager-fa2-lg2-model",
      components: { vllm: "0.11.0" },
    },
    falsify: [],
  }),
);

/** The config with `decoder_sparse_step` -1 (Python's modulo reads it as 1; not modelled). */
const negativeStep: Edit = (p, into) => withConfig(p, into, setField("decoder_sparse_step", -1));

/** The vLLM record at `tp`, and the blobs it names. */
function vllmRecord(tp: number): [ClaimPredicate, Blobs] {
  const r = vllm.records.find((r) =>
    r.predicate.workload.kind === "model_forward" && r.predicate.parallelism.tp === tp
  );
  assert.ok(r !== undefined, `a vLLM record at tp=${tp}`);
  return [r.predicate, new Map(vllm.blobs)];
}

/** `length` tokens repeating `seq`'s. */
const repeated = (seq: readonly number[], length: number) =>
  Array.from({ length }, (_, i) => seq[i % seq.length]!);

Deno.test("a config of values vLLM builds but not modelled hides no contradiction with its stack: a pad token on a flattening stack, a prompt past max_model_len, a pass past every token budget or an all-reduce the dispatch does not take (model_forward; sequence: the all-reduce) FAILs as over the modelled config", async () => {
  const [one, into] = vllmRecord(1);
  const honest = await verifyAlone(await negativeStep(one, into), into);
  assert.equal(honest.status, "NOT_VERIFIED", honest.reason);
  assert.match(honest.reason, /^checkpoint: Cannot use config: decoder_sparse_step -1 /);
  /** The record's batch as `n` sequences of `length` tokens, fingerprinted at their last. */
  const batch = (n: number, length: number): Edit => (p) => {
    const w = p.workload as ModelForwardWorkload;
    const sequences = Array.from({ length: n }, () => repeated(w.tokens.sequences[0]!, length));
    return {
      ...p,
      batch: { ...p.batch, size: n },
      workload: {
        ...w,
        tokens: { sequences },
        positions: sequences.map((_, i) => [i, length - 1]),
      },
      fingerprint: { ...p.fingerprint, shape: [n, p.fingerprint.shape[1]!] },
    } as ClaimPredicate;
  };
  const lies: [string, Edit, RegExp][] = [
    [
      "a pad token on a stack that flattens the batch",
      withTokens((t) => ({ ...t, padTokenId: 0 })),
      /^record contradicts its stack: stack 'vllm-0\.11-eager-fa2' flattens the batch/,
    ],
    [
      "a prompt past max_model_len",
      batch(1, 4097),
      /^record contradicts its checkpoint: the 4097-token prompt is longer than vLLM's max_model_len 4096/,
    ],
    [
      "a pass past every token budget",
      batch(3, 3000),
      /^record contradicts its stack: pass 0 schedules 9000 tokens, more than vLLM's scheduler takes in one pass/,
    ],
  ];
  for (const [lie, edit, reason] of lies) {
    await assertSameFail(await edit(one, into), into, {
      reason,
      unmodelled: negativeStep,
      what: lie,
    });
  }
  const [four, blobs] = vllmRecord(4);
  await assertSameFail(four, blobs, {
    reason:
      /names all-reduce 'nccl-ring', but stack 'vllm-0\.11-eager-fa2' runs vllm-custom-1stage/,
    unmodelled: negativeStep,
    what: "an all-reduce the dispatch does not take",
  });
  const sequence = vllmServed.records.find((r) => r.predicate.workload.kind === "sequence");
  assert.ok(sequence !== undefined, "a served sequence");
  await assertSameFail(sequence.predicate, new Map(vllmServed.blobs), {
    reason: /names all-reduce 'nccl-ring', but stack 'vllm-0\.11-eager-fa2-lg2-model' runs vllm-/,
    unmodelled: negativeStep,
    what: "a served sequence: an all-reduce the dispatch does not take",
  });
});
