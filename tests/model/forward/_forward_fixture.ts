/**
 * Runtimes and checkpoints of the forward tests.
 *
 * @module
 */
import { createSfu } from "../../../src/hardware/mod.ts";
import { createGemmEngine, type GemmEngine } from "../../../src/engine/mod.ts";
import {
  flashAttentionForward,
  type GemmRecipe,
  type KWalker,
  parseStackProfile,
  referenceKWalker,
  type StackProfile,
} from "../../../src/kernels/mod.ts";
import {
  type BlockRuntime,
  type DecoderCheckpoint,
  fixedRecipeDispatch,
  type GemmDispatch,
  openDecoderCheckpoint,
} from "../../../src/model/mod.ts";
import { profile } from "../blocks/_block_fixture.ts";
import { memFiles, synthDir, TINY_DENSE, TINY_MOE } from "../checkpoint/_checkpoint_fixture.ts";

/** Test configs with GQA groups of 2 (4 query heads, 2 KV heads). */
export const GQA_DENSE = Object.freeze({
  ...TINY_DENSE,
  num_attention_heads: 4,
  num_key_value_heads: 2,
});
/** The MoE counterpart. */
export const GQA_MOE = Object.freeze({
  ...TINY_MOE,
  num_attention_heads: 4,
  num_key_value_heads: 2,
});

/** Opens a synthetic checkpoint of a config. */
export function checkpoint(config: object, seed = "forward-test"): Promise<DecoderCheckpoint> {
  return openDecoderCheckpoint(memFiles(synthDir(config, { seed })));
}

/**
 * A vLLM 0.11 stack for forward tests (IEEE SFU, recipe kernels, paged FA2, fused MoE, vLLM's
 * layout and custom ops), with piecewise CUDA graphs of `graphs` sizes and `extra` operators.
 */
export function vllmForwardStack(
  o: { graphs?: readonly number[]; extra?: object } = {},
): StackProfile {
  return parseStackProfile({
    schema: "bitaudit.stack-profile/v1",
    id: "test-vllm",
    name: "test",
    components: { vllm: "0.11.0" },
    gemm: { kernelSource: "recipe" },
    sfu: { mode: "ieee", minimumStatus: "ieee-exact" },
    operators: {
      torch: "2.8.0",
      attention: "fa2-vllm-paged",
      batching: "flatten",
      experts: "vllm-fused-moe",
      tensorParallel: "vllm-megatron",
      layerKernels: "vllm-custom-ops",
      ...(o.graphs === undefined
        ? {}
        : { cudaGraphs: { mode: "piecewise", captureSizes: o.graphs } }),
      ...o.extra,
    },
    sources: [],
  });
}

/** A stack for forward tests (IEEE SFU, recipe kernels). */
export function forwardStack(
  o: { attention?: string; batching?: string; torch?: string; experts?: string } = {},
): StackProfile {
  return parseStackProfile({
    schema: "bitaudit.stack-profile/v1",
    id: "test-forward",
    name: "test",
    components: {},
    gemm: { kernelSource: "recipe" },
    sfu: { mode: "ieee", minimumStatus: "ieee-exact" },
    operators: {
      torch: o.torch ?? "2.8.0",
      attention: o.attention ?? "fa2-dao-fastmath",
      batching: o.batching ?? "pad-to-longest",
      experts: o.experts ?? "hf-loop-index-add",
    },
    sources: [],
  });
}

/** The bundled wasm GEMM engine (same bits as the reference K-walk, much faster). */
export const ENGINE: GemmEngine = createGemmEngine(
  Deno.readFileSync(new URL("../../../tables/wasm/gemm_engine.wasm", import.meta.url)),
);

/** K-walks on the calling thread's engine (reference walk for datapaths it lacks). */
export const engineWalker: KWalker = (dp, job) =>
  ENGINE.supports(dp) ? Promise.resolve(ENGINE.kWalk(dp, job)) : referenceKWalker(dp, job);

/** A runtime with the engine's K-walk (calling thread) and the IEEE SFU. */
export function forwardRuntime(
  o: { stack?: StackProfile; gpu?: string; recipe?: GemmRecipe; gemm?: GemmDispatch } = {},
): BlockRuntime {
  return {
    profile: profile(o.gpu ?? "a100"),
    stack: o.stack ?? forwardStack(),
    gemm: o.gemm ?? fixedRecipeDispatch(o.recipe ?? { family: "single_walk" }),
    walker: engineWalker,
    attention: (inputs, opts) =>
      flashAttentionForward(inputs, { ...opts, kWalk: ENGINE.kWalkAuto }),
    sfu: createSfu({ mode: "ieee" }),
  };
}

/** Dispatch by M, like a cuBLAS heuristic: split-K below `splitBelow` rows. */
export function mDispatch(splitBelow: number): GemmDispatch {
  return (call) => ({
    covered: true,
    recipe: call.m < splitBelow
      ? { family: "serial_split_k", splitK: 2, tileK: 64 }
      : { family: "single_walk" },
  });
}
