/**
 * vLLM's all-reduce dispatch reads how the GPUs are linked, and the GPU profile's `links` (from
 * the part's data sheet) decide what a record may state and what is assumed where it states
 * nothing: an L40S has no NVLink, so at four ranks vLLM's custom all-reduce does not start
 * (vLLM's custom_all_reduce.py: "not supported on more than two PCIe-only GPUs") and NCCL runs;
 * an H100 NVL links two cards by a bridge; an H100 SXM sits on an NVSwitch board, where the
 * stack's NVLink setup holds. The records run the tiny TP checkpoint through a copy of its demo
 * catalog relabelled for each GPU (scenario data, as the catalog itself is).
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  type ClaimPredicate,
  type ClaimRecord,
  formatClaimLog,
  makeClaimRecord,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { catalogCopyRoot } from "../_catalog_copy.ts";
import { forwardSection, oneGemmScenario } from "./_serving_fixture.ts";

/** The GPUs of these tests, with their SM counts. */
const GPUS = { "l40s": 142, "h100-sxm": 132, "h100-nvl": 132 } as const;
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });
const CUSTOM = { kind: "vllm-custom-1stage" };
const RING4 = { kind: "nccl-ring", protocol: "simple", chunkBytes: 2097152, rings: [[0, 1, 2, 3]] };

/**
 * An asset store with the tiny TP catalog and the scenario GEMM's catalog copied for `gpu` (its
 * root removed on dispose): a scenario's records may not name a catalog of another GPU.
 */
