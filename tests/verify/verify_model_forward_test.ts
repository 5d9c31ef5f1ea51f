/**
 * Model-forward records end to end: the simulated prover writes dense and MoE forward records
 * over the bundled checkpoints (one of each falsification kind), and the verifier recomputes every
 * one: honest records PASS, each falsification FAILs, with the first diverging layer and stage
 * where the record carries a layer chain.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore, openBlobStore } from "../../src/assets/mod.ts";
import {
  type ClaimRecord,
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  type ModelForwardWorkload,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { forwardSection, oneGemmScenario } from "./_serving_fixture.ts";

const store = await openAssetStore();
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

const scenario = parseScenario(oneGemmScenario({ logId: "forward-test", seed: "forward-test-v1" }, {
  forward: forwardSection(["tables/models/qwen3-tiny-dense", "tables/models/qwen3-tiny-moe"], {
    records: 8,
  }),
  falsify: [
    { seq: 2, kind: "batch_composition", extraLength: 24 },
    { seq: 7, kind: "sku", profile: "h100-sxm", catalog: "demo-qwen3-tiny-h100-sxm" },
    {
      seq: 4,
      kind: "weight_flip",
      tensor: "model.layers.0.mlp.down_proj.weight",
      index: 0,
      bit: 14,
    },
    { seq: 5, kind: "stack_version", catalog: "demo-qwen3-tiny-a100-cublas-older" },
    { seq: 6, kind: "fingerprint", bit: 3 },
  ],
}));
const out = await makeClaims(scenario, { store, walker, attention });
const blobs: BlobStore = { dir: "memory", get: (d) => Promise.resolve(out.blobs.get(d) ?? null) };
const ctx = { store, blobs, walker, attention };

Deno.test("model_forward records: honest ones PASS, every falsification FAILs with its divergence", async () => {
  const log = parseClaimLog(formatClaimLog(out.records));
  assert.equal(log.records.length, 9);
  const kinds = new Map(out.falsified.map((f) => [f.seq, f.kind]));
  for (let i = 1; i < log.records.length; i++) {
    const w = log.records[i]!.predicate.workload as ModelForwardWorkload;
    assert.equal(w.kind, "model_forward");
    assert.equal(w.model.type, i % 2 === 1 ? "qwen3" : "qwen3_moe");
    const r = await verifyRecord(ctx, { log, index: i });
    const kind = kinds.get(i);
    if (kind === undefined) {
      assert.equal(r.status, "PASS", `${i}: ${r.reason}`);
      continue;
    }
    assert.equal(r.status, "FAIL", `${i} ${kind}: ${r.reason}`);
    if (kind === "fingerprint") assert.equal(r.firstDivergence, undefined);
    else {
      assert.ok(r.firstDivergence !== undefined, `${kind} names no divergence`);
      assert.equal(r.firstDivergence.layers, 2, "the tiny checkpoints' layer count");
      assert.match(r.reason, /first diverging stage: layer \d (attention|mlp)/);
    }
  }
});

function alone(record: ClaimRecord, patch: (p: Record<string, unknown>) => void) {
  const p = structuredClone(record.predicate) as unknown as Record<string, unknown>;
  p.log = { logId: "x", seq: 0, prev: GENESIS_PREV };
  patch(p);
  return parseClaimLog(formatClaimLog([makeClaimRecord(p as never)]));
}

Deno.test("model_forward records: a TP split the layout cannot make FAILs, expert parallelism is NOT_VERIFIED, a wrong batch size FAILs, so do withheld blobs", async () => {
  const honest = out.records[1]!;
  const tp = await verifyRecord(ctx, {
    log: alone(honest, (p) => {
      p.parallelism = { tp: 2, pp: 1, ep: 1, dp: 1 };
      p.hardware = { ...(p.hardware as Record<string, unknown>), count: 2 };
    }),
    index: 0,
  });
  // The tiny dense checkpoint has one KV head of 128, which the HF tp_plan cannot split over 2
  // ranks (each rank's k_proj block is half a head, which its attention cannot view as heads): no
  // such run happened.
  assert.equal(tp.status, "FAIL", tp.reason);
  assert.match(
    tp.reason,
    /^record contradicts its checkpoint: layout 'hf-tp-plan' cannot split 1 KV heads over 2 ranks/,
  );
  const ep = await verifyRecord(ctx, {
    log: alone(honest, (p) => p.parallelism = { tp: 1, pp: 1, ep: 2, dp: 1 }),
    index: 0,
  });
  assert.equal(ep.status, "NOT_VERIFIED");
  assert.match(ep.reason, /ep=2/);
  // Pipeline stages change no bits. HF Transformers places modules (device_map), not stages of
  // whole layers, so more stages than layers contradict nothing there: recomputed, and the
  // result says what the stages rest on (vLLM refuses such a split: verify_vllm_test).
  const stages = await verifyRecord(ctx, {
    log: alone(honest, (p) => {
      p.parallelism = { tp: 1, pp: 3, ep: 1, dp: 1 };
      p.hardware = { ...(p.hardware as Record<string, unknown>), count: 3 };
    }),
    index: 0,
  });
  assert.equal(stages.status, "PASS", stages.reason);
  assert.deepEqual(
    stages.evidence!.find((e) => e.component.startsWith("pipeline")),
    { component: "pipeline parallelism pp=3 (stage copies)", level: "derived-from-source" },
  );
  const size = (honest.predicate.batch.size) + 1;
  const bad = await verifyRecord(ctx, { log: alone(honest, (p) => p.batch = { size }), index: 0 });
  assert.equal(bad.status, "FAIL");
  assert.match(bad.reason, /contradicts itself/);
  // Issue 25, item 3: what a record commits to by digest is the prover's to produce, for an
  // honest record as for a falsified one.
  const missing: BlobStore = { dir: "none", get: () => Promise.resolve(null) };
  const withheld = await verifyRecord({ ...ctx, blobs: missing }, {
    log: alone(honest, () => {}),
    index: 0,
  });
  assert.equal(withheld.status, "FAIL");
  assert.equal(withheld.obligation, "committed-input");
  assert.match(withheld.reason, /checkpoint file config\.json .* is missing from the blob store/);
});

Deno.test("model_forward records: a weight file the prover corrupted or deleted FAILs as a broken commitment (opened or read whole); the audit goes on", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-ckpt-blobs-" });
  for (const [d, bytes] of out.blobs) await Deno.writeFile(`${dir}/${d}`, bytes);
  const log = parseClaimLog(formatClaimLog(out.records));
  const honest = log.records[1]!.predicate.workload as ModelForwardWorkload;
  const weights = Object.values(honest.model.files)[0]!;
  const path = `${dir}/${weights}`;
  const original = await Deno.readFile(path);
  const flipped = original.slice();
  flipped[flipped.length - 1] = flipped[flipped.length - 1]! ^ 1; // one bit of the last weight
  await Deno.writeFile(path, flipped);
  const opened = openBlobStore(dir);
  const whole: BlobStore = { dir, get: (d) => opened.get(d) }; // a store without `open`
  for (const store of [opened, whole]) {
    const r = await verifyRecord({ ...ctx, blobs: store }, { log, index: 1 });
    assert.equal(r.status, "FAIL", r.reason);
    assert.equal(r.obligation, "committed-input");
    assert.match(r.reason, /checkpoint file .* does not hash to its committed digest/);
  }
  await Deno.remove(path);
  const missing = await verifyRecord({ ...ctx, blobs: opened }, { log, index: 1 });
  assert.equal(missing.status, "FAIL"); // issue 25, item 3 (it was NOT_VERIFIED)
  assert.equal(missing.obligation, "committed-input");
  assert.match(missing.reason, /checkpoint file .* is missing from the blob store/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("model_forward records: a fingerprint that leaves out a sequence's last token FAILs when it differs and is NOT_VERIFIED when it matches, never PASS", async () => {
  const honest = out.records[1]!;
  const w = honest.predicate.workload as ModelForwardWorkload;
  const first = (p: Record<string, unknown>, sha256: string) => {
    const fp = p.fingerprint as { shape: number[] };
    p.workload = { ...(p.workload as object), positions: [[0, 0]], layerChain: undefined };
    p.fingerprint = { ...fp, shape: [1, fp.shape[1]], sha256 };
  };
  const wrong = await verifyRecord(ctx, {
    log: alone(honest, (p) => first(p, "ab".repeat(32))),
    index: 0,
  });
  assert.equal(wrong.status, "FAIL", wrong.reason);
  // The row the verifier recomputed at [0, 0], claimed as the fingerprint: a bit-exact match that
  // binds none of the tokens after position 0.
  const right = await verifyRecord(ctx, {
    log: alone(honest, (p) => first(p, wrong.recomputed!)),
    index: 0,
  });
  assert.equal(right.status, "NOT_VERIFIED", right.reason);
  assert.match(
    right.reason,
    new RegExp(
      `matches the fingerprint, but the fingerprint leaves out the last token of sequence 0 \\(position ${
        w.tokens.sequences[0]!.length - 1
      }\\)`,
    ),
  );
});
