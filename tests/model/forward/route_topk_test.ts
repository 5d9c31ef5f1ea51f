/**
 * HF's MoE routing (router softmax, top-k, renormalisation): a row whose probabilities hold NaN
 * (a NaN or infinite router logit) is not routed by a guess, since torch.topk's choice among NaNs
 * is not modelled: it is ForwardUnsupported (NOT_VERIFIED), as vLLM's routing already was.
 */
import assert from "node:assert/strict";
import { createSfu } from "../../../src/hardware/mod.ts";
import { REDUCE_STACK_CUDA_RECENT as reduceStack } from "../../../src/kernels/mod.ts";
import { type BlockRuntime, ForwardUnsupported } from "../../../src/model/mod.ts";
import { routeTopK } from "../../../src/model/forward/moe_block.ts";

const moe = {
  experts: 4,
  topK: 2,
  intermediate: 8,
  normTopkProb: true,
  decoderSparseStep: 1,
  mlpOnlyLayers: [],
};
const route = (logits: number[]) =>
  routeTopK(Uint16Array.from(logits), {
    moe,
    rows: 1,
    torchVersion: "2.8.0",
    reduceStack,
    runtime: { sfu: createSfu({ mode: "ieee" }) } as BlockRuntime,
  });

Deno.test("routeTopK(): picks the two largest probabilities, ties to the lower expert", () => {
  // bf16 1.0, 2.0, 2.0, 0.5: experts 1 and 2 (equal), in id order.
  assert.deepEqual([...route([0x3f80, 0x4000, 0x4000, 0x3f00]).experts], [1, 2]);
});

Deno.test("routeTopK(): a NaN or infinite router logit is ForwardUnsupported, not experts 0 and 1", () => {
  const rows = [
    [0x3f80, 0x7fc0, 0x4000, 0x3f00], // NaN
    [0x3f80, 0x7f80, 0x4000, 0x3f00], // +inf: inf - inf in the softmax
    [0xff80, 0xff80, 0xff80, 0xff80], // every logit -inf
  ];
  for (const row of rows) {
    assert.throws(
      () => route(row),
      (e: unknown) => e instanceof ForwardUnsupported && /hold NaN/.test((e as Error).message),
      row.map((b) => b.toString(16)).join(),
    );
  }
  // One -inf logit is a probability of 0, routed as any other.
  assert.deepEqual([...route([0xff80, 0x4000, 0x3f80, 0x3f00]).experts], [1, 2]);
});
