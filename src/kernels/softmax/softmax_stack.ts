/**
 * The PyTorch-version facts that decide which softmax kernel runs for FP32 rows over the last
 * dimension and in which order it adds (`aten/src/ATen/native/cuda/SoftMax.cu`, `host_softmax`;
 * spec `stack_pytorch_hf.md` §2.5), as data.
 *
 * @module
 */

/**
 * How a block combines its threads' partial sums.
 *
 * - `"smem-serial"`: the old `blockReduce` of SoftMax.cu: every thread writes shared memory, lanes
 *   w < blockDim/32 of warp 0 each add the 32 values `smem[32w .. 32w+31]` left to right (from the
 *   identity), then thread 0 adds the per-warp partials left to right.
 * - `"shfl-down"`: `cuda_utils::BlockReduce` (block_reduce.cuh) behind `blockReduceWarp`: a
 *   shuffle-down tree inside every warp (offsets 16, 8, 4, 2, 1), lane 0 of each warp writes
 *   shared memory, then warp 0 runs the same tree over the per-warp partials (identity beyond
 *   the number of warps).
 */
export type SoftmaxBlockTree = "smem-serial" | "shfl-down";

/** The dispatch and arithmetic facts of one range of PyTorch releases. */
export interface SoftmaxStack {
  /** A short name of the range, e.g. `"torch-2.1-2.3"`. */
  readonly name: string;
  /** Largest row the persistent warp kernel takes (`dim <= maxWarpDim`, FP32). */
  readonly maxWarpDim: 1024 | 2048;
  /**
   * Block size of the block kernels: `"ilp-pow2"` is `SoftMax_getBlockSize(ILP, dim)` (a power of
   * two >= min(dim / ILP, 1024) / 2, at least a warp); `"warp-multiple"` is
   * `SoftMaxForward_getBlockSize(dim)` (min(dim, 1024) rounded up to a multiple of 32).
   */
  readonly blockSize: "ilp-pow2" | "warp-multiple";
  /** The block-level tree of the max and sum reductions. */
  readonly tree: SoftmaxBlockTree;
  /** Whether `cunn_SoftMaxForwardSmem` exists (row cached in shared memory when it fits). */
  readonly smemKernel: boolean;
  /** Whether `cunn_SoftMaxForwardReg` exists (taken when ceil(dim / block) < 10). */
  readonly regKernel: boolean;
  /**
   * How the range was pinned: `"source"` (SoftMax.cu read at a commit of the range) or
   * `"inferred"` (the source of a neighbouring release plus the date of the pull request that
   * changed it; the boundary release is not read).
   */
  readonly evidence: "source" | "inferred";
}

/**
 * PyTorch 2.1-2.3: warp kernel up to 1,024; `cunn_SoftMaxForward` with `SoftMax_getBlockSize`
 * and the old `blockReduce` (SoftMax.cu at e9865f5, spec §2.5 "≈2.1-2.3").
 */
export const SOFTMAX_STACK_TORCH_2_1: SoftmaxStack = Object.freeze({
  name: "torch-2.1-2.3",
  maxWarpDim: 1024,
  blockSize: "ilp-pow2",
  tree: "smem-serial",
  smemKernel: false,
  regKernel: false,
  evidence: "source",
});

/**
 * PyTorch 2.4-2.6: pytorch/pytorch#122970 (opened 2024-03-29, after the 2.3 branch cut) added
 * `cunn_SoftMaxForwardSmem`, switched the forward block reduction to `cuda_utils::BlockReduce`
 * and the block size to `SoftMaxForward_getBlockSize`; the warp kernel still stops at 1,024
 * (SoftMax.cu at 000cace). ASSUMPTION: first release 2.4, last 2.6 (from PR dates, not read).
 */
export const SOFTMAX_STACK_TORCH_2_4: SoftmaxStack = Object.freeze({
  name: "torch-2.4-2.6",
  maxWarpDim: 1024,
  blockSize: "warp-multiple",
  tree: "shfl-down",
  smemKernel: true,
  regKernel: false,
  evidence: "inferred",
});

/**
 * PyTorch 2.7-2.10: pytorch/pytorch#144679 (opened 2025-01-13) raised the warp kernel to 2,048
 * and added `cunn_SoftMaxForwardReg` (spec §2.5 table, "2.10 (quoted)"). ASSUMPTION: first release
 * 2.7 (from the PR date, not read); 2.10 is the newest release the spec quotes.
 */
export const SOFTMAX_STACK_TORCH_2_7: SoftmaxStack = Object.freeze({
  name: "torch-2.7-2.10",
  maxWarpDim: 2048,
  blockSize: "warp-multiple",
  tree: "shfl-down",
  smemKernel: true,
  regKernel: true,
  evidence: "inferred",
});
