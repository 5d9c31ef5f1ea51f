/**
 * `vllmAllReducePath()` against the thresholds of spec `parallel_and_vllm.md` §A2.0-§A2.2 (vLLM
 * c3124680: `cuda_communicator.py:121-163`, `custom_all_reduce.py`, `custom_all_reduce.cuh:576-600`,
 * `all_reduce_utils.py:30-58`, `symm_mem.py`), including the H100 routing table for Qwen3-8B
 * (hidden 4096: 8 KiB per token).
 */
import assert from "node:assert/strict";
import {
  allReducePathOf,
  MODELLED_ALL_REDUCE_KINDS,
  UNMODELLED_ALL_REDUCE_KINDS,
  vllmAllReducePath,
  type VllmAllReduceSetup,
} from "../../../src/kernels/allreduce/mod.ts";

const KIB = 1024;
const MIB = 1024 * KIB;
const H100 = { deviceCapability: "9.0", fullyConnected: true, multicast: true } as const;
const A100 = { deviceCapability: "8.0", fullyConnected: true, multicast: false } as const;
const B200 = { deviceCapability: "10.0", fullyConnected: true, multicast: true } as const;

function path(setup: VllmAllReduceSetup): string {
  return vllmAllReducePath(setup).path;
}

Deno.test("`vllmAllReducePath()` follows the spec's H100 routing table for Qwen3-8B (8 KiB per token)", () => {
  const token = 4096 * 2;
  // TP 8: custom < 256 KiB (<= 31 tokens), symm-mem (multimem) up to 64 MiB, then NCCL.
  assert.equal(path({ ...H100, worldSize: 8, messageBytes: 31 * token }), "vllm-custom-1stage");
  assert.equal(
    path({ ...H100, worldSize: 8, messageBytes: 32 * token }),
    "torch-symm-mem-multimem",
  );
  assert.equal(
    path({ ...H100, worldSize: 8, messageBytes: 64 * MIB - 16 }),
    "torch-symm-mem-multimem",
  );
  assert.equal(path({ ...H100, worldSize: 8, messageBytes: 64 * MIB }), "nccl");
  // TP 4: custom < 8 MiB (one stage below 512 KiB), multimem 8-32 MiB, then NCCL.
  assert.equal(path({ ...H100, worldSize: 4, messageBytes: 512 * KIB - 16 }), "vllm-custom-1stage");
  assert.equal(path({ ...H100, worldSize: 4, messageBytes: 512 * KIB }), "vllm-custom-2stage");
  assert.equal(path({ ...H100, worldSize: 4, messageBytes: 8 * MIB - 16 }), "vllm-custom-2stage");
  assert.equal(path({ ...H100, worldSize: 4, messageBytes: 8 * MIB }), "torch-symm-mem-multimem");
  assert.equal(path({ ...H100, worldSize: 4, messageBytes: 32 * MIB }), "nccl");
  // TP 2: custom (always one stage) < 8 MiB, two-shot 8-64 MiB, then NCCL.
  assert.equal(path({ ...H100, worldSize: 2, messageBytes: 8 * MIB - 16 }), "vllm-custom-1stage");
  assert.equal(path({ ...H100, worldSize: 2, messageBytes: 8 * MIB }), "torch-symm-mem-two-shot");
  assert.equal(path({ ...H100, worldSize: 2, messageBytes: 64 * MIB }), "nccl");
  // TP 6: custom max 512 KiB; one stage below 256 KiB.
  assert.equal(path({ ...H100, worldSize: 6, messageBytes: 256 * KIB - 16 }), "vllm-custom-1stage");
  assert.equal(path({ ...H100, worldSize: 6, messageBytes: 256 * KIB }), "vllm-custom-2stage");
  assert.equal(path({ ...H100, worldSize: 6, messageBytes: 512 * KIB }), "torch-symm-mem-multimem");
});

Deno.test("`vllmAllReducePath()` on A100 never takes symm-mem and needs NVLink beyond TP 2", () => {
  assert.equal(path({ ...A100, worldSize: 8, messageBytes: 256 * KIB - 16 }), "vllm-custom-1stage");
  assert.equal(path({ ...A100, worldSize: 8, messageBytes: 256 * KIB }), "vllm-custom-2stage");
  assert.equal(path({ ...A100, worldSize: 8, messageBytes: 8 * MIB - 16 }), "vllm-custom-2stage");
  assert.equal(path({ ...A100, worldSize: 8, messageBytes: 8 * MIB }), "nccl");
  // sm_80 is not in the symm-mem table, even with a multicast handle.
  assert.equal(path({ ...A100, multicast: true, worldSize: 4, messageBytes: 16 * MIB }), "nccl");
  assert.equal(
    path({ ...A100, fullyConnected: false, worldSize: 4, messageBytes: 16 * KIB }),
    "nccl",
  );
  assert.equal(
    path({ ...A100, fullyConnected: false, worldSize: 2, messageBytes: 16 * KIB }),
    "vllm-custom-1stage",
  );
  assert.equal(path({ ...A100, worldSize: 3, messageBytes: 16 * KIB }), "nccl"); // ws 3 unsupported
});

