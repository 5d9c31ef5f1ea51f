/**
 * `parseClaimedAllReduce()` on `vllm-dispatch`: the kind alone, or with one NCCL description of
 * the group's size; anything else inside is refused by name, and no message is planned before its
 * path is resolved.
 */
import assert from "node:assert/strict";
import { messageAllReducePlan, parseClaimedAllReduce } from "../../../src/kernels/mod.ts";

const ring = { kind: "nccl-ring", protocol: "simple", chunkBytes: 2097152, rings: [[0, 1, 2, 3]] };

Deno.test("parseClaimedAllReduce() reads vllm-dispatch with and without NCCL settings", () => {
  assert.deepEqual(parseClaimedAllReduce({ kind: "vllm-dispatch" }, 4), { kind: "vllm-dispatch" });
  assert.deepEqual(parseClaimedAllReduce({ kind: "vllm-dispatch", nccl: ring }, 4), {
    kind: "vllm-dispatch",
    nccl: ring,
  });
  const refused: [unknown, RegExp][] = [
    [{ kind: "vllm-dispatch", nccl: { kind: "vllm-custom-1stage" } }, /nccl-ring or nccl-tree/],
    [{ kind: "vllm-dispatch", nccl: { kind: "vllm-dispatch" } }, /nccl-ring or nccl-tree/],
    [{ kind: "vllm-dispatch", nccl: { ...ring, rings: [[0, 1]] } }, /ranks|permutation/],
    [{ kind: "vllm-dispatch", protocol: "simple" }, /unknown field 'protocol'/],
    [{ ...ring, nccl: ring }, /unknown field 'nccl'/],
  ];
  for (const [value, message] of refused) {
    assert.throws(() => parseClaimedAllReduce(value, 4), message, JSON.stringify(value));
  }
  assert.throws(
    () => messageAllReducePlan({ kind: "vllm-dispatch" }, { worldSize: 4, count: 8 }),
    /resolve each message's path first/,
  );
});
