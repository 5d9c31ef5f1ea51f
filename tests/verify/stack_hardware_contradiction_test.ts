/**
 * A record whose stack cannot run on its GPU contradicts itself: its stack's kernels built for a
 * later architecture (CUTLASS pinned at `nvcc -arch=sm_80`) on a V100 FAIL, however honest the
 * bits; where the build loads (SASS on sm_8x, PTX JIT-compiled on later GPUs) nothing changes.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore, sha256Hex } from "../../src/assets/mod.ts";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { parseStackProfile, referenceKWalker } from "../../src/kernels/mod.ts";
import { loadGpuProfile } from "../../src/resolve/mod.ts";
import { stackHardwareContradiction, verifyRecord } from "../../src/verify/mod.ts";

const store = await openAssetStore();
const bytes = new Map<string, Uint8Array>();
const blobs: BlobStore = { dir: "memory", get: (d) => Promise.resolve(bytes.get(d) ?? null) };

/** Small normal fp16 values (exponents 13 to 16), from a linear congruential sequence. */
function tensor(count: number, seed: number): string {
  const a = new Uint16Array(count);
  let s = seed;
  for (let i = 0; i < count; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    a[i] = (((s >>> 20) & 1) << 15) | ((13 + ((s >>> 16) & 3)) << 10) | (((s >>> 8) & 0x3f) << 4);
  }
  const b = new Uint8Array(a.buffer);
  const d = sha256Hex(b);
  bytes.set(d, b);
  return d;
}

const WEIGHTS = tensor(16 * 64, 7);
const INPUT = tensor(4 * 64, 3);

/**
 * A GEMM record on the stack `cutlass-3.5-default` (nvcc `-arch=sm_80`), fingerprinted with the
 * verifier's own recomputation (as an honest prover running the emulator would), verified.
 */
async function cutlassGemm(gpu: string) {
  const { sha256 } = await loadGpuProfile(store, gpu);
  const predicate = (fingerprint: string) => ({
    log: { logId: "arch", seq: 0, prev: GENESIS_PREV },
    hardware: { profile: gpu, profileSha256: sha256, count: 1 },
    software: { stack: "cutlass-3.5-default", components: {} },
    parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
    batch: { size: 4 },
    workload: {
      kind: "gemm",
      m: 4,
      n: 16,
      k: 64,
      dtype: "fp16",
      out: "fp16",
      layout: "tn",
      kernel: { recipe: { schema: "bitaudit.gemm-recipe/v1", name: "s", family: "single_walk" } },
      weights: { sha256: WEIGHTS, shape: [16, 64] },
      input: { sha256: INPUT, shape: [4, 64] },
    },
    fingerprint: {
      tensor: "layers.0.q_proj.out",
      dtype: "fp16",
      shape: [4, 16],
      sha256: fingerprint,
    },
  });
  const ctx = { store, blobs, walker: referenceKWalker };
  const verify = (fingerprint: string) =>
    verifyRecord(ctx, {
      log: parseClaimLog(formatClaimLog([makeClaimRecord(predicate(fingerprint) as never)])),
      index: 0,
    });
  const first = await verify("ab".repeat(32));
  return first.finding === "fingerprint" && first.recomputed !== null
    ? await verify(first.recomputed)
    : first;
}

Deno.test("verifyRecord(): a GEMM record on stack cutlass-3.5-default (nvcc -arch=sm_80) FAILs on a V100, whose sm_70 loads neither its SASS nor its PTX", async () => {
  const r = await cutlassGemm("v100");
  assert.equal(r.status, "FAIL", r.reason);
  assert.equal(r.finding, "contradiction");
  assert.equal(
    r.reason,
    "record contradicts its stack 'cutlass-3.5-default': nvcc '-arch=sm_80 -O2' builds SASS " +
      "sm_80 (compute capability 8.0 to 8.9), PTX compute_80 (compute capability 8.0 or later), " +
      "none of which loads on sm_70 (compute capability 7.0)",
  );
});

Deno.test("verifyRecord(): the same honest GEMM record PASSes where the sm_80 build loads (A100's sm_80, H100's sm_90 through the PTX)", async () => {
  for (const gpu of ["a100", "h100-sxm"]) {
    const r = await cutlassGemm(gpu);
    assert.equal(r.status, "PASS", `${gpu}: ${r.reason}`);
  }
});

Deno.test("stackHardwareContradiction(): names the stack and what cannot run; null where it can", async () => {
  const json = async (p: string) =>
    JSON.parse(await Deno.readTextFile(new URL(`../../${p}`, import.meta.url)));
  const cutlass = parseStackProfile(await json("profiles/stack/cutlass-3.5-default.json"));
  assert.match(
    stackHardwareContradiction(cutlass, { architecture: "sm_75" }) ?? "",
    /^stack 'cutlass-3\.5-default': nvcc '-arch=sm_80 -O2' builds .* none of which loads on sm_75/,
  );
  assert.equal(stackHardwareContradiction(cutlass, { architecture: "sm_89" }), null);
  const fa3 = parseStackProfile(await json("profiles/stack/vllm-0.11-eager-fa3-hopper.json"));
  assert.match(
    stackHardwareContradiction(fa3, { architecture: "sm_80" }) ?? "",
    /^stack 'vllm-0\.11-eager-fa3-hopper': attention backend 'fa3-vllm' cannot run on sm_80: .*the record's GPU is sm_80$/,
  );
  assert.equal(stackHardwareContradiction(fa3, { architecture: "sm_90" }), null);
});