Deno.test("`vllmAllReducePath()` on sm_100 uses its own custom and symm-mem limits", () => {
  assert.equal(path({ ...B200, worldSize: 2, messageBytes: 2 * MIB - 16 }), "vllm-custom-1stage");
  assert.equal(path({ ...B200, worldSize: 2, messageBytes: 2 * MIB }), "torch-symm-mem-two-shot");
  assert.equal(path({ ...B200, worldSize: 2, messageBytes: 8 * MIB }), "nccl");
  assert.equal(path({ ...B200, worldSize: 4, messageBytes: 2 * MIB }), "torch-symm-mem-two-shot");
  assert.equal(path({ ...B200, worldSize: 8, messageBytes: MIB - 16 }), "vllm-custom-2stage");
  assert.equal(path({ ...B200, worldSize: 8, messageBytes: MIB }), "torch-symm-mem-multimem");
});

Deno.test("`vllmAllReducePath()` honours the environment, alignment and contiguity conditions", () => {
  const tp4 = { ...H100, worldSize: 4 } as const;
  assert.equal(
    path({ ...tp4, messageBytes: 16, customAllReduceAlgo: "2stage" }),
    "vllm-custom-2stage",
  );
  assert.equal(
    path({ ...tp4, messageBytes: 4 * MIB, customAllReduceAlgo: "oneshot" }),
    "vllm-custom-1stage",
  );
  // Without torch symm-mem the custom max stays 8 MiB and NCCL takes the rest.
  assert.equal(
    path({ ...H100, worldSize: 8, messageBytes: 4 * MIB, useTorchSymmMem: false }),
    "vllm-custom-2stage",
  );
  assert.equal(
    path({ ...H100, worldSize: 8, messageBytes: 8 * MIB, useTorchSymmMem: false }),
    "nccl",
  );
  // Custom all-reduce needs bytes % 16 == 0; symm-mem needs bytes % 4 == 0.
  assert.equal(path({ ...tp4, messageBytes: 1028 }), "torch-symm-mem-multimem");
  assert.equal(path({ ...tp4, messageBytes: 1026 }), "nccl");
  assert.equal(
    path({ ...tp4, messageBytes: 1024, weaklyContiguous: false }),
    "torch-symm-mem-multimem",
  );
  assert.equal(
    path({ ...tp4, messageBytes: 1024, customAllReduce: false }),
    "torch-symm-mem-multimem",
  );
  // NCCL symmetric memory comes first: ws >= 4 and at least 2 MiB (ws 4) or 1 MiB (ws 8).
  assert.equal(path({ ...tp4, messageBytes: 2 * MIB, useNcclSymmMem: true }), "nccl-symm-mem");
  assert.equal(
    path({ ...tp4, messageBytes: 2 * MIB - 16, useNcclSymmMem: true }),
    "vllm-custom-2stage",
  );
  assert.equal(
    path({ ...H100, worldSize: 8, messageBytes: MIB, useNcclSymmMem: true }),
    "nccl-symm-mem",
  );
  assert.equal(
    path({ ...H100, worldSize: 6, messageBytes: 64 * MIB, useNcclSymmMem: true }),
    "nccl",
  );
  assert.equal(
    path({ ...H100, worldSize: 2, messageBytes: 64 * MIB, useNcclSymmMem: true }),
    "nccl",
  );
  assert.equal(path({ ...tp4, messageBytes: 16, flashinferAllReduce: true }), "flashinfer");
});

Deno.test("`vllmAllReducePath()` says which chosen paths cannot be replayed", () => {
  const multimem = vllmAllReducePath({ ...H100, worldSize: 8, messageBytes: MIB });
  assert.match(multimem.unmodelled!, /NVSwitch/);
  assert.match(multimem.rule, /1048576 B < 67108864 B/);
  assert.equal(vllmAllReducePath({ ...H100, worldSize: 8, messageBytes: 16 }).unmodelled, null);
  assert.equal(
    vllmAllReducePath({ ...H100, worldSize: 8, messageBytes: 128 * MIB }).unmodelled,
    null,
  );
  assert.match(
    vllmAllReducePath({ ...H100, worldSize: 8, messageBytes: 16, flashinferAllReduce: true })
      .unmodelled!,
    /NOT_VERIFIED/,
  );
  assert.throws(() => vllmAllReducePath({ ...H100, worldSize: 1, messageBytes: 16 }), RangeError);
  assert.throws(() => vllmAllReducePath({ ...H100, worldSize: 4, messageBytes: -2 }), RangeError);
});

Deno.test("`allReducePathOf()` lets a verifier FAIL a record whose claimed implementation is not the recomputed path", () => {
  for (const kind of MODELLED_ALL_REDUCE_KINDS) assert.notEqual(allReducePathOf(kind), null);
  for (const kind of UNMODELLED_ALL_REDUCE_KINDS) {
    assert.equal(allReducePathOf(kind) === null, kind === "quick-all-reduce");
  }
  // A TP 8 prefill step of 31 padded tokens: the custom one-stage ran, so a claimed NCCL ring
  // (or the two-stage) is a mismatch, and the one-stage matches.
  const chosen = vllmAllReducePath({ ...H100, worldSize: 8, messageBytes: 31 * 8192 }).path;
  assert.notEqual(allReducePathOf("nccl-ring"), chosen);
  assert.notEqual(allReducePathOf("vllm-custom-2stage"), chosen);
  assert.equal(allReducePathOf("vllm-custom-1stage"), chosen);
  assert.equal(
    allReducePathOf("nccl-tree"),
    vllmAllReducePath({ ...A100, worldSize: 8, messageBytes: 8 * MIB }).path,
  );
});
