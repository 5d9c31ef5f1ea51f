/**
 * Where each attention backend can run: FlashAttention-2 (every build) and cuDNN's fused
 * attention from sm_80 on, FlashAttention-3 on sm_90 alone; the rest anywhere a stack names them.
 * Which FA2 source each backend runs decides its split ranges.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  ATTENTION_BACKEND_IDS,
  attentionBackend,
  attentionBackendArchitectureGap,
  type Fa2SplitRange,
} from "../../src/kernels/mod.ts";

const ARCHES = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"];

Deno.test("attentionBackendArchitectureGap(): each backend's range of architectures, and the reason names it", () => {
  const runsOn: Record<string, (sm: number) => boolean> = {
    "fa2-dao-fastmath": (sm) => sm >= 80,
    "fa2-pytorch-bundled": (sm) => sm >= 80,
    "fa2-vllm-paged": (sm) => sm >= 80,
    "cudnn-sdpa": (sm) => sm >= 80,
    "fa3-vllm": (sm) => sm === 90,
    "flashinfer": () => true,
    "sdpa-mem-efficient": () => true,
    "eager": () => true,
  };
  assert.deepEqual(Object.keys(runsOn).sort(), [...ATTENTION_BACKEND_IDS].sort());
  for (const id of ATTENTION_BACKEND_IDS) {
    for (const arch of ARCHES) {
      const gap = attentionBackendArchitectureGap(id, arch);
      const runs = runsOn[id]!(Number(arch.slice(3)));
      assert.equal(gap === null, runs, `${id} on ${arch}: ${gap}`);
      if (gap !== null) {
        assert.match(gap, new RegExp(`^attention backend '${id}' cannot run on ${arch}: `));
        assert.match(gap, id === "fa3-vllm" ? /\(sm_90 only\)$/ : /\(sm_80 or later\)$/);
      }
    }
  }
  // An architecture that cannot be read is left to the other checks.
  assert.equal(attentionBackendArchitectureGap("fa3-vllm", "hopper"), null);
});

Deno.test("attentionBackend(): vLLM's FA2 takes each split's key blocks from the sequence's own length, the other FA2 builds from the launch's", () => {
  const want: Record<string, Fa2SplitRange> = {
    "fa2-dao-fastmath": "launch",
    "fa2-pytorch-bundled": "launch",
    "fa2-vllm-paged": "sequence",
  };
  for (const [id, range] of Object.entries(want)) {
    for (const driver of ["prefill", "serving"] as const) {
      const b = attentionBackend(id, driver);
      assert.ok(b.modelled, `${id} ${driver}`);
      assert.equal(b.splitRange, range, `${id} ${driver}`);
    }
  }
});