async function storeFor(gpu: keyof typeof GPUS) {
  const root = await catalogCopyRoot([
    { from: "demo-qwen3-tiny-tp-a100", id: `demo-qwen3-tiny-tp-${gpu}`, gpu },
    { from: "demo-small-transformer-a100", id: `links-gemm-${gpu}`, gpu },
  ]);
  return {
    store: await openAssetStore(root),
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

/**
 * One honest vLLM forward record per topology, on `gpu`, and a verifier of restated records
 * (its asset root removed on dispose).
 */
async function recordsOn(gpu: keyof typeof GPUS, parallel: readonly unknown[]) {
  const assets = await storeFor(gpu);
  const store = assets.store;
  const sc = parseScenario(oneGemmScenario({ logId: `links-${gpu}`, seed: "links-v1" }, {
    hardware: { profile: gpu, count: 4 },
    catalog: `links-gemm-${gpu}`,
    forward: {
      ...forwardSection(["tables/models/qwen3-tiny-tp"], {
        records: parallel.length,
        catalog: `demo-qwen3-tiny-tp-${gpu}`,
      }),
      multiProcessorCount: GPUS[gpu],
      stack: "vllm-0.11-eager-fa2",
      components: { vllm: "0.11.0", env: "VLLM_FLASH_ATTN_VERSION=2" },
      parallel,
    },
    falsify: [],
  }));
  const made = await makeClaims(sc, { store, walker, attention });
  const blobs: BlobStore = {
    dir: "memory",
    get: (d) => Promise.resolve(made.blobs.get(d) ?? null),
  };
  /** Verifies record `index`, restated (it becomes the last link of the chain). */
  const verify = async (index: number, over: Partial<ClaimPredicate> = {}) => {
    const p = made.records[index]!.predicate;
    const records: ClaimRecord[] = [
      ...made.records.slice(0, index),
      makeClaimRecord({ ...p, ...over }),
    ];
    const log = parseClaimLog(formatClaimLog(records));
    return await verifyRecord({ store, blobs, walker, attention }, { log, index });
  };
  const predicate = (index: number) => made.records[index]!.predicate;
  return { verify, predicate, [Symbol.asyncDispose]: assets[Symbol.asyncDispose] };
}

Deno.test("L40S (no NVLink) at TP 4: a record naming vLLM's custom all-reduce FAILs, as vLLM runs NCCL on more than two PCIe-only GPUs; NCCL PASSes", async () => {
  await using r = await recordsOn("l40s", [{ tp: 4, allReduce: CUSTOM }, {
    tp: 4,
    allReduce: RING4,
  }]);
  const custom = await r.verify(1);
  assert.equal(custom.status, "FAIL", custom.reason);
  assert.match(
    custom.reason,
    /names all-reduce 'vllm-custom-1stage', but stack 'vllm-0\.11-eager-fa2' runs nccl .* on any links 'l40s' GPUs can have \(pcie-p2p, pcie: NVIDIA L40S has no NVLink/,
  );
  assert.ok(!custom.steps.some((s) => s.step === "recompute"), "said before any recomputation");
  const ring = await r.verify(2);
  assert.equal(ring.status, "PASS", ring.reason);
});

Deno.test("L40S records stating NVLink links FAIL as contradicting their hardware, naming the part and its data sheet", async () => {
  // The custom all-reduce on NVLink would be the dispatch's path: only the part's links rule it
  // out.
  await using r = await recordsOn("l40s", [{ tp: 4, allReduce: CUSTOM }, {
    tp: 4,
    allReduce: RING4,
  }]);
  const p = r.predicate(1);
  for (const interconnect of ["nvswitch", "nvlink"]) {
    const stated = await r.verify(1, { parallelism: { ...p.parallelism, interconnect } });
    assert.equal(stated.status, "FAIL", stated.reason);
    assert.equal(stated.finding, "contradiction");
    assert.match(
      stated.reason,
      new RegExp(
        `^record contradicts its hardware: interconnect '${interconnect}' on 4 'l40s' GPUs, ` +
          "but NVIDIA L40S has no NVLink.*\\(NVIDIA L40S GPU datasheet: NVLink support: no",
      ),
    );
  }
  const q = r.predicate(2);
  const pcie = await r.verify(2, { parallelism: { ...q.parallelism, interconnect: "pcie" } });
  assert.equal(pcie.status, "PASS", pcie.reason);
});

Deno.test("L40S at TP 2: whether the custom all-reduce starts depends on P2P over PCIe, which the record must state; a wrong fingerprint still FAILs", async () => {
  await using r = await recordsOn("l40s", [{ tp: 2, allReduce: CUSTOM }]);
  const open = await r.verify(1);
  assert.equal(open.status, "NOT_VERIFIED", open.reason);
  assert.match(
    open.reason,
    /^recomputed output matches the fingerprint, but record names all-reduce 'vllm-custom-1stage' and no interconnect: .*\(vllm-custom-1stage on pcie-p2p; nccl on pcie; NVIDIA L40S has no NVLink \(PCIe only\)\); state the interconnect$/,
  );
  const p = r.predicate(1);
  const p2p = await r.verify(1, { parallelism: { ...p.parallelism, interconnect: "pcie-p2p" } });
  assert.equal(p2p.status, "PASS", p2p.reason);
  const noP2p = await r.verify(1, { parallelism: { ...p.parallelism, interconnect: "pcie" } });
  assert.equal(noP2p.status, "FAIL", noP2p.reason);
  const wrong = await r.verify(1, { fingerprint: { ...p.fingerprint, sha256: "0".repeat(64) } });
  assert.equal(wrong.status, "FAIL", wrong.reason);
  assert.equal(wrong.finding, "fingerprint");
});

Deno.test("H100 SXM (NVSwitch board) at TP 4: the stack's NVLink setup holds, the custom all-reduce PASSes as before", async () => {
  await using r = await recordsOn("h100-sxm", [{ tp: 4, allReduce: CUSTOM }, {
    tp: 4,
    allReduce: RING4,
  }]);
  const custom = await r.verify(1);
  assert.equal(custom.status, "PASS", custom.reason);
  const ring = await r.verify(2);
  assert.equal(ring.status, "FAIL", ring.reason);
  assert.match(ring.reason, /runs vllm-custom-1stage .* as stack 'vllm-0\.11-eager-fa2' states/);
});

Deno.test("H100 NVL (NVLink bridge joining two cards): a bridged pair at TP 2 takes the stack's setup as before; four ranks are not all NVLink-connected", async () => {
  await using r = await recordsOn("h100-nvl", [{ tp: 2, allReduce: CUSTOM }, {
    tp: 4,
    allReduce: CUSTOM,
  }]);
  const pair = await r.verify(1);
  assert.equal(pair.status, "PASS", pair.reason);
  const four = await r.verify(2);
  assert.equal(four.status, "FAIL", four.reason);
  assert.match(four.reason, /runs nccl .* on any links 'h100-nvl' GPUs can have \(pcie-p2p, pcie/);
  const p = r.predicate(2);
  const stated: readonly (readonly [string, RegExp])[] = [
    ["nvlink", /joins at most two cards/],
    ["nvswitch", /has no NVSwitch/],
  ];
  for (const [interconnect, why] of stated) {
    const r2 = await r.verify(2, { parallelism: { ...p.parallelism, interconnect } });
    assert.equal(r2.status, "FAIL", r2.reason);
    assert.match(r2.reason, /^record contradicts its hardware: .*NVIDIA H100 NVL/);
    assert.match(r2.reason, why);
  }
});

Deno.test("the scenario prover refuses links its GPU cannot have", async () => {
  await using assets = await storeFor("l40s");
  const store = assets.store;
  // Checked when a record runs: the scenario itself names no GPU part's facts.
  const sc = parseScenario(oneGemmScenario({ logId: "links-bad", seed: "links-v1" }, {
    hardware: { profile: "l40s", count: 4 },
    catalog: "links-gemm-l40s",
    forward: {
      ...forwardSection(["tables/models/qwen3-tiny-tp"], {
        records: 1,
        catalog: "demo-qwen3-tiny-tp-l40s",
      }),
      multiProcessorCount: 142,
      stack: "vllm-0.11-eager-fa2",
      components: { vllm: "0.11.0" },
      parallel: [{ tp: 4, allReduce: RING4, interconnect: "nvswitch" }],
    },
    falsify: [],
  }));
  await assert.rejects(
    () => makeClaims(sc, { store, walker, attention }),
    (e: Error & { code?: string }) => {
      assert.equal(e.code, "SCENARIO_INVALID", e.message);
      assert.match(e.message, /NVIDIA L40S has no NVLink/);
      return true;
    },
  );
});
