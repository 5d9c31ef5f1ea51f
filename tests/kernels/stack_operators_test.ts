/**
 * `stackOperators`: the one registry the drivers read: attention per driver, MoE experts only
 * when the model has them, reductions from the torch release, the batch layout.
 */
import assert from "node:assert/strict";
import {
  fullGraphPass,
  parseStackProfile,
  reduceStackForTorch,
  stackOperators,
} from "../../src/kernels/mod.ts";

/**
 * A stack with these operators; one using vLLM's kernels, graphs or all-reduce names vLLM and runs
 * its paged attention.
 */
const stack = (ops: Record<string, unknown>) => {
  const vllm = String(ops.layerKernels).startsWith("vllm") || "cudaGraphs" in ops ||
    "allReduceSetup" in ops;
  return parseStackProfile({
    schema: "bitaudit.stack-profile/v1",
    id: "s",
    name: "S",
    components: vllm ? { vllm: "0.11.0" } : {},
    gemm: { kernelSource: "recipe" },
    sources: [],
    operators: {
      torch: "2.8.0",
      attention: vllm ? "fa2-vllm-paged" : "fa2-dao-fastmath",
      ...(vllm ? { layerKernels: "vllm-custom-ops" } : {}),
      ...ops,
    },
  });
};

Deno.test("stackOperators resolves a modelled stack for each driver", () => {
  const r = stackOperators(stack({ batching: "flatten" }), { driver: "serving", moe: false });
  assert.ok(r.supported);
  assert.equal(r.ops.attention?.id, "fa2-dao-fastmath");
  assert.equal(r.ops.attention?.build?.id, "dao-fastmath");
  assert.equal(r.ops.attention?.sdpa, false);
  assert.equal(r.ops.batching, "flatten");
  assert.deepEqual(r.ops.reduceStack, reduceStackForTorch("2.8.0"));
  const sdpa = stackOperators(stack({ attention: "fa2-pytorch-bundled" }), {
    driver: "prefill",
    moe: false,
  });
  assert.ok(sdpa.supported && sdpa.ops.attention?.sdpa === true);
  assert.ok(sdpa.supported && sdpa.ops.batching === "pad-to-longest");
});

Deno.test("stackOperators names what is not modelled: eager outside a prefill, MoE experts, no operators", () => {
  const eager = stack({ attention: "eager" });
  assert.ok(stackOperators(eager, { driver: "prefill", moe: false }).supported);
  const serving = stackOperators(eager, { driver: "serving", moe: false });
  assert.ok(!serving.supported && serving.reason.startsWith("attention backend 'eager'"));
  // An FFN block runs no attention: its stack's backend is not its concern.
  const ffn = stackOperators(stack({ attention: "cudnn-sdpa" }), {
    driver: "block",
    moe: false,
    attention: false,
  });
  assert.ok(ffn.supported && ffn.ops.attention === null);
  const none = stackOperators(stack({}), { driver: "prefill", moe: true });
  assert.ok(!none.supported && /names no MoE experts/.test(none.reason));
  const fused = stackOperators(stack({ experts: "fused-moe" }), { driver: "prefill", moe: true });
  assert.ok(!fused.supported && /fused/.test(fused.reason));
  const dense = stackOperators(stack({ experts: "fused-moe" }), { driver: "prefill", moe: false });
  assert.ok(dense.supported, "experts matter only to a model that has them");
  const bare = parseStackProfile({
    schema: "bitaudit.stack-profile/v1",
    id: "g",
    name: "G",
    components: {},
    gemm: { kernelSource: "recipe" },
    sources: [],
  });
  const r = stackOperators(bare, { driver: "block", moe: false });
  assert.ok(!r.supported && /declares no operators section/.test(r.reason));
});

