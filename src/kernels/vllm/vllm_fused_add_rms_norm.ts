/**
 * `vllmFusedAddRmsNorm`: vLLM's CUDA `fused_add_rms_norm` op (`RMSNorm.forward_cuda` with a
 * residual: every decoder layer's input and post-attention norms after the first) bit for bit.
 *
 * Source: vllm-project/vllm commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main):
 * - `vllm/model_executor/layers/layernorm.py:34-44, 208-221`: `forward_cuda` with a residual calls
 *   `ops.fused_add_rms_norm(x, residual, weight, eps)` (in place on both).
 * - `csrc/layernorm_kernels.cu:47-99` (width 8): `temp = input_v[...]; temp += residual_v[...]`
 *   (`_f16Vec::operator+=`, `csrc/type_convert.cuh:94-108`: `__nv_bfloat162 +=`, i.e. `__hadd2`,
 *   one BF16 rounding of the exact sum); the rounded sum is stored to `residual` and its squares
 *   summed (`temp.sum_squares()`, `type_convert.cuh:147-163`);
 *   `cub::BlockReduce<float, 1024>::Reduce(variance, CubAddOp{}, blockDim.x)`;
 *   `rsqrtf(variance / hidden_size + epsilon)`; `temp *= s_variance` (`type_convert.cuh:126-145`:
 *   FP32 product, `__float22bfloat162_rn`), `temp *= weight_v[idx]` (:110-124, `__hmul2`), stored
 *   to `input`. In the CUDA 13.0 `cuda_bf16.hpp` read here (:323-325, :2558-2600, :2644-2675),
 *   `__hadd2`/`__hmul2` are `fma.rn.bf16x2(a, 1, b)`/`fma.rn.bf16x2(a, b, -0)` on sm_80 and
 *   `add.bf16x2`/`mul.bf16x2` on sm_90: one nearest-even rounding of the exact result either way
 *   (the headers of CUDA 12.8, which vLLM 0.11 wheels use, were not read [I]).
 * - :104-137 (generic, width 0): `z += residual[...]` in c10::BFloat16 (FP32 sum, one rounding:
 *   the same bits as `__hadd2`, since FP32 has at least 2 x 8 + 2 bits), `variance += x * x`
 *   over elements t, t + B, ...; the same reduction, scale and output casts.
 * - :379-424 launch: grid = num_tokens, `block = min(hidden_size, num_tokens < 256 ? 1024 : 256)`;
 *   width 8 when the input, residual and weight pointers are 16-byte aligned, `hidden_size % 8 == 0`,
 *   `input_stride % 8 == 0` and not `VLLM_KERNEL_OVERRIDE_BATCH_INVARIANT`; width 0 otherwise.
 *
 * So the result depends on the launch's token count: at 256 tokens and more a block has 256
 * threads instead of up to 1024, each thread sums more elements, and the reduction tree changes.
 *
 * Evidence: derived from source only; never compared with a GPU.
 *
 * GPU-only question: FMA contraction in the sums of squares (width 8: `z.x*z.x + z.y*z.y`;
 * width 0: `variance += x * x`). The default is uncontracted; `contract: true` gives
 * `fma(z.x, z.x, z.y*z.y)` and `fma(x, x, variance)`. They can differ only when a square is below
 * 2^-126.
 *
 * @module
 */
import { _checkShapes, _normRows } from "./_rms_rows.ts";
import type { VllmRmsNormResult } from "./vllm_rms_norm.ts";
import { addBf16 } from "../activation/mod.ts";
import type { Mufu } from "../math/mod.ts";

/** Options of {@link vllmFusedAddRmsNorm}. */
export interface VllmFusedAddRmsNormOptions {
  /** BF16 residual patterns [rows, hidden] (read, not modified: the new residual is returned). */
  readonly residual: Uint16Array;
  /** Rows of `x` (tokens). */
  readonly rows: number;
  /** Normalised length (`hidden_size`). */
  readonly hidden: number;
  /** BF16 weight patterns, `hidden` of them. */
  readonly weight: Uint16Array;
  /** MUFU model for `rsqrtf` (`rsqrt.approx.f32`). */
  readonly mufu: Mufu;
  /**
   * Tokens of the launch (`input.numel() / hidden_size`, the padded count under CUDA graphs)
   * when `x` holds rows of launches of that size (some of one launch's rows, or rows of several
   * such launches: rows never mix); it sets the block size. Default `rows`.
   */
  readonly numTokens?: number;
  /** The kernel variant: 8 (vectorised) or 0 (generic); default 8 when `hidden % 8 == 0`. */
  readonly width?: 0 | 8;
  /** `epsilon` (default 1e-6). */
  readonly eps?: number;
  /** Contract the squares into FFMAs (GPU-only question; default false). */
  readonly contract?: boolean;
}

/** Result of {@link vllmFusedAddRmsNorm}: the norm's output plus the updated residual. */
export interface VllmFusedAddRmsNormResult extends VllmRmsNormResult {
  /** BF16 [rows, hidden]: `bf16(x + residual)`, what the kernel writes back to `residual`. */
  readonly residual: Uint16Array;
  /** The kernel variant used. */
  readonly width: 0 | 8;
}

