/**
 * `tensorParallelOf`: expert parallelism resolves only where the stack's layout models it (vLLM's,
 * with ep = tp); HF's plans and ep across data-parallel ranks are NOT_VERIFIED by name; an ep vLLM
 * never runs with (other than 1 or tp x dp) contradicts a vLLM stack, at any tp.
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { parseDecoderConfig } from "../../src/model/mod.ts";
import {
  loadAsset,
  STACK_PROFILES,
  stackSplitContradiction,
  tensorParallelOf,
} from "../../src/resolve/mod.ts";

const store = await openAssetStore();
const stack = async (id: string) => (await loadAsset(store, { kind: STACK_PROFILES, id })).value;

Deno.test("tensorParallelOf(): ep = tp on vLLM's layout splits experts; other ep are named", async () => {
  const vllm = await stack("vllm-0.11-eager-fa2");
  const ep = tensorParallelOf(vllm, { tp: 2, ep: 2 });
  assert.ok(ep.ok && ep.parallel?.expertParallel === true && ep.parallel.size === 2);
  const plain = tensorParallelOf(vllm, { tp: 2, ep: 1 });
  assert.ok(plain.ok && plain.parallel?.expertParallel === undefined);
  const dp = tensorParallelOf(vllm, { tp: 2, ep: 4, dp: 2 });
  assert.ok(!dp.ok && dp.kind === "unmodelled" && /data-parallel ranks/.test(dp.reason));
  const hf = tensorParallelOf(await stack("hf-qwen3-flash-attn-torch2.8"), { tp: 2, ep: 2 });
  assert.ok(!hf.ok && hf.kind === "unmodelled" && /tp_plan has no expert-parallel/.test(hf.reason));
  const four = tensorParallelOf(vllm, {
    tp: 4,
    ep: 4,
    allReduce: { kind: "vllm-custom-1stage" },
  });
  assert.ok(four.ok && four.parallel?.expertParallel === true);
});

Deno.test("tensorParallelOf(): an ep other than 1 or tp x dp contradicts a vLLM stack (review h150); off vLLM it is not modelled", async () => {
  const vllm = await stack("vllm-0.11-eager-fa2");
  for (
    const [o, why] of [
      [
        { tp: 1, ep: 2 },
        /^ep=2 with tp=1 x dp=1: vLLM has no expert-parallel size of its own; on one rank it is 1/,
      ],
      [
        { tp: 2, ep: 3 },
        /^ep=3 with tp=2 x dp=1: .*--enable-expert-parallel makes it tp x dp \(2\)/,
      ],
      [{ tp: 2, ep: 4 }, /^ep=4 with tp=2 x dp=1/],
      [{ tp: 1, ep: 4096 }, /^ep=4096 with tp=1 x dp=1/],
      [{ tp: 2, ep: 2, dp: 2 }, /^ep=2 with tp=2 x dp=2: .*tp x dp \(4\)/],
    ] as const
  ) {
    const r = tensorParallelOf(vllm, o);
    assert.ok(!r.ok && r.kind === "contradiction", JSON.stringify(o));
    assert.match(r.reason, why);
  }
  // ep = tp x dp over data-parallel ranks is a run vLLM makes, not modelled here.
  const overDp = tensorParallelOf(vllm, { tp: 1, ep: 2, dp: 2 });
  assert.ok(!overDp.ok && overDp.kind === "unmodelled", JSON.stringify(overDp));
  const hf = await stack("hf-qwen3-flash-attn-torch2.8");
  for (const o of [{ tp: 1, ep: 2 }, { tp: 2, ep: 3 }, { tp: 1, ep: 4096 }]) {
    const r = tensorParallelOf(hf, o);
    assert.ok(!r.ok && r.kind === "unmodelled", JSON.stringify(o));
  }
});

Deno.test("stackSplitContradiction(): vLLM's MoE block refuses more ranks than experts; each expert's width must split over the ranks unless ep splits the experts", async () => {
  const vllm = await stack("vllm-0.11-eager-fa2");
  const config = (experts: number) =>
    parseDecoderConfig({
      model_type: "qwen3_moe",
      vocab_size: 512,
      hidden_size: 256,
      intermediate_size: 512,
      num_hidden_layers: 2,
      num_attention_heads: 16,
      num_key_value_heads: 8,
      head_dim: 64,
      num_experts: experts,
      num_experts_per_tok: 2,
      moe_intermediate_size: 100,
    });
  assert.match(
    stackSplitContradiction(vllm, { tp: 8, ep: 8, config: config(4) }) ?? "",
    /cannot split 4 experts over 8 ranks/,
  );
  assert.match(
    stackSplitContradiction(vllm, { tp: 8, config: config(16) }) ?? "",
    /MoE intermediate size 100 over its 8 ranks \(tp 8 x dp 1\)/,
  );
  assert.equal(stackSplitContradiction(vllm, { tp: 8, ep: 8, config: config(16) }), null);
  assert.equal(stackSplitContradiction(vllm, { tp: 4, config: config(16) }), null);
  // One rank per engine, two engines (dp 2): the fused MoE still splits each expert in two.
  assert.match(
    stackSplitContradiction(vllm, { tp: 1, dp: 8, config: config(16) }) ?? "",
    /MoE intermediate size 100 over its 8 ranks \(tp 1 x dp 8\)/,
  );
  const hf = await stack("hf-qwen3-flash-attn-torch2.8");
  assert.equal(stackSplitContradiction(hf, { tp: 8, config: config(4) }), null);
});

Deno.test("tensorParallelOf(): the two-rank default takes a message vLLM's custom kernel cannot pack (review h95)", async () => {
  // Hidden 252, one row: 504 bytes, not a 16-byte multiple; vLLM sends it to NCCL, and two
  // ranks' sum has the same bits either way. The default had been the custom kernel, whose
  // pack rule turned the honest pass into a FAIL.
  const { reduceRows } = await import("../../src/model/decoder/mod.ts");
  for (const id of ["vllm-0.11-eager-fa2", "hf-qwen3-flash-attn-torch2.8"]) {
    const r = tensorParallelOf(await stack(id), { tp: 2, ep: 1 });
    assert.ok(r.ok && r.parallel !== undefined, id);
    const a = new Uint16Array(252).fill(0x3f80), b = new Uint16Array(252).fill(0x3b80);
    const out = reduceRows([a, b], { tp: r.parallel, width: 252, launchRows: Int32Array.of(1) });
    // 1 + 2^-8 ties to 1 (even) in BF16.
    assert.deepEqual([...new Set(out)], [0x3f80], id);
  }
});
