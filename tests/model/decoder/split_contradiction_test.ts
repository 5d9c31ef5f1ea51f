/**
 * `splitContradiction()`: the tensor-parallel splits a layout can never make of a model (vLLM
 * 0.11 asserts at start-up that the ranks divide the heads, the KV heads or are divided by them,
 * the dense intermediate size and the padded vocabulary; HF's tp_plan cannot view a q/k/v block
 * that cuts a head), kept apart from splits that run but are not modelled (left to the forward's
 * NOT_VERIFIED). Regression tests for a review finding: `--tp 3` on an 8-head checkpoint was
 * NOT_VERIFIED, where no such run exists.
 */
import assert from "node:assert/strict";
import { tensorParallelLayout } from "../../../src/kernels/mod.ts";
import {
  ForwardUnsupported,
  parseDecoderConfig,
  rankView,
  splitContradiction,
  type TensorParallel,
} from "../../../src/model/mod.ts";

const VLLM = tensorParallelLayout("vllm-megatron");
const HF = tensorParallelLayout("hf-tp-plan");
const BASE = {
  model_type: "qwen3",
  vocab_size: 512,
  hidden_size: 256,
  intermediate_size: 512,
  num_hidden_layers: 2,
  num_attention_heads: 8,
  num_key_value_heads: 4,
  head_dim: 64,
};
const config = (over: Record<string, unknown> = {}) => parseDecoderConfig({ ...BASE, ...over });
const on = (layout: typeof VLLM, size: number, over: Record<string, unknown> = {}) =>
  splitContradiction(config(over), { size, layout });

Deno.test("splitContradiction(): vLLM's layout refuses ranks that do not divide the heads, the KV heads (or are not divided by fewer ones), the dense intermediate size or the padded vocabulary", () => {
  assert.equal(on(VLLM, 1), null);
  assert.equal(on(VLLM, 2), null);
  assert.equal(on(VLLM, 4), null);
  assert.equal(on(VLLM, 8), null); // 4 KV heads replicated over 8 ranks
  assert.match(on(VLLM, 3)!, /cannot split 8 attention heads over 3 ranks: its start-up asserts/);
  assert.match(on(VLLM, 6, { num_attention_heads: 12 })!, /cannot split 4 KV heads over 6 ranks/);
  assert.equal(on(VLLM, 8, { num_key_value_heads: 2 }), null); // 8 ranks, 2 KV heads: replicated
  assert.match(on(VLLM, 4, { intermediate_size: 510 })!, /intermediate size 510 over 4 ranks/);
  // 500 is padded to 512, which 8 ranks divide (not modelled, but it runs) and 3 do not.
  assert.equal(on(VLLM, 8, { vocab_size: 500 }), null);
  const three = { num_attention_heads: 12, num_key_value_heads: 3, intermediate_size: 510 };
  assert.match(
    on(VLLM, 3, { ...three, vocab_size: 500 })!,
    /vocabulary 500 \(padded to 512\) over 3 ranks/,
  );
});

Deno.test("splitContradiction(): a MoE model's intermediate size is refused only where some layer has a dense MLP", () => {
  const moe = {
    model_type: "qwen3_moe",
    intermediate_size: 510,
    num_experts: 8,
    num_experts_per_tok: 2,
    moe_intermediate_size: 128,
  };
  assert.equal(on(VLLM, 4, moe), null);
  assert.match(on(VLLM, 4, { ...moe, mlp_only_layers: [1] })!, /intermediate size 510/);
});

Deno.test("splitContradiction(): vLLM refuses more ranks than experts, and an expert width the ranks do not divide unless the experts are split over them", () => {
  const moe = {
    model_type: "qwen3_moe",
    num_attention_heads: 16,
    num_key_value_heads: 4,
    num_experts: 4,
    num_experts_per_tok: 2,
    moe_intermediate_size: 128,
  };
  const c = config(moe);
  const tp = (size: number, ep = 1) => splitContradiction(c, { size, layout: VLLM, ep });
  assert.equal(tp(4), null);
  assert.match(tp(8)!, /cannot split 4 experts over 8 ranks: its MoE block refuses/);
  assert.match(tp(8, 8)!, /4 experts over 8 ranks/); // expert parallelism does not lift it
  const narrow = config({ ...moe, moe_intermediate_size: 100 });
  assert.match(
    splitContradiction(narrow, { size: 8, layout: VLLM }) ?? "",
    /4 experts over 8 ranks/,
  );
  const wide = config({ ...moe, num_experts: 16, moe_intermediate_size: 100 });
  assert.match(
    splitContradiction(wide, { size: 8, layout: VLLM })!,
    /MoE intermediate size 100 over its 8 ranks \(tp 8 x dp 1\): its start-up asserts .* \(experts not split/,
  );
  assert.equal(splitContradiction(wide, { size: 8, layout: VLLM, ep: 8 }), null);
  assert.equal(splitContradiction(wide, { size: 4, layout: VLLM }), null);
  // The fused MoE spreads over the data-parallel ranks too: tp 1 x dp 8 must divide the width.
  assert.match(
    splitContradiction(wide, { size: 1, layout: VLLM, dp: 8 })!,
    /MoE intermediate size 100 over its 8 ranks \(tp 1 x dp 8\)/,
  );
  assert.equal(splitContradiction(wide, { size: 2, layout: VLLM, dp: 2 }), null);
  assert.equal(splitContradiction(wide, { size: 2, layout: VLLM, dp: 4, ep: 8 }), null);
  // An ep other than 1 or tp x dp is no vLLM run for any model, dense included: the stack's
  // contradiction (`vllmExpertParallelContradiction`), not the checkpoint's.
  assert.equal(splitContradiction(wide, { size: 2, layout: VLLM, ep: 4 }), null);
  // Every layer dense (mlp_only_layers): no MoE block, no expert bound.
  assert.equal(
    splitContradiction(config({ ...moe, mlp_only_layers: [0, 1] }), { size: 8, layout: VLLM }),
    null,
  );
  // HF's tp_plan has no such start-up check.
  const eightKv = config({ ...moe, num_key_value_heads: 8 });
  assert.equal(splitContradiction(eightKv, { size: 8, layout: HF }), null);
});

Deno.test("splitContradiction(): HF's tp_plan refuses heads or KV heads the ranks do not divide (a block that cuts a head); its uneven MLP blocks run, and are not modelled", () => {
  assert.equal(on(HF, 4), null);
  assert.match(
    on(HF, 8)!,
    /layout 'hf-tp-plan' cannot split 4 KV heads over 8 ranks: rank 0's block of 32 rows is not whole heads of 64/,
  );
  assert.match(on(HF, 3)!, /cannot split 8 attention heads over 3 ranks/);
  // A head dimension below the rank count may give whole heads by chance: not refused.
  assert.equal(on(HF, 8, { head_dim: 4 }), null);
  const uneven = config({ intermediate_size: 510 });
  assert.equal(splitContradiction(uneven, { size: 4, layout: HF }), null);
  const tp = { size: 4, layout: HF } as TensorParallel;
  assert.throws(() => rankView(uneven, tp), ForwardUnsupported);
});
