/**
 * Model-forward records of the new decoder families end to end: the simulated prover writes
 * forward records over the bundled Llama 3 (tied embeddings, llama3 RoPE scaling) and Mistral
 * (sharded, untied) checkpoints on the demo's HF stack and catalog, with falsifications; the
 * verifier recomputes every one: honest records PASS, each falsification FAILs.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import { formatClaimLog, parseClaimLog } from "../../src/claims/mod.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import {
  assertVerdicts,
  forwardSection,
  oneGemmScenario,
  servedSection,
} from "./_serving_fixture.ts";

const store = await openAssetStore();
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

const scenario = parseScenario(oneGemmScenario({ logId: "families-test", seed: "families-v1" }, {
  forward: forwardSection(["tables/models/llama3-tiny", "tables/models/mistral-tiny"], {
    records: 6,
  }),
  falsify: [
    {
      seq: 2,
      kind: "weight_flip",
      tensor: "model.layers.0.mlp.down_proj.weight",
      index: 0,
      bit: 14,
    },
    { seq: 4, kind: "fingerprint", bit: 3 },
    { seq: 5, kind: "batch_composition", extraLength: 24 },
  ],
}));
const out = await makeClaims(scenario, { store, walker, attention });
const blobs: BlobStore = { dir: "memory", get: (d) => Promise.resolve(out.blobs.get(d) ?? null) };
const log = parseClaimLog(formatClaimLog(out.records));

Deno.test("forward records of Llama 3 and Mistral checkpoints: honest PASS, falsified FAIL", async () => {
  const types = new Set<string>();
  const falsified = new Set(out.falsified.map((f) => f.seq));
  for (let index = 1; index < log.records.length; index++) {
    const w = log.records[index]!.predicate.workload as { kind: string; model?: { type: string } };
    assert.equal(w.kind, "model_forward");
    types.add(w.model!.type);
    const r = await verifyRecord({ store, blobs, walker, attention }, { log, index });
    assert.equal(r.status, falsified.has(index) ? "FAIL" : "PASS", `${index}: ${r.reason}`);
  }
  assert.deepEqual([...types].sort(), ["llama", "mistral"]);
});

Deno.test("sequence records of Llama 3 and Mistral checkpoints served with continuous batching: honest PASS, falsified FAIL", async () => {
  const serving = parseScenario(oneGemmScenario(
    { logId: "families-serving", seed: "fs-v1" },
    servedSection(["tables/models/llama3-tiny", "tables/models/mistral-tiny"]),
  ));
  const made = await makeClaims(serving, { store, walker, attention });
  assert.equal(made.falsified.length, 2);
  const types = new Set<string>();
  for (const p of await assertVerdicts(made, { store, walker, attention })) {
    const w = p.workload as { kind: string; model?: { type: string } };
    assert.equal(w.kind, "sequence");
    types.add(w.model!.type);
  }
  assert.deepEqual([...types].sort(), ["llama", "mistral"]);
});

Deno.test("forward records of the bundled Qwen2.5 checkpoint (q/k/v biases through the catalog's bias entries): honest PASS, falsified FAIL", async () => {
  const q = parseScenario(oneGemmScenario({ logId: "families-qwen2", seed: "fq-v1" }, {
    forward: forwardSection(["tables/models/qwen2-tiny"], {
      records: 4,
      catalog: "demo-qwen2-tiny-a100",
      lengths: [3, 6, 20],
    }),
    falsify: [
      {
        seq: 2,
        kind: "weight_flip",
        tensor: "model.layers.1.self_attn.k_proj.bias",
        index: 3,
        bit: 9,
      },
      { seq: 4, kind: "fingerprint", bit: 1 },
    ],
  }));
  const made = await makeClaims(q, { store, walker, attention });
  const qb: BlobStore = { dir: "memory", get: (d) => Promise.resolve(made.blobs.get(d) ?? null) };
  const qlog = parseClaimLog(formatClaimLog(made.records));
  const falsified = new Set(made.falsified.map((f) => f.seq));
  for (let index = 1; index < qlog.records.length; index++) {
    const r = await verifyRecord({ store, blobs: qb, walker, attention }, { log: qlog, index });
    assert.equal(r.status, falsified.has(index) ? "FAIL" : "PASS", `${index}: ${r.reason}`);
  }
});
