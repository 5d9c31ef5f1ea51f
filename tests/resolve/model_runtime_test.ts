/**
 * `modelRuntime`: the dispatch follows the kernel it is given; without one (a record's kernel
 * the verifier refuses) every GEMM is uncovered, naming the call and the reason.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { referenceKWalker, type StackProfile } from "../../src/kernels/mod.ts";
import {
  loadAsset,
  loadGpuProfile,
  loadNamedRecipe,
  modelRuntime,
  STACK_PROFILES,
} from "../../src/resolve/mod.ts";

Deno.test("modelRuntime(): a recipe covers every call; no kernel covers none, saying why", async () => {
  const store = await openAssetStore();
  const { profile } = await loadGpuProfile(store, "a100");
  const stack: StackProfile = (await loadAsset(store, {
    kind: STACK_PROFILES,
    id: "cutlass-3.5-hf-flash-attn",
  })).value;
  const call = { name: "q_proj", m: 3, n: 128, k: 128 } as const;
  const { recipe } = await loadNamedRecipe(store, "cutlass-kwalk-128x128x64");
  const fixed = await modelRuntime(store, {
    profile,
    stack,
    kernel: { recipe },
    walker: referenceKWalker,
  });
  assert.equal(fixed.gemm(call).covered, true);
  const none = await modelRuntime(store, {
    profile,
    stack,
    kernel: { uncovered: "unsupported catalog: 'x'" },
    walker: referenceKWalker,
  });
  assert.deepEqual(none.gemm(call), {
    covered: false,
    reason: "q_proj: unsupported catalog: 'x'",
  });
});
