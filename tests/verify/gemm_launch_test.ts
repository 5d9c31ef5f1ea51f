/**
 * A GEMM record is one launch of `m` rows under its stack's operators: where vLLM's CUDA graphs
 * pad a pass to another row count, where the stack replays full graphs, or where its layer
 * kernels are not modelled, the record is NOT_VERIFIED (it PASSed on the GEMM alone); on eager
 * stacks it is recomputed as before.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  type ClaimPredicate,
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { referenceKWalker } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { loadGpuProfile } from "../../src/resolve/mod.ts";
import { type RecordResult, verifyRecord } from "../../src/verify/mod.ts";
import { oneGemmScenario } from "./_serving_fixture.ts";

const store = await openAssetStore();

/** The one GEMM record (q_proj, n 128, k 256, on `pytorch-cublas-linear`) of m rows, and blobs. */
async function gemmRecord(m: number): Promise<{ p: ClaimPredicate; blobs: BlobStore }> {
  const scenario = parseScenario(
    oneGemmScenario({ logId: "gemm-launch", seed: "gemm-launch-v1" }, {
      batchSizes: [m],
      falsify: [],
    }),
  );
  const out = await makeClaims(scenario, { store, walker: referenceKWalker });
  const blobs: BlobStore = {
    dir: "memory",
    get: (d) => Promise.resolve(out.blobs.get(d) ?? null),
  };
  return { p: out.records[0]!.predicate, blobs };
}

/** Verifies the record with its stack replaced, alone in a log. */
async function onStack(
  g: { p: ClaimPredicate; blobs: BlobStore },
  stack: string,
): Promise<RecordResult> {
  const record = makeClaimRecord({
    ...g.p,
    log: { logId: "gemm-launch", seq: 0, prev: GENESIS_PREV },
    software: { ...g.p.software, stack },
  });
  const log = parseClaimLog(formatClaimLog([record]));
  return await verifyRecord({ store, blobs: g.blobs, walker: referenceKWalker }, { log, index: 0 });
}

const three = await gemmRecord(3);
const four = await gemmRecord(4);

Deno.test("_checkGemmLaunch(): a GEMM record of 3 rows on piecewise CUDA graphs (launched at 4) is NOT_VERIFIED; one of 4 rows PASSes", async () => {
  const padded = await onStack(three, "vllm-0.11-custom-ops-piecewise-fa2");
  assert.equal(padded.status, "NOT_VERIFIED", padded.reason);
  assert.match(padded.reason, /at the 4 rows of its capture size, so its GEMMs launch at M=4/);
  assert.match(padded.reason, /a GEMM record states one launch of 3 rows/);
  const exact = await onStack(four, "vllm-0.11-custom-ops-piecewise-fa2");
  assert.equal(exact.status, "PASS", exact.reason);
});

Deno.test("_checkGemmLaunch(): a GEMM record on a full-graph stack or on Inductor layer kernels is NOT_VERIFIED whatever its rows", async () => {
  for (const g of [three, four]) {
    const full = await onStack(g, "vllm-0.11-custom-ops-fa2");
    assert.equal(full.status, "NOT_VERIFIED", full.reason);
    assert.match(full.reason, /replays a full CUDA graph .* FULL_AND_PIECEWISE/);
    const inductor = await onStack(g, "vllm-0.11-default-fa2");
    assert.equal(inductor.status, "NOT_VERIFIED", inductor.reason);
    assert.match(inductor.reason, /layer kernels 'vllm-inductor': .*Inductor-generated Triton/);
  }
});

Deno.test("_checkGemmLaunch(): GEMM records on eager stacks are recomputed as before; one on FA3's stack on an A100 FAILs (FlashAttention-3 needs sm_90: the stack never ran there, whatever the GEMM's bits)", async () => {
  for (
    const stack of [
      "pytorch-cublas-linear",
      "hf-qwen3-flash-attn-torch2.8",
      "vllm-0.11-eager-fa2",
    ]
  ) {
    const r = await onStack(three, stack);
    assert.equal(r.status, "PASS", `${stack}: ${r.reason}`);
  }
  const hopper = await onStack(three, "vllm-0.11-eager-fa3-hopper");
  assert.equal(hopper.status, "FAIL", hopper.reason);
  assert.match(
    hopper.reason,
    /contradicts its stack 'vllm-0\.11-eager-fa3-hopper': attention backend 'fa3-vllm' cannot run on sm_80: .*sm_90 only.*the record's GPU is sm_80/,
  );
});

Deno.test("A stack's attention backend outside its GPU range FAILs a GEMM record: FlashAttention-2 (Dao, PyTorch's, vLLM's) and cuDNN's on a V100, FlashAttention-3 on a B200", async () => {
  const onGpu = async (stack: string, gpu: string) => {
    const { sha256 } = await loadGpuProfile(store, gpu);
    const p = {
      ...three.p,
      hardware: { ...three.p.hardware, profile: gpu, profileSha256: sha256 },
    };
    return await onStack({ p, blobs: three.blobs }, stack);
  };
  for (
    const [stack, gpu, backend] of [
      ["hf-qwen3-flash-attn-torch2.8", "v100", "fa2-dao-fastmath"],
      ["vllm-0.11-eager-fa2", "v100", "fa2-vllm-paged"],
      ["cutlass-3.5-strict-ieee", "v100", "fa2-pytorch-bundled"],
      ["hf-qwen3-sdpa-torch2.11-hopper", "v100", "cudnn-sdpa"],
      ["vllm-0.11-eager-fa3-hopper", "b200", "fa3-vllm"],
      ["vllm-0.11-eager-fa3-hopper", "rtx-pro-6000-blackwell", "fa3-vllm"],
    ]
  ) {
    const r = await onGpu(stack!, gpu!);
    assert.equal(r.status, "FAIL", `${stack} on ${gpu}: ${r.reason}`);
    assert.match(r.reason, new RegExp(`attention backend '${backend}' cannot run on sm_`));
  }
  // A stack without attention kernels says nothing of the kind on the same GPU.
  const plain = await onGpu("pytorch-cublas-linear", "v100");
  assert.doesNotMatch(plain.reason, /attention backend/);
});
