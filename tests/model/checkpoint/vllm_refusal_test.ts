/**
 * What vLLM 0.11 refuses to build though the config parses: a config naming no architectures, and
 * a Qwen3-MoE one whose pipeline stage holds no sparse MoE layer (`Qwen3MoeForCausalLM.__init__`
 * raises "No Qwen3MoE layer found in the model.layers.", `qwen3_moe.py:609-620` at c3124680).
 */
import assert from "node:assert/strict";
import {
  parseDecoderConfig,
  stackLoadRefusal,
  vllmPipelineStages,
  vllmRefusal,
} from "../../../src/model/mod.ts";
import { TINY_DENSE, TINY_MOE } from "./_checkpoint_fixture.ts";

Deno.test("vllmPipelineStages() splits the layers as vLLM's get_pp_indices does without VLLM_PP_LAYER_PARTITION", () => {
  // get_pp_indices(layers, rank, pp) of vllm/distributed/utils.py at c3124680, for each rank.
  const cases: [number, number, [number, number][]][] = [
    [1, 1, [[0, 1]]],
    [2, 2, [[0, 1], [1, 2]]],
    [5, 3, [[0, 2], [2, 4], [4, 5]]],
    [7, 4, [[0, 2], [2, 4], [4, 6], [6, 7]]],
    [10, 4, [[0, 2], [2, 5], [5, 8], [8, 10]]],
    [48, 5, [[0, 9], [9, 19], [19, 29], [29, 39], [39, 48]]],
  ];
  for (const [layers, pp, want] of cases) {
    assert.deepStrictEqual(vllmPipelineStages(layers, pp), want, `${layers} over ${pp}`);
  }
  assert.throws(() => vllmPipelineStages(2, 0), RangeError);
});

Deno.test("vllmRefusal(): a Qwen3-MoE config with no sparse layer, or a pipeline stage of dense layers only, is refused; HF's readings of the same config are not", () => {
  const moe = (patch: Record<string, unknown>, pp: number) =>
    vllmRefusal(parseDecoderConfig({ ...TINY_MOE, ...patch }), { pp });
  // The bundled tiny MoE: layer 0 dense (mlp_only_layers [0]), layer 1 sparse.
  assert.equal(moe({}, 1), null);
  assert.match(
    moe({}, 2) ?? "",
    /^pipeline stage 0 of pp=2 holds layer 0 \(vLLM's get_pp_indices\), none with a sparse MoE block \(mlp_only_layers \[0\], .*'No Qwen3MoE layer found in the model\.layers\.'\) on that stage$/,
  );
  for (const patch of [{ mlp_only_layers: [0, 1] }, { decoder_sparse_step: 3 }]) {
    assert.match(moe(patch, 1) ?? "", /^no decoder layer of the config has a sparse MoE block/);
  }
  // Four layers, layer 0 dense: two stages of two hold a sparse layer each; four stages do not.
  assert.equal(moe({ num_hidden_layers: 4 }, 2), null);
  assert.match(moe({ num_hidden_layers: 4 }, 4) ?? "", /stage 0 of pp=4 holds layer 0 /);
  assert.match(
    moe({ num_hidden_layers: 5, decoder_sparse_step: 2 }, 3) ?? "",
    /stage 2 of pp=3 holds layer 4 /,
  );
  // More stages than layers: get_pp_indices gives 2 layers over 3 stages as [1, 1, 0]; the first
  // stage lacking a sparse layer is named, an empty one as holding none.
  assert.match(moe({}, 3) ?? "", /^pipeline stage 0 of pp=3 holds layer 0 /);
  assert.match(
    moe({ mlp_only_layers: [] }, 3) ?? "",
    /^pipeline stage 2 of pp=3 holds no layer \(vLLM's get_pp_indices\), so no sparse MoE block \(mlp_only_layers \[\], .*'No Qwen3MoE layer found in the model\.layers\.'\) on that stage$/,
  );
  // num_experts 0 or below: every layer dense (a config read with its unmodelled values).
  const dense = parseDecoderConfig({ ...TINY_MOE, num_experts: -1 }, { unmodelled: "read" });
  assert.match(vllmRefusal(dense, { pp: 1 }) ?? "", /num_experts -1\), and vLLM/);
  // Dense families build no MoE block and need none.
  assert.equal(vllmRefusal(parseDecoderConfig(TINY_DENSE), { pp: 2 }), null);
  // HF Transformers builds every one of them.
  const hf = { id: "hf", components: { transformers: "4.57.x" } };
  const vllm = { id: "v", components: { vllm: "0.11.0" } };
  const all = parseDecoderConfig({ ...TINY_MOE, mlp_only_layers: [0, 1] });
  assert.equal(stackLoadRefusal(hf, { config: all, pp: 1 }), null);
  assert.match(stackLoadRefusal(vllm, { config: all, pp: 1 }) ?? "", /^stack 'v' runs vLLM: no/);
});

Deno.test("vllmRefusal(): more pipeline stages than layers leave a stage without a layer, whose KV cache vLLM cannot size; HF Transformers has no such refusal", () => {
  const dense = (layers: number) =>
    parseDecoderConfig({ ...TINY_DENSE, num_hidden_layers: layers });
  // As many stages as layers: one layer each.
  assert.equal(vllmRefusal(dense(2), { pp: 2 }), null);
  assert.equal(vllmRefusal(dense(28), { pp: 28 }), null);
  // get_pp_indices: 2 over 3 is [1, 1, 0]; 28 over 32 is [0, 0, 0, 1 x 28, 0] (stage 0 empty).
  assert.match(
    vllmRefusal(dense(2), { pp: 3 }) ?? "",
    /^pp=3 pipeline stages for 2 layer\(s\) leave stage 2 without a layer \(vLLM's get_pp_indices\), and vLLM 0\.11 cannot size that worker's KV cache/,
  );
  assert.match(vllmRefusal(dense(28), { pp: 32 }) ?? "", /^pp=32 .* leave stage 0 without/);
  assert.match(vllmRefusal(dense(2), { pp: 4096 }) ?? "", /^pp=4096 .* leave stage 0 without/);
  // HF's device_map places modules, not stages of layers: the count is not refused there.
  const hf = { id: "hf", components: { transformers: "4.57.x" } };
  assert.equal(stackLoadRefusal(hf, { config: dense(2), pp: 3 }), null);
});
