/**
 * Hostile `parallelism` fields of a claim record (interconnect, vllm-dispatch and its nested NCCL
 * settings): the strict parser refuses malformed ones with CLAIM_INVALID naming the field, and the
 * verifier answers every well-formed but contradicting one with FAIL, never a NOT_VERIFIED that
 * would hide a false fingerprint and never an exception.
 */
import assert from "node:assert/strict";
import {
  type ClaimPredicate,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimRecord,
} from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { openAssetStore } from "../../src/assets/mod.ts";
import { loadAsset, loadGpuProfile, STACK_PROFILES } from "../../src/resolve/mod.ts";
import { _claimedParallel } from "../../src/verify/_claimed_parallel.ts";
import { _Stop } from "../../src/verify/_stop.ts";

const RING4 = { kind: "nccl-ring", protocol: "simple", chunkBytes: 2097152, rings: [[0, 1, 2, 3]] };

function record(parallelism: Record<string, unknown>): unknown {
  const r = makeClaimRecord({
    log: { logId: "hostile", seq: 0, prev: GENESIS_PREV },
    hardware: { profile: "a100", profileSha256: "ab".repeat(32), count: 8 },
    software: { stack: "vllm-0.11-eager-fa2", components: {} },
    parallelism: { tp: 4, pp: 1, ep: 1, dp: 1 },
    batch: { size: 1 },
    workload: { kind: "future", tokens: [1] },
    fingerprint: { tensor: "y", dtype: "bf16", shape: [1, 8], sha256: "cd".repeat(32) },
  });
  const json = JSON.parse(JSON.stringify(r));
  json.predicate.parallelism = { tp: 4, pp: 1, ep: 1, dp: 1, ...parallelism };
  return json;
}

Deno.test("malformed interconnect and vllm-dispatch fields are CLAIM_INVALID naming the field", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ tp: 1, interconnect: "pcie" }, /interconnect/],
    [{ interconnect: "PCIe\u001b[31m" }, /interconnect/],
    [{ interconnect: "x".repeat(65) }, /interconnect/],
    [{ interconnect: 7 }, /interconnect/],
    [{ allReduce: { kind: "vllm-dispatch", nccl: { ...RING4, nccl: RING4 } } }, /nccl/],
    [{ allReduce: { kind: "vllm-dispatch", nccl: [RING4] } }, /nccl/],
    [
      { allReduce: { kind: "vllm-dispatch", nccl: { ...RING4, rings: [[0, 1], [2, 3]] } } },
      /rings/,
    ],
    [
      { allReduce: { kind: "vllm-dispatch", nccl: { ...RING4, rings: [Array(5000).fill(0)] } } },
      /rings/,
    ],
    [{ allReduce: { kind: "vllm-dispatch", extra: 1 } }, /extra/],
  ];
  for (const [parallelism, field] of cases) {
    assert.throws(
      () => parseClaimRecord(record(parallelism), "line 1"),
      (e) => e instanceof InputError && e.code === "CLAIM_INVALID" && field.test(e.message),
      JSON.stringify(parallelism).slice(0, 80),
    );
  }
});

Deno.test("well-formed but contradicting dispatch statements FAIL before anything is computed", async () => {
  const store = await openAssetStore();
  const stack = async (id: string) => (await loadAsset(store, { kind: STACK_PROFILES, id })).value;
  const vllm = await stack("vllm-0.11-eager-fa2");
  const hf = await stack("hf-qwen3-flash-attn-torch2.8");
  const { profile } = await loadGpuProfile(store, "a100");
  const verdict = (parallelism: Record<string, unknown>, s = vllm) => {
    const p = (parseClaimRecord(record(parallelism), "line 1") as { predicate: ClaimPredicate })
      .predicate;
    try {
      _claimedParallel(p, s, profile);
    } catch (e) {
      if (e instanceof _Stop) return `${e.status}: ${e.why}`;
      throw e;
    }
    return "resolved";
  };
  const dispatch = { kind: "vllm-dispatch" };
  assert.equal(verdict({ allReduce: dispatch }), "resolved");
  assert.equal(
    verdict({ allReduce: { ...dispatch, nccl: RING4 }, interconnect: "pcie" }),
    "resolved",
  );
  assert.match(verdict({ allReduce: dispatch, interconnect: "infiniband" }), /^FAIL: .*infiniband/);
  assert.match(verdict({ allReduce: dispatch }, hf), /^FAIL: .*does not run vLLM's all-reduce/);
  assert.match(
    verdict({ allReduce: { ...dispatch, nccl: { kind: "vllm-custom-1stage" } } }),
    /^FAIL: record's all-reduce is invalid/,
  );
  assert.match(
    verdict({ allReduce: { ...dispatch, nccl: { ...RING4, rings: [[0, 1, 1, 3]] } } }),
    /^FAIL: record's all-reduce is invalid/,
  );
});
