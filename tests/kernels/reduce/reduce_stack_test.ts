import assert from "node:assert/strict";
import {
  parseReduceStack,
  REDUCE_STACK_CUDA_LEGACY,
  REDUCE_STACK_CUDA_RECENT,
  REDUCE_STACK_ROCM_RECENT,
  reduceStackForTorch,
} from "../../../src/kernels/reduce/mod.ts";

Deno.test("`reduceStackForTorch()` maps versions and platforms to the spec's shuffle order", () => {
  assert.equal(reduceStackForTorch("2.7.0"), REDUCE_STACK_CUDA_RECENT);
  assert.equal(reduceStackForTorch("2.10.0+cu128"), REDUCE_STACK_CUDA_RECENT);
  assert.equal(reduceStackForTorch("3.0"), REDUCE_STACK_CUDA_RECENT);
  assert.equal(reduceStackForTorch("2.6.0"), REDUCE_STACK_CUDA_LEGACY);
  assert.equal(reduceStackForTorch("1.13.1"), REDUCE_STACK_CUDA_LEGACY);
  assert.equal(reduceStackForTorch("2.9.0", { platform: "rocm" }), REDUCE_STACK_ROCM_RECENT);
  assert.equal(reduceStackForTorch("2.9.0", { platform: "fbcode" }).warpShuffle, "increasing");
  assert.throws(() => reduceStackForTorch("nightly"), SyntaxError);
});

Deno.test("`parseReduceStack()` round-trips presets and names bad fields", () => {
  assert.deepEqual(parseReduceStack({ ...REDUCE_STACK_CUDA_LEGACY }), REDUCE_STACK_CUDA_LEGACY);
  const ok = { ...REDUCE_STACK_CUDA_RECENT };
  assert.throws(() => parseReduceStack({ ...ok, warpShuffle: "xor" }), RangeError);
  assert.throws(() => parseReduceStack({ ...ok, extra: 1 }), RangeError);
  assert.throws(() => parseReduceStack({ ...ok, warpSize: 24 }), RangeError);
  assert.throws(() => parseReduceStack({ ...ok, vt0: "4" }), TypeError);
  assert.throws(() => parseReduceStack(null), TypeError);
});
