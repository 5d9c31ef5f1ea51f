import assert from "node:assert/strict";
import { InputError } from "../../src/errors.ts";
import {
  formatClaimLog,
  GENESIS_PREV,
  isModelForwardWorkload,
  makeClaimRecord,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { digestOfFiles } from "../../src/model/mod.ts";

const H = "ab".repeat(32);
const files = { "model.safetensors": H };
const workload = {
  kind: "model_forward",
  model: { type: "qwen3", checkpointSha256: digestOfFiles(files), configSha256: H, files },
  tokens: { sequences: [[1, 2, 3], [4]], padTokenId: 0 },
  kernel: { recipe: { family: "single_walk" } },
  attention: { multiProcessorCount: 108 },
  positions: [[0, 2], [1, 0]],
  layerChain: [{ attention: H, mlp: H }],
};

function log(w: unknown): string {
  return formatClaimLog([makeClaimRecord({
    log: { logId: "t", seq: 0, prev: GENESIS_PREV },
    hardware: { profile: "a100", profileSha256: H, count: 1 },
    software: { stack: "s", components: {} },
    parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
    batch: { size: 2 },
    workload: w as never,
    fingerprint: { tensor: "model.norm.out", dtype: "bf16", shape: [2, 256], sha256: H },
  })]);
}

Deno.test("parseClaimLog() reads a model_forward workload and keeps its fields", () => {
  const w = parseClaimLog(log(workload)).records[0]!.predicate.workload;
  assert.ok(isModelForwardWorkload(w));
  assert.deepEqual(w.tokens.sequences, [[1, 2, 3], [4]]);
  assert.deepEqual(w.positions, [[0, 2], [1, 0]]);
  assert.equal(w.layerChain?.length, 1);
});

Deno.test("parseClaimLog() refuses malformed model_forward workloads by field", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ model: { ...workload.model, type: "gemma" } }, /model\.type/],
    [{ tokens: { sequences: [] } }, /tokens\.sequences/],
    [{ tokens: { sequences: [[1, -1]] } }, /sequences\[0\]\[1\]/],
    [{ positions: [[0, 3]] }, /positions\[0\]/],
    [{ positions: [[2, 0]] }, /positions\[0\]/],
    [{ layerChain: [{ attention: "x", mlp: H }] }, /layerChain\[0\]\.attention/],
    [{ model: { ...workload.model, files: { "../x": H } } }, /model\.files/],
    [{ extra: 1 }, /workload\.extra/],
  ];
  for (const [patch, path] of cases) {
    assert.throws(() => parseClaimLog(log({ ...workload, ...patch })), (e: unknown) => {
      assert.ok(e instanceof InputError && e.code === "CLAIM_INVALID", String(e));
      assert.match((e as Error).message, path);
      return true;
    });
  }
});

Deno.test("parseClaimLog() refuses a model_forward row fingerprinted twice", () => {
  // Regression: [0, 1] listed 32,768 times on a 2-token batch sized the fingerprint by the list
  // (positions x hidden: 8.7 GB on a hidden-65536 model) and audited PASS after 334 s.
  for (const positions of [[[0, 2], [0, 2]], [[0, 2], [1, 0], [0, 1], [1, 0]]]) {
    assert.throws(() => parseClaimLog(log({ ...workload, positions })), (e: unknown) => {
      assert.ok(e instanceof InputError && e.code === "CLAIM_INVALID", String(e));
      assert.match((e as Error).message, /positions\[\d\]' repeats the row \[\d, \d\]/);
      return true;
    });
  }
  // Any order of distinct rows is the prover's (the rows are hashed in that order).
  const w = parseClaimLog(log({ ...workload, positions: [[1, 0], [0, 2], [0, 0]] })).records[0]!
    .predicate.workload;
  assert.ok(isModelForwardWorkload(w));
  assert.deepEqual(w.positions, [[1, 0], [0, 2], [0, 0]]);
});