/**
 * `fused_add_rms_norm(input = x, residual, weight, eps)`: the residual becomes
 * `bf16(x + residual)` and the output (written over `input` on the GPU) is its RMSNorm.
 *
 * @param x BF16 patterns, row-major [rows, hidden] (the layer's new hidden states)
 * @param options residual, shape, weight, MUFU model, launch size, variant, eps, contraction
 * @returns the BF16 output, the new residual and per-row FP32 intermediates
 * @throws {TypeError} when `x`, `residual` or `weight` have the wrong length
 * @throws {RangeError} on bad sizes, `numTokens` below `rows`, or width 8 with `hidden % 8 != 0`
 * @example
 * ```ts
 * import { vllmFusedAddRmsNorm } from "./vllm_fused_add_rms_norm.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * const x = new Uint16Array(8).fill(0x3f80); // 1.0
 * const residual = new Uint16Array(8).fill(0x3f80); // + 1.0 = 2.0
 * const weight = new Uint16Array(8).fill(0x3f80);
 * const r = vllmFusedAddRmsNorm(x, {
 *   residual, rows: 1, hidden: 8, weight, mufu: createSfu({ mode: "ieee" }),
 * });
 * if (r.residual[0] !== 0x4000 || r.sumsq[0] !== 0x42000000 || r.output[0] !== 0x3f80) {
 *   throw new Error(); // 8 x 2^2 = 32; 2 * rsqrt(4 + eps) rounds to 1.0
 * }
 * ```
 */
export function vllmFusedAddRmsNorm(
  x: Uint16Array,
  options: VllmFusedAddRmsNormOptions,
): VllmFusedAddRmsNormResult {
  const { rows, hidden } = options;
  _checkShapes(x, rows, hidden, options.weight);
  if (!(options.residual instanceof Uint16Array) || options.residual.length !== x.length) {
    throw new TypeError(`Cannot normalise: expected ${rows} x ${hidden} BF16 residual values`);
  }
  const residual = addBf16(x, options.residual);
  return Object.freeze({ ...vllmFusedAddRmsNormOfSum(residual, options), residual });
}

/**
 * The norm half of `fused_add_rms_norm`, given the residual sum the kernel writes back
 * (`bf16(x + residual)`): what a layer that computes the residual add itself passes. The same
 * bits as {@link vllmFusedAddRmsNorm}'s output for that sum.
 *
 * @param sum BF16 patterns [rows, hidden]: the new residual
 * @param options shape, weight, MUFU model, launch tokens, width, eps, contraction (`residual`
 *   is not read)
 * @returns the output and per-row FP32 intermediates
 * @throws {TypeError|RangeError} as {@link vllmFusedAddRmsNorm}
 * @example
 * ```ts
 * import { vllmFusedAddRmsNorm, vllmFusedAddRmsNormOfSum } from "./vllm_fused_add_rms_norm.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * const mufu = createSfu({ mode: "ieee", ftz: true });
 * const one = new Uint16Array(8).fill(0x3f80);
 * const a = vllmFusedAddRmsNorm(one, { residual: one, rows: 1, hidden: 8, weight: one, mufu });
 * const b = vllmFusedAddRmsNormOfSum(a.residual, { rows: 1, hidden: 8, weight: one, mufu });
 * if (a.output.join() !== b.output.join()) throw new Error();
 * ```
 */
export function vllmFusedAddRmsNormOfSum(
  sum: Uint16Array,
  options: Omit<VllmFusedAddRmsNormOptions, "residual">,
): Omit<VllmFusedAddRmsNormResult, "residual"> {
  const { rows, hidden, weight } = options;
  const x = sum;
  _checkShapes(x, rows, hidden, weight);
  const numTokens = options.numTokens ?? rows;
  if (!Number.isInteger(numTokens) || numTokens < 1) {
    throw new RangeError(`Cannot normalise: numTokens ${numTokens} must be a positive integer`);
  }
  const width = options.width ?? (hidden % 8 === 0 ? 8 : 0);
  if (width !== 0 && width !== 8) {
    throw new RangeError(`Cannot normalise: width ${width} is neither 0 nor 8`);
  }
  if (width === 8 && hidden % 8 !== 0) {
    throw new RangeError(`Cannot normalise: width 8 needs hidden % 8 == 0, got hidden ${hidden}`);
  }
  const blockThreads = vllmFusedNormThreads(hidden, numTokens);
  const { output, sumsq, rstd } = _normRows(x, { ...options, blockThreads, width });
  return Object.freeze({ output, sumsq, rstd, blockThreads, width });
}

/**
 * `fused_add_rms_norm`'s block size (`csrc/layernorm_kernels.cu:394-395`):
 * `min(hidden, num_tokens < 256 ? 1024 : 256)` threads per token.
 *
 * @param hidden the normalised length
 * @param numTokens the launch's tokens
 * @returns the block's thread count
 * @example
 * ```ts
 * import { vllmFusedNormThreads } from "./vllm_fused_add_rms_norm.ts";
 * if (vllmFusedNormThreads(2560, 255) !== 1024 || vllmFusedNormThreads(2560, 256) !== 256) throw new Error();
 * ```
 */
export function vllmFusedNormThreads(hidden: number, numTokens: number): number {
  return Math.min(hidden, numTokens < 256 ? 1024 : 256);
}