Deno.test("stackOperators: vLLM custom ops, paged FA2, piecewise and full-and-piecewise graphs resolve (full-graph decode passes are told apart); Inductor and FA3 are named", () => {
  const vllm = {
    attention: "fa2-vllm-paged",
    batching: "flatten",
    layerKernels: "vllm-custom-ops",
  };
  const eager = stackOperators(stack(vllm), { driver: "serving", moe: false });
  assert.ok(eager.supported);
  assert.equal(eager.ops.attention?.paged, true);
  assert.equal(eager.ops.attention?.build?.id, "dao-fastmath"); // vllm-flash-attn: --use_fast_math
  assert.deepEqual(
    [eager.ops.layer.norm, eager.ops.layer.rope, eager.ops.layer.projections],
    ["vllm-cuda", "vllm-cuda", "merged"],
  );
  assert.equal(eager.ops.captureSizes, null);
  const hf = stackOperators(stack({}), { driver: "prefill", moe: false });
  assert.ok(hf.supported && hf.ops.layer.id === "torch" && hf.ops.attention?.paged === false);
  const graphs = { mode: "piecewise", captureSizes: [1, 2, 4, 8] };
  const pw = stackOperators(stack({ ...vllm, cudaGraphs: graphs }), {
    driver: "prefill",
    moe: false,
  });
  assert.ok(pw.supported && pw.ops.captureSizes?.join() === "1,2,4,8" && !pw.ops.fullGraphDecode);
  const full = stackOperators(
    stack({ ...vllm, cudaGraphs: { ...graphs, mode: "full-and-piecewise" } }),
    { driver: "serving", moe: false },
  );
  assert.ok(full.supported && full.ops.fullGraphDecode);
  // Uniform decode batches up to the largest capture size replay full graphs; others do not.
  assert.ok(fullGraphPass(full.ops, [1, 1, 1]));
  assert.ok(!fullGraphPass(full.ops, [1, 2]) && !fullGraphPass(full.ops, Array(9).fill(1)));
  assert.ok(!fullGraphPass(pw.ops, [1, 1]));
  const refused: [Record<string, unknown>, RegExp][] = [
    [{ ...vllm, layerKernels: "vllm-inductor" }, /^layer kernels 'vllm-inductor': .*Inductor/],
    [{ ...vllm, attention: "fa3-vllm" }, /^attention backend 'fa3-vllm': FlashAttention-3/],
    [{ ...vllm, attention: "flashinfer" }, /^attention backend 'flashinfer'/],
  ];
  for (const [ops, why] of refused) {
    const r = stackOperators(stack(ops), { driver: "prefill", moe: false });
    assert.ok(!r.supported && why.test(r.reason), JSON.stringify(ops));
  }
  const block = stackOperators(stack(vllm), { driver: "block", moe: false });
  assert.ok(!block.supported && /block claims is not modelled/.test(block.reason));
});

/** A well-formed all-reduce setup (vLLM's custom all-reduce, symmetric memory off). */
const SETUP = {
  customAllReduce: true,
  torchSymmMem: false,
  ncclSymmMem: false,
  fullyConnected: true,
  multicast: false,
};

Deno.test("parseStackProfile() refuses bad CUDA-graph capture sizes, unknown layer kernels and malformed all-reduce setups", () => {
  const bad: Record<string, unknown>[] = [
    { layerKernels: "vllm-triton" },
    { cudaGraphs: { mode: "piecewise", captureSizes: [] } },
    { cudaGraphs: { mode: "piecewise", captureSizes: [1, 4, 2] } },
    { cudaGraphs: { mode: "piecewise", captureSizes: [0, 1] } },
    { cudaGraphs: { mode: "piecewise", captureSizes: [1, 1.5] } },
    {
      cudaGraphs: {
        mode: "piecewise",
        captureSizes: Array.from({ length: 1025 }, (_, i) => i + 1),
      },
    },
    { cudaGraphs: { mode: "full", captureSizes: [1] } },
    { cudaGraphs: { mode: "piecewise", captureSizes: [1], extra: 1 } },
    { allReduceSetup: { customAllReduce: "yes" } },
    { allReduceSetup: { ...SETUP, customAllReduceAlgo: "3stage" } },
    { allReduceSetup: { ...SETUP, quick: true } },
  ];
  assert.deepEqual(stack({ allReduceSetup: SETUP }).operators?.allReduceSetup, SETUP);
  for (const ops of bad) {
    assert.throws(
      () => stack(ops),
      /Cannot read 'stack\.operators\.(layerKernels|cudaGraphs|allReduceSetup)/,
    );
  }
});
