/**
 * `vllmRmsNorm`: vLLM's CUDA `rms_norm` op (`torch.ops._C.rms_norm`, used by `RMSNorm.forward_cuda`
 * without a residual: Qwen3's q/k norms and the first layer's input norm) bit for bit.
 *
 * Source: vllm-project/vllm commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main):
 * `vllm/model_executor/layers/layernorm.py:20-31, 208-221` (`forward_cuda` without a residual calls
 * `ops.rms_norm(out, x, weight, eps)`), and `csrc/layernorm_kernels.cu`:
 * - :13-41 `rms_norm_kernel`: one block per row; thread t sums `x * x` (FP32) over elements t,
 *   t + B, ...; `cub::BlockReduce<float, 1024>::Reduce(variance, CubAddOp{}, blockDim.x)`
 *   (`csrc/cub_helpers.h`: `cub::Sum` before CCCL 2.8, `cuda::std::plus<>` after; both FP32 add);
 *   thread 0 computes `rsqrtf(variance / hidden_size + epsilon)`; each element becomes
 *   `((scalar_t)(x * s_variance)) * weight[idx]` with `scalar_t` = c10::BFloat16 (FP32 product
 *   rounded by `__float2bfloat16` on sm_80+, then c10's BF16 x BF16 through FP32, rounded again).
 * - :346-367 launch: grid = rows, `block = min(hidden_size, 1024)`.
 * No width-8 path exists for this kernel at this commit.
 *
 * Evidence: derived from source only; never compared with a GPU.
 *
 * GPU-only question: whether nvcc (default `--fmad=true`) contracts `variance += x * x` into
 * `fma(x, x, variance)`. The default here is the uncontracted form; `contract: true` gives the fused
 * one. They can differ only when a square is below 2^-126 (a BF16 square is otherwise exact in FP32),
 * so only the sums of rows with tiny entries can tell them apart.
 *
 * @module
 */
import { _checkShapes, _normRows } from "./_rms_rows.ts";
import type { Mufu } from "../math/mod.ts";

/** Options of {@link vllmRmsNorm}. */
export interface VllmRmsNormOptions {
  /** Rows (tokens, or tokens x heads for the q/k norms). */
  readonly rows: number;
  /** Normalised length (`hidden_size`, `input.size(-1)`). */
  readonly hidden: number;
  /** BF16 weight patterns, `hidden` of them. */
  readonly weight: Uint16Array;
  /** MUFU model for `rsqrtf` (`rsqrt.approx.f32`). */
  readonly mufu: Mufu;
  /** `epsilon` (a Python float, passed as a C++ float; default 1e-6). */
  readonly eps?: number;
  /** Contract `variance += x * x` into an FFMA (GPU-only question; default false). */
  readonly contract?: boolean;
}

/** Output and per-row intermediates of the vLLM norm kernels. */
export interface VllmRmsNormResult {
  /** BF16 [rows, hidden]. */
  readonly output: Uint16Array;
  /** FP32 per row: the block sum of squares (thread 0's `variance`). */
  readonly sumsq: Uint32Array;
  /** FP32 per row: `s_variance`. */
  readonly rstd: Uint32Array;
  /** `blockDim.x` of the launch (the reduction tree depends on it). */
  readonly blockThreads: number;
}

/**
 * RMSNorm of a BF16 [rows, hidden] matrix as `rms_norm_kernel` computes it.
 *
 * @param x BF16 patterns, row-major [rows, hidden]
 * @param options shape, weight, MUFU model, eps, contraction
 * @returns the BF16 output and per-row FP32 intermediates
 * @throws {TypeError} when `x` or `weight` have the wrong length
 * @throws {RangeError} when a size is not a positive integer below 2^24
 * @example
 * ```ts
 * import { vllmRmsNorm } from "./vllm_rms_norm.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * // A row of 2.0: sum of squares 8, 8 / 2 + eps = 4 (+eps), rsqrt ~ 0.5, so 1.0 * weight 1.0.
 * const x = new Uint16Array(2).fill(0x4000);
 * const weight = new Uint16Array(2).fill(0x3f80);
 * const mufu = createSfu({ mode: "ieee" });
 * const r = vllmRmsNorm(x, { rows: 1, hidden: 2, weight, mufu });
 * if (r.sumsq[0] !== 0x41000000 || r.output[0] !== 0x3f80 || r.blockThreads !== 2) throw new Error();
 * ```
 */
export function vllmRmsNorm(x: Uint16Array, options: VllmRmsNormOptions): VllmRmsNormResult {
  const { rows, hidden, weight } = options;
  _checkShapes(x, rows, hidden, weight);
  const blockThreads = vllmRmsNormThreads(hidden);
  const { output, sumsq, rstd } = _normRows(x, { ...options, blockThreads, width: 0 });
  return Object.freeze({ output, sumsq, rstd, blockThreads });
}

/**
 * `rms_norm`'s block size (`csrc/layernorm_kernels.cu:359`): `min(hidden, 1024)` threads per
 * row, whatever the launch's token count.
 *
 * @param hidden the normalised length
 * @returns the block's thread count
 * @example
 * ```ts
 * import { vllmRmsNormThreads } from "./vllm_rms_norm.ts";
 * if (vllmRmsNormThreads(128) !== 128 || vllmRmsNormThreads(4096) !== 1024) throw new Error();
 * ```
 */
export function vllmRmsNormThreads(hidden: number): number {
  return Math.min(hidden, 1024);
}
