/**
 * `host_softmax`'s choice of kernel and block size for FP32 rows over the last dimension
 * (inner_size = 1, FP32 in and out), per PyTorch release (spec `stack_pytorch_hf.md` §2.5).
 *
 * @module
 */
import type { SoftmaxBlockTree, SoftmaxStack } from "./softmax_stack.ts";

/** The persistent warp kernel (`softmax_warp_forward`, see `softmaxWarp`). */
export interface SoftmaxWarpLaunch {
  /** Kernel name as the profiler shows it. */
  readonly kernel: "softmax_warp_forward";
  /** The release's row limit for this kernel. */
  readonly maxDim: 1024 | 2048;
}

/** One of the block-per-row kernels of SoftMax.cu. */
export interface SoftmaxBlockLaunch {
  /** Kernel name as the profiler shows it. */
  readonly kernel: "cunn_SoftMaxForward" | "cunn_SoftMaxForwardReg" | "cunn_SoftMaxForwardSmem";
  /** `blockDim.x`: threads cooperating on one row (a multiple of 32, at most 1024). */
  readonly blockSize: number;
  /** The block-level reduction tree. */
  readonly tree: SoftmaxBlockTree;
}

/** What `host_softmax` launches for a row length. */
export type SoftmaxLaunch = SoftmaxWarpLaunch | SoftmaxBlockLaunch;

/** Options of {@link softmaxLaunch}. */
export interface SoftmaxLaunchOptions {
  /** The release's facts (see `softmaxStackForTorch`). */
  readonly stack: SoftmaxStack;
  /**
   * Offset of the input tensor's first element from a 16-byte boundary, in elements (default 0:
   * the caching allocator returns aligned blocks; a view with a storage offset may not be). The
   * output is assumed 16-byte aligned (a fresh allocation). Row r starts at element
   * `baseOffset + r * dim`.
   */
  readonly baseOffset?: number;
  /**
   * `cudaDeviceProp::sharedMemPerBlock` in bytes (default 49,152). ASSUMPTION: every NVIDIA GPU
   * from sm_50 to sm_90 reports 48 KiB here (the opt-in maximum is a different property).
   */
  readonly sharedMemPerBlock?: number;
}

/** ILP of the FP32 block kernels: `sizeof(float4) / sizeof(float)`. */
export const SOFTMAX_ILP = 4;

/**
 * Decides the kernel for rows of `dim` FP32 values.
 *
 * Warp kernel when `dim <= stack.maxWarpDim`. Otherwise, with `B` the block size: PyTorch >= 2.7
 * takes `cunn_SoftMaxForwardReg` when `ceil(dim / B) < 10`; releases with the shared-memory
 * kernel take `cunn_SoftMaxForwardSmem` when `dim < (sharedMemPerBlock - 4 * B / 32) / 4`, the
 * input and output are 16-byte aligned and `dim % 4 == 0`; else `cunn_SoftMaxForward`.
 *
 * @param dim row length (>= 1)
 * @param options the release's stack, the input alignment and the shared-memory size
 * @returns the frozen launch
 * @throws {RangeError} on a bad `dim`, `baseOffset` or `sharedMemPerBlock`
 * @example
 * ```ts
 * import { softmaxLaunch } from "./softmax_launch.ts";
 * import { SOFTMAX_STACK_TORCH_2_1, SOFTMAX_STACK_TORCH_2_7 } from "./softmax_stack.ts";
 * const old = softmaxLaunch(4096, { stack: SOFTMAX_STACK_TORCH_2_1 });
 * if (old.kernel !== "cunn_SoftMaxForward" || old.blockSize !== 512) throw new Error();
 * if (softmaxLaunch(4096, { stack: SOFTMAX_STACK_TORCH_2_7 }).kernel !== "cunn_SoftMaxForwardReg") {
 *   throw new Error();
 * }
 * ```
 */
export function softmaxLaunch(dim: number, options: SoftmaxLaunchOptions): SoftmaxLaunch {
  const { stack } = options;
  const baseOffset = options.baseOffset ?? 0;
  const smem = options.sharedMemPerBlock ?? 49152;
  if (!Number.isSafeInteger(dim) || dim < 1) {
    throw new RangeError(
      `Cannot choose a softmax kernel: dim must be a positive integer, got ${dim}`,
    );
  }
  if (!Number.isSafeInteger(baseOffset) || baseOffset < 0) {
    throw new RangeError(`Cannot choose a softmax kernel: bad baseOffset ${baseOffset}`);
  }
  if (!Number.isSafeInteger(smem) || smem < 1024) {
    throw new RangeError(`Cannot choose a softmax kernel: bad sharedMemPerBlock ${smem}`);
  }
  if (dim <= stack.maxWarpDim) {
    return Object.freeze({ kernel: "softmax_warp_forward", maxDim: stack.maxWarpDim });
  }
  const blockSize = stack.blockSize === "ilp-pow2" ? _ilpPow2Block(dim) : _warpMultipleBlock(dim);
  const block = (kernel: SoftmaxBlockLaunch["kernel"]): SoftmaxBlockLaunch =>
    Object.freeze({ kernel, blockSize, tree: stack.tree });
  if (stack.regKernel && Math.ceil(dim / blockSize) < 10) return block("cunn_SoftMaxForwardReg");
  const maxSmemElements = Math.floor((smem - (blockSize / 32) * 4) / 4);
  const fitsSmem = dim < maxSmemElements && baseOffset % SOFTMAX_ILP === 0 &&
    dim % SOFTMAX_ILP === 0;
  if (stack.smemKernel && fitsSmem) return block("cunn_SoftMaxForwardSmem");
  return block("cunn_SoftMaxForward");
}

/** `SoftMax_getBlockSize(ILP, dim)` (integer arithmetic as in the source). */
function _ilpPow2Block(dim: number): number {
  let max = Math.min(Math.floor(dim / SOFTMAX_ILP), 1024);
  max = Math.floor(max / 2); // ILP > 1: keep at least half of the row vectorised
  let size = 1;
  while (size < max) size *= 2;
  return Math.max(size, 32);
}

/** `SoftMaxForward_getBlockSize(dim)`: min(dim, 1024) rounded up to a multiple of 32. */
function _warpMultipleBlock(dim: number): number {
  const max = Math.min(dim, 1024);
  return max % 32 === 0 ? max : (Math.floor(max / 32) + 1) * 32;
}
