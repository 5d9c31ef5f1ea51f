import assert from "node:assert/strict";
import { parseSequenceWorkload } from "../../src/claims/sequence_workload.ts";
import { digestOfFiles } from "../../src/model/mod.ts";

const H = "ab".repeat(32);
const files = { "model.safetensors": H };
const workload = {
  kind: "sequence",
  model: { type: "qwen3", checkpointSha256: digestOfFiles(files), configSha256: H, files },
  kernel: { recipe: { family: "single_walk" } },
  attention: { multiProcessorCount: 108 },
  history: { sha256: H, passes: 3 },
  tokens: { prompt: [1, 2, 3], generated: [4, 5] },
  decoding: "greedy",
  positions: [3, 1],
};
const bad = (path: string, why: string): never => {
  throw new RangeError(`${path} ${why}`);
};

Deno.test("parseSequenceWorkload() keeps distinct positions in the prover's order", () => {
  assert.deepEqual(parseSequenceWorkload(workload, { bad }).positions, [3, 1]);
});

Deno.test("parseSequenceWorkload() refuses a position fingerprinted twice", () => {
  // Regression: a repeated position sized the fingerprint by the list (positions x hidden).
  for (const positions of [[3, 3], [0, 1, 2, 3, 1]]) {
    assert.throws(
      () => parseSequenceWorkload({ ...workload, positions }, { bad }),
      (e) => e instanceof RangeError && /^\S+positions\[\d\] repeats position \d$/.test(e.message),
    );
  }
});
