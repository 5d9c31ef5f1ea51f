/**
 * `tensorParallelOf`: expert parallelism resolves only where the stack's layout models it (vLLM's,
 * with ep = tp); HF's plans and ep across data-parallel ranks are NOT_VERIFIED by name.
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { loadAsset, STACK_PROFILES, tensorParallelOf } from "../../src/resolve/mod.ts";

const store = await openAssetStore();
const stack = async (id: string) => (await loadAsset(store, { kind: STACK_PROFILES, id })).value;

Deno.test("tensorParallelOf(): ep = tp on vLLM's layout splits experts; other ep are named", async () => {
  const vllm = await stack("vllm-0.11-eager-fa2");
  const ep = tensorParallelOf(vllm, { tp: 2, ep: 2 });
  assert.ok(ep.ok && ep.parallel?.expertParallel === true && ep.parallel.size === 2);
  const plain = tensorParallelOf(vllm, { tp: 2, ep: 1 });
  assert.ok(plain.ok && plain.parallel?.expertParallel === undefined);
  const dp = tensorParallelOf(vllm, { tp: 2, ep: 4 });
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
