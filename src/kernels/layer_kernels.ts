/**
 * The kernels of a decoder layer's small operators (RMSNorm, RoPE, the MLP activation) and the
 * shape of its projections, as data a stack names (`operators.layerKernels`): which sets this
 * emulator models and, for the others, why not.
 *
 * - `torch`: HF Transformers on eager PyTorch: RMSNorm through PyTorch's reduce kernel of the
 *   release, RoPE from the CPU-built `inv_freq` (x86-64 PyTorch with AVX2 or AVX-512 dispatch:
 *   SLEEF's vectorised `powf`, `ropeInvFreq`) with BF16 products, `silu(gate) * up` on the
 *   elementwise kernels, q/k/v and gate/up as separate GEMMs.
 * - `vllm-custom-ops`: vLLM 0.11 with its CUDA custom ops (`--enforce-eager`, or
 *   `custom_ops=["all"]`; spec `parallel_and_vllm.md` §B0-§B3): `rms_norm` for the first layer's
 *   input norm and QK-norm, `fused_add_rms_norm` wherever a residual is carried (block size
 *   switching at 256 tokens), `rotary_embedding` over the GPU-built BF16 cos/sin cache,
 *   `silu_and_mul` on the merged gate/up output, the merged `qkv_proj` / `gate_up_proj`
 *   GEMMs of `QKVParallelLinear` / `MergedColumnParallelLinear`, and an LM head over the
 *   vocabulary padded to a multiple of 64 (`vocab_parallel_embedding.py:23`, `pad_vocab_size`).
 *   Derived from source only.
 * - `vllm-inductor`: vLLM's default (custom ops off under torch.compile): Inductor-generated
 *   Triton kernels, not modelled.
 *
 * @module
 */

/** Layer kernel sets a stack profile can name. */
export const LAYER_KERNELS_IDS = ["torch", "vllm-custom-ops", "vllm-inductor"] as const;
Object.freeze(LAYER_KERNELS_IDS);

/** One of {@link LAYER_KERNELS_IDS}. */
export type LayerKernelsId = typeof LAYER_KERNELS_IDS[number];

/** What a modelled kernel set runs. */
export interface LayerKernels {
  /** The set. */
  readonly id: Exclude<LayerKernelsId, "vllm-inductor">;
  /** RMSNorm (and QK-norm): PyTorch's reduce kernel, or vLLM's CUDA norms. */
  readonly norm: "torch-reduce" | "vllm-cuda";
  /** RoPE: HF's tables and BF16 products, or vLLM's cache and CUDA kernel. */
  readonly rope: "hf" | "vllm-cuda";
  /** The MLP activation: HF's `silu(gate) * up`, or vLLM's `silu_and_mul`. */
  readonly activation: "torch-silu-mul" | "vllm-silu-and-mul";
  /** q/k/v and gate/up: separate GEMMs, or one merged GEMM each. */
  readonly projections: "separate" | "merged";
  /**
   * The LM head's rows are the vocabulary padded to a multiple of this (vLLM's
   * `ParallelLMHead`: `pad_vocab_size`, 64; padded rows are never read as logits), which sets
   * its GEMM's N; 1: the vocabulary itself.
   */
  readonly vocabPadding: number;
  /**
   * How the set is known: derived from source for both. HF's Qwen3 layer on the `torch` kernels
   * gave the seed paper's GPU-validated emulator's bits over one whole Qwen3-0.6B forward (not
   * bundled), but at a hidden size where that emulator's norms are not PyTorch's, so no norm over
   * the hidden size was compared with GPU-validated bits.
   */
  readonly evidence: "derived-from-source";
}

/** A kernel set, or why it is not modelled. */
export type LayerKernelsSupport =
  | { readonly modelled: true; readonly kernels: LayerKernels }
  | { readonly modelled: false; readonly reason: string };

const _SETS: Readonly<Record<LayerKernelsId, LayerKernels | string>> = Object.freeze({
  "torch": Object.freeze({
    id: "torch",
    norm: "torch-reduce",
    rope: "hf",
    activation: "torch-silu-mul",
    projections: "separate",
    vocabPadding: 1,
    evidence: "derived-from-source",
  }),
  "vllm-custom-ops": Object.freeze({
    id: "vllm-custom-ops",
    norm: "vllm-cuda",
    rope: "vllm-cuda",
    activation: "vllm-silu-and-mul",
    projections: "merged",
    vocabPadding: 64,
    evidence: "derived-from-source",
  }),
  "vllm-inductor": "vLLM's default compiled path runs RMSNorm, RoPE and SiLU as " +
    "Inductor-generated Triton kernels (custom ops off under torch.compile), whose reduction " +
    "trees and fused roundings depend on autotuned configurations only a GPU run can show; run " +
    'with --enforce-eager or -O \'{"custom_ops":["all"]}\' for the modelled CUDA custom ops',
});

/**
 * The kernels of a set, or why it is not modelled.
 *
 * @param id the stack's `operators.layerKernels`
 * @returns the kernels, or the reason
 * @throws {RangeError} for an id no stack may name
 * @example
 * ```ts
 * import { layerKernels } from "./layer_kernels.ts";
 * const v = layerKernels("vllm-custom-ops");
 * if (!v.modelled || v.kernels.projections !== "merged") throw new Error();
 * if (layerKernels("vllm-inductor").modelled) throw new Error();
 * ```
 */
export function layerKernels(id: string): LayerKernelsSupport {
  if (!Object.hasOwn(_SETS, id)) {
    throw new RangeError(
      `Cannot look up layer kernels '${id}': expected one of ${LAYER_KERNELS_IDS.join(", ")}`,
    );
  }
  const s = _SETS[id as LayerKernelsId];
  return typeof s === "string" ? { modelled: false, reason: s } : { modelled: true, kernels: s };
}

/**
 * The SFU functions a kernel set's norms, RoPE and activation use beyond RMSNorm's `rsqrt` and
 * SiLU's `ex2`: vLLM's GPU-built RoPE cache divides in libdevice `powf` through MUFU.RCP
 * (`cosf`/`sinf` are software).
 *
 * @param kernels the set
 * @returns the extra function names
 * @example
 * ```ts
 * import { layerKernels, layerSfuFunctions } from "./layer_kernels.ts";
 * const v = layerKernels("vllm-custom-ops");
 * if (!v.modelled || layerSfuFunctions(v.kernels).join() !== "rcp") throw new Error();
 * ```
 */
export function layerSfuFunctions(kernels: Pick<LayerKernels, "rope">): string[] {
  return kernels.rope === "vllm-cuda" ? ["rcp"] : [];
}
