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
 */
import assert from "node:assert/strict";
import type { ClaimPredicate, ModelForwardWorkload } from "../../src/claims/mod.ts";
import { digestOfFiles } from "../../src/model/mod.ts";
import { servingScenario } from "../verify/_serving_fixture.ts";
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
  ["pp=4096 over two layers", parallel(1, 4096), /pp=4096 pipeline stages for 2 layer\(s\)/],
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
  assert.match(modelled.reason, o.reason, o.what);
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
