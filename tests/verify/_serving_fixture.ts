/**
 * The serving scenario of the sequence tests: one GEMM record, then `requests` sequences per
 * bundled tiny checkpoint (dense, MoE) served by the continuous-batching engine.
 *
 * @module
 */

/** A scenario with one GEMM record and `requests` sequences per bundled checkpoint. */
export function servingScenario(falsify: unknown[] = [], requests = 5): unknown {
  return {
    schema: "bitaudit.prover-scenario/v1",
    logId: "serving-test",
    seed: "serving-test-v3",
    hardware: { profile: "a100", count: 1 },
    software: { stack: "pytorch-cublas-linear", components: {} },
    catalog: "demo-small-transformer-a100",
    model: { name: "one gemm", layers: 1, projections: [{ name: "q_proj", n: 128, k: 256 }] },
    batchSizes: [2],
    records: 1,
    serving: {
      stack: "hf-qwen3-continuous-batching-torch2.8-lg2-model",
      components: { pytorch: "2.8.0", flash_attn: "2.8.3" },
      catalog: "demo-qwen3-tiny-a100",
      multiProcessorCount: 108,
      checkpoints: ["tables/models/qwen3-tiny-dense", "tables/models/qwen3-tiny-moe"],
      requests,
      arrivalSteps: 4,
      promptLengths: [3, 7, 12, 200],
      generate: [1, 3, 5],
      tokenBudget: 40,
      maxChunk: 32,
      layerChain: true,
    },
    falsify,
  };
}
