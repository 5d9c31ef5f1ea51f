/**
 * `setReduceConfig` of PyTorch's Reduce.cuh for a sum over the last, contiguous dimension:
 * vectorisation, block shape and the split of the input over lanes and warps (ops.md §1.1).
 *
 * @module
 */
import type { ReduceStack } from "./reduce_stack.ts";

/** The launch configuration that decides the reduction tree of one output row. */
export interface ReduceConfig {
  /** Number of output rows (`num_outputs`, e.g. tokens x heads for QK-norm). */
  readonly outputs: number;
  /** Reduced length H (`inputs_per_output`). */
  readonly length: number;
  /** Whether the thread loop loads `inputVecSize`-element vectors (`vectorize_input`). */
  readonly vectorize: boolean;
  /** `blockDim.x`: threads cooperating on one row. */
  readonly blockWidth: number;
  /** `blockDim.y`: rows per block, or warps sharing one row when `splitY`. */
  readonly blockHeight: number;
  /** Whether the row is also split over `threadIdx.y` (`input_mult[1] != 0`, block_y_reduce). */
  readonly splitY: boolean;
  /** Threads per row: blockWidth, times blockHeight when `splitY`. */
  readonly threadsPerRow: number;
  /** `step_input`: stride of a thread's loop, in vectors (vectorised) or elements. */
  readonly stepInput: number;
  /** `values_per_thread()` = ceil(length / stepInput), as PyTorch computes it. */
  readonly valuesPerThread: number;
}

/**
 * Largest power of two <= n, at least 1 (Reduce.cuh `last_pow2`).
 *
 * @param n positive integer
 * @returns the power of two
 * @example
 * ```ts
 * import { lastPow2 } from "./reduce_config.ts";
 * if (lastPow2(640) !== 512 || lastPow2(1) !== 1 || lastPow2(0) !== 1) throw new Error();
 * ```
 */
export function lastPow2(n: number): number {
  return n < 1 ? 1 : 2 ** Math.floor(Math.log2(n));
}

/**
 * Computes the Reduce.cuh configuration for `outputs` rows of `length` contiguous FP32 values.
 *
 * Follows `setReduceConfig`: `dim0 = length`, divided by the vector width when vectorising;
 * `dim1 = outputs`; `set_block_dimension`; `input_mult[0] = 1` (split over lanes); split over
 * warps when `values_per_thread >= min(16 * blockHeight, 256)`. The split across CTAs
 * (`values_per_thread >= 256` after the warp split) depends on the SM count and is not modelled:
 * it throws. So do shapes beyond 32-bit indexing (more than 2^31 - 1 bytes).
 *
 * @param shape `outputs` rows and the reduced `length`
 * @param options `stack` facts and `elementBytes` of the reduced dtype (4 for FP32)
 * @returns the frozen configuration
 * @throws {RangeError} on non-positive sizes or an unmodelled (multi-CTA) configuration
 * @example
 * ```ts
 * import { reduceConfig } from "./reduce_config.ts";
 * import { REDUCE_STACK_CUDA_RECENT as stack } from "./reduce_stack.ts";
 * const c = reduceConfig({ outputs: 16, length: 2560 }, { stack });
 * if (c.blockWidth !== 32 || c.blockHeight !== 16 || c.valuesPerThread !== 80) throw new Error();
 * if (reduceConfig({ outputs: 1, length: 2560 }, { stack }).blockWidth !== 512) throw new Error();
 * ```
 */
export function reduceConfig(
  shape: { readonly outputs: number; readonly length: number },
  options: { readonly stack: ReduceStack; readonly elementBytes?: number },
): ReduceConfig {
  const { outputs, length } = shape;
  const s = options.stack;
  const bytes = options.elementBytes ?? 4;
  for (const [k, v] of [["outputs", outputs], ["length", length], ["elementBytes", bytes]]) {
    if (!Number.isSafeInteger(v) || (v as number) < 1) {
      throw new RangeError(`Cannot configure reduction: '${k}' must be a positive integer`);
    }
  }
  if (outputs * length * bytes > 2 ** 31 - 1) {
    throw new RangeError(
      `Cannot configure reduction: ${outputs} x ${length} elements exceed 32-bit indexing ` +
        `(PyTorch splits the iterator; not modelled)`,
    );
  }
  const vectorize = s.vectorizeWhen === ">="
    ? length >= s.vectorizeMinLength
    : length > s.vectorizeMinLength;
  const dim0 = vectorize ? Math.floor(length / s.inputVecSize) : length;
  const dim1 = outputs;
  const max = s.maxThreads;
  const d0 = dim0 < max ? lastPow2(dim0) : max;
  const d1 = dim1 < max ? lastPow2(dim1) : max;
  let bw = Math.min(d0, s.warpSize);
  const bh = Math.min(d1, Math.floor(max / bw));
  bw = Math.min(d0, Math.floor(max / bh));
  let step = bw;
  const vpt = () => Math.ceil(length / step);
  const splitY = vpt() >= Math.min(bh * 16, 256);
  if (splitY) step *= bh;
  if (splitY && vpt() >= 256) {
    throw new RangeError(
      `Cannot configure reduction: length ${length} may split across CTAs ` +
        `(${vpt()} values per thread; depends on the SM count, not modelled)`,
    );
  }
  return Object.freeze({
    outputs,
    length,
    vectorize,
    blockWidth: bw,
    blockHeight: bh,
    splitY,
    threadsPerRow: splitY ? bw * bh : bw,
    stepInput: step,
    valuesPerThread: vpt(),
  });
}
