import assert from "node:assert/strict";
import { meetsSfuStatus, SFU_IEEE_V1, SFU_TESLA_V1 } from "../../src/hardware/mod.ts";
import { isVllmStack, parseStackProfile } from "../../src/kernels/mod.ts";

const base = {
  schema: "bitaudit.stack-profile/v1",
  id: "hf-qwen3-eager",
  name: "HF Qwen3 eager",
  components: { pytorch: "2.5.1" },
  gemm: { kernelSource: "catalog" },
  sources: [],
};

Deno.test("parseStackProfile() reads an optional SFU section and refuses unknown modes and statuses", () => {
  const s = parseStackProfile({
    ...base,
    sfu: { mode: "tesla-table", minimumStatus: "histogram-matched" },
  });
  assert.equal(s.sfu?.minimumStatus, "histogram-matched");
  assert.equal(parseStackProfile(base).sfu, undefined);
  assert.throws(
    () => parseStackProfile({ ...base, sfu: { mode: "fast", minimumStatus: "spot-checked" } }),
    /stack\.sfu\.mode/,
  );
  assert.throws(
    () => parseStackProfile({ ...base, sfu: { mode: "ieee", minimumStatus: "good" } }),
    /minimumStatus/,
  );
  assert.throws(() => parseStackProfile({ ...base, extra: 1 }), /unknown field/);
});

Deno.test("meetsSfuStatus() lets a stack refuse the spot-checked ex2 of the table model", () => {
  const need = "histogram-matched";
  assert.equal(meetsSfuStatus(SFU_TESLA_V1.functions.rsqrt.status, need), true);
  assert.equal(meetsSfuStatus(SFU_TESLA_V1.functions.ex2.status, need), false);
  assert.equal(
    meetsSfuStatus(SFU_IEEE_V1.functions.ex2.status, need),
    false,
    "ieee never stands in for hardware",
  );
  assert.equal(meetsSfuStatus(SFU_IEEE_V1.functions.ex2.status, "ieee-exact"), true);
});

Deno.test("parseStackProfile() reads an optional operators section and refuses unknown backends", () => {
  const s = parseStackProfile({
    ...base,
    operators: { torch: "2.11.0", attention: "cudnn-sdpa" },
  });
  assert.deepEqual(s.operators, { torch: "2.11.0", attention: "cudnn-sdpa" });
  assert.throws(
    () => parseStackProfile({ ...base, operators: { torch: "2.8.0", attention: "flash3" } }),
    /stack\.operators\.attention/,
  );
  assert.throws(
    () => parseStackProfile({ ...base, operators: { torch: "latest", attention: "eager" } }),
    /stack\.operators\.torch/,
  );
});

Deno.test("parseStackProfile() refuses a stack mixing engines: vLLM's release (under that key alone), layer kernels, attention, experts, tensor-parallel layout, flattened batches, CUDA graphs and all-reduce setup go together (every vLLM rule asks isVllmStack)", () => {
  const ops = { torch: "2.8.0", attention: "fa2-vllm-paged", batching: "flatten" };
  const vllm = { ...base, components: { vllm: "0.11.0" } };
  const setup = {
    customAllReduce: true,
    torchSymmMem: false,
    ncclSymmMem: false,
    fullyConnected: true,
    multicast: false,
  };
  const honest = parseStackProfile({
    ...vllm,
    operators: { ...ops, layerKernels: "vllm-custom-ops", allReduceSetup: setup },
  });
  assert.equal(isVllmStack(honest), true);
  const hfOps = { ...ops, attention: "fa2-dao-fastmath" };
  assert.equal(isVllmStack(parseStackProfile({ ...base, operators: hfOps })), false);
  const bad: [object, RegExp][] = [
    // vLLM named, HF's layer kernels (the default or stated): the LM head and cascade rules split.
    [{ ...vllm, operators: ops }, /layerKernels': a stack naming vLLM .* not 'torch'/],
    [{ ...vllm, operators: { ...ops, layerKernels: "torch" } }, /not 'torch'/],
    // vLLM's kernels without the release.
    [
      { ...base, operators: { ...hfOps, layerKernels: "vllm-custom-ops" } },
      /layer kernels 'vllm-custom-ops' are vLLM's/,
    ],
    [
      { ...base, operators: { ...hfOps, allReduceSetup: setup } },
      /'stack\.operators\.allReduceSetup'/,
    ],
    [
      { ...base, operators: { ...hfOps, cudaGraphs: { mode: "piecewise", captureSizes: [1, 2] } } },
      /'stack\.operators\.cudaGraphs': vLLM's setting/,
    ],
    // vLLM's attention, experts or tensor-parallel layout without the release, and HF's (or
    // padded batches) on a stack naming it.
    [{ ...base, operators: ops }, /'stack\.operators\.attention': 'fa2-vllm-paged' is vLLM's/],
    [
      { ...base, operators: { ...hfOps, experts: "vllm-fused-moe" } },
      /'stack\.operators\.experts': 'vllm-fused-moe' is vLLM's/,
    ],
    [
      { ...base, operators: { ...hfOps, tensorParallel: "vllm-megatron" } },
      /'stack\.operators\.tensorParallel': 'vllm-megatron' is vLLM's/,
    ],
    [
      { ...vllm, operators: { ...hfOps, layerKernels: "vllm-custom-ops" } },
      /'stack\.operators\.attention': 'fa2-dao-fastmath' is not vLLM's/,
    ],
    [
      {
        ...vllm,
        operators: { ...ops, layerKernels: "vllm-custom-ops", experts: "hf-loop-index-add" },
      },
      /'stack\.operators\.experts': 'hf-loop-index-add' is not vLLM's/,
    ],
    [
      {
        ...vllm,
        operators: { ...ops, layerKernels: "vllm-custom-ops", tensorParallel: "hf-tp-plan" },
      },
      /'stack\.operators\.tensorParallel': 'hf-tp-plan' is not vLLM's/,
    ],
    [
      {
        ...vllm,
        operators: { ...ops, layerKernels: "vllm-custom-ops", batching: "pad-to-longest" },
      },
      /vLLM flattens its batches, not 'pad-to-longest'/,
    ],
    // vLLM's release under another spelling would escape every vLLM rule; one library, one key.
    [
      { ...base, components: { vLLM: "0.11.0" }, operators: hfOps },
      /'stack\.components\.vLLM': vLLM's release is named 'vllm'/,
    ],
    [
      { ...base, components: { "vllm ": "0.11.0" }, operators: hfOps },
      /vLLM's release is named 'vllm'/,
    ],
    [
      { ...base, components: { torch: "2.8.0", PyTorch: "2.8.0" } },
      /'torch' and 'PyTorch' name one component/,
    ],
  ];
  for (const [json, re] of bad) assert.throws(() => parseStackProfile(json), re);
});
