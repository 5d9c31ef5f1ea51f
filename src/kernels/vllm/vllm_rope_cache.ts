/**
 * The rotary-embedding cos/sin cache as vLLM builds it on the GPU at model load, bit for bit.
 *
 * Source: vllm-project/vllm commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main),
 * `vllm/model_executor/layers/rotary_embedding/base.py`:
 * - :53-61 `_compute_inv_freq`: `1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=float) /
 *   rotary_dim))`, on the GPU (the model is built under `with target_device:`; the comment at
 *   :55-58 says so). PyTorch's CUDA kernels: `tensor / int` multiplies by the host reciprocal
 *   (`div_true_kernel_cuda`: `a * (1 / b)`, FP32, exact for a power-of-two `rotary_dim`);
 *   `float ** tensor` runs `pow_(base, exp)` = `::pow(float, float)` = libdevice `powf`
 *   (`PowKernel.cu`, `Pow.cuh`); `1.0 / tensor` is `Tensor.__rtruediv__` = `reciprocal() * 1.0`
 *   (`1.0f / a`, IEEE division, then an exact multiply by one).
 * - :63-72 `_compute_cos_sin_cache`: `freqs = einsum("i,j->ij", arange(max_pos, float), inv_freq)`
 *   (one FP32 product per entry), `cache = cat(freqs.cos(), freqs.sin(), dim=-1)` with libdevice
 *   `cosf`/`sinf`, then :45-47 `cache.to(dtype)`: nearest-even BF16.
 * Each cache row depends only on its position, so rows are built for the positions asked for.
 *
 * The host `inv_freq` of HF (`ropeInvFreq`: x86-64 PyTorch's CPU `pow`, SLEEF's vectorised
 * `powf`, not correctly rounded) and this GPU one can differ in the last bit; the tables built from
 * them then differ too (tests name witnesses).
 *
 * Evidence: derived from source only (vLLM and PyTorch), with libdevice `powf` checked against the
 * CPU-compiled bitcode; never compared with a GPU. GPU-only question: the contraction inside
 * `powf` (see `cudaPowf`).
 *
 * @module
 */
import { divF32, F32_RN } from "../../hardware/mod.ts";
import { bitsFromF32, fp32ToBf16 } from "../../numerics/mod.ts";
import { cudaCosf, cudaSinf, type Mufu } from "../math/mod.ts";
import { cudaPowf } from "./cuda_powf.ts";

/** Options of {@link vllmRopeInvFreq}. */
export interface VllmRopeInvFreqOptions {
  /** `rope_theta` (the Python float `base`). */
  readonly base: number;
  /** MUFU model (`powf` executes MUFU.RCP). */
  readonly mufu: Mufu;
  /** Contract `powf`'s log step (GPU-only question; default false). */
  readonly contract?: boolean;
}

/**
 * `inv_freq` as vLLM computes it on the GPU: for i < rotaryDim / 2,
 * `t = fl32(fl32(2i) * fl32(1 / rotaryDim))`, `p = powf(fl32(base), t)`, `inv = 1.0f / p`.
 *
 * @param rotaryDim `rotary_dim` (even; the head size for Qwen3)
 * @param options base, MUFU model, contraction
 * @returns rotaryDim / 2 FP32 patterns
 * @throws {RangeError} for a rotary dimension that is not a positive even integer, or a base that
 *   is not a positive finite number
 * @example
 * ```ts
 * import { vllmRopeInvFreq } from "./vllm_rope_cache.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * const inv = vllmRopeInvFreq(128, { base: 1_000_000, mufu: createSfu({ mode: "ieee", ftz: true }) });
 * if (inv.length !== 64 || inv[0] !== 0x3f800000) throw new Error(); // base^0 = 1
 * ```
 */
export function vllmRopeInvFreq(rotaryDim: number, options: VllmRopeInvFreqOptions): Uint32Array {
  if (!Number.isInteger(rotaryDim) || rotaryDim < 2 || rotaryDim % 2 !== 0) {
    throw new RangeError(
      `Cannot compute inv_freq: rotary_dim ${rotaryDim} is not positive and even`,
    );
  }
  if (!(Number.isFinite(options.base) && options.base > 0)) {
    throw new RangeError(`Cannot compute inv_freq: base ${options.base} is not a positive number`);
  }
  const base = bitsFromF32(Math.fround(options.base));
  const reciprocal = bitsFromF32(Math.fround(1 / rotaryDim)); // the host's scalar reciprocal
  const powOptions = { mufu: options.mufu, contract: options.contract === true };
  const out = new Uint32Array(rotaryDim / 2);
  for (let i = 0; i < out.length; i++) {
    const t = F32_RN.mul(bitsFromF32(2 * i), reciprocal);
    out[i] = divF32(0x3f800000, cudaPowf(base, t, powOptions));
  }
  return out;
}

/** vLLM's BF16 `cos_sin_cache` rows: per row, rotaryDim / 2 cos values then as many sin values. */
export interface VllmCosSinCache {
  /** BF16 patterns [rows, rotaryDim]. */
  readonly data: Uint16Array;
  /** `rotary_dim`. */
  readonly rotaryDim: number;
  /** The position of each row. */
  readonly positions: readonly number[];
}

/**
 * Builds the cache rows of the given positions: `cos(fl32(p * inv_freq[i]))` and
 * `sin(fl32(p * inv_freq[i]))` through libdevice `cosf`/`sinf`, rounded to BF16.
 *
 * @param invFreq the `inv_freq` FP32 patterns (`vllmRopeInvFreq`)
 * @param positions positions (integers below 2^24, exact in FP32), one cache row each
 * @returns the cache rows
 * @throws {RangeError} for a position that is not an integer in 0..2^24-1
 * @example
 * ```ts
 * import { vllmCosSinCache } from "./vllm_rope_cache.ts";
 * const c = vllmCosSinCache(new Uint32Array([0x3f800000]), [0]);
 * if (c.data[0] !== 0x3f80 || c.data[1] !== 0x0000) throw new Error(); // cos 0, sin 0
 * ```
 */
export function vllmCosSinCache(
  invFreq: Uint32Array,
  positions: readonly number[],
): VllmCosSinCache {
  const half = invFreq.length;
  const data = new Uint16Array(positions.length * 2 * half);
  positions.forEach((p, r) => {
    if (!Number.isInteger(p) || p < 0 || p >= 2 ** 24) {
      throw new RangeError(`Cannot build the RoPE cache: position ${p} is not in 0..2^24-1`);
    }
    const pos = bitsFromF32(p);
    for (let i = 0; i < half; i++) {
      const freq = F32_RN.mul(pos, invFreq[i]!);
      data[2 * half * r + i] = fp32ToBf16(cudaCosf(freq));
      data[2 * half * r + half + i] = fp32ToBf16(cudaSinf(freq));
    }
  });
  return Object.freeze({ data, rotaryDim: 2 * half, positions: Object.freeze([...positions]) });
}
