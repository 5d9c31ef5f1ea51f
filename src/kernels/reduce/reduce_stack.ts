/**
 * The software-stack facts that decide the topology of PyTorch's CUDA `reduce_kernel`
 * (`aten/src/ATen/native/cuda/Reduce.cuh`), as data. Spec: ops.md §1.1, gaps.md B.3.
 *
 * @module
 */
import { fieldsOf, int, oneOf, onlyKnown } from "../../json_fields.ts";

/** Which way the intra-warp shuffle loop runs (`block_x_reduce`). */
export type WarpShuffleOrder = "decreasing" | "increasing";

/** The Reduce.cuh parameters that change bits. */
export interface ReduceStack {
  /**
   * Intra-warp loop: `"decreasing"` (offsets width/2 .. 1; CUDA builds of recent PyTorch, the
   * source comment says "for better numerics matching Triton") or `"increasing"` (1 .. width/2;
   * PyTorch <= 2.6 and ROCm/fbcode builds). `shfl_down` and `shfl_xor` give the same tree at
   * lane 0 for a given order, so only the order is a parameter.
   */
  readonly warpShuffle: WarpShuffleOrder;
  /** Vectorise along the input when `dim0 >= 128` (`">="`, recent) or `dim0 > 128` (`">"`, old). */
  readonly vectorizeWhen: ">=" | ">";
  /** Minimum reduced length for vectorisation (128 in every version read). */
  readonly vectorizeMinLength: number;
  /** `vt0`: accumulators per thread on the strided path (4). */
  readonly vt0: number;
  /** `input_vec_size`: elements per vector load (= vt0 = 4 for float sums). */
  readonly inputVecSize: number;
  /** `MAX_NUM_THREADS` of `mnt_wrapper` (512 for float). */
  readonly maxThreads: number;
  /** Warp size (32 on NVIDIA). */
  readonly warpSize: number;
  /**
   * Order of the block stages in `ReduceOp::run` when both run: `"x-then-y"` as in the source read
   * (block_x_reduce, then block_y_reduce); `"y-then-x"` kept for builds that differ (unverified).
   */
  readonly blockOrder: "x-then-y" | "y-then-x";
}

const _BASE = { vectorizeMinLength: 128, vt0: 4, inputVecSize: 4, maxThreads: 512, warpSize: 32 };

/** Recent CUDA PyTorch (the Reduce.cuh read for ops.md §1.1): decreasing shuffle, `dim0 >= 128`. */
export const REDUCE_STACK_CUDA_RECENT: ReduceStack = Object.freeze({
  ..._BASE,
  warpShuffle: "decreasing",
  vectorizeWhen: ">=",
  blockOrder: "x-then-y",
});

/** PyTorch <= 2.6 on CUDA: increasing shuffle, `dim0 > 128` (threshold version not pinned). */
export const REDUCE_STACK_CUDA_LEGACY: ReduceStack = Object.freeze({
  ..._BASE,
  warpShuffle: "increasing",
  vectorizeWhen: ">",
  blockOrder: "x-then-y",
});

/** ROCm and fbcode builds of recent PyTorch: increasing shuffle, `dim0 >= 128`. */
export const REDUCE_STACK_ROCM_RECENT: ReduceStack = Object.freeze({
  ..._BASE,
  warpShuffle: "increasing",
  vectorizeWhen: ">=",
  blockOrder: "x-then-y",
});

/**
 * Validates a reduce-stack JSON section (all fields required, none unknown).
 *
 * @param json parsed JSON, shaped like {@link ReduceStack}
 * @returns the frozen stack
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseReduceStack, REDUCE_STACK_CUDA_RECENT } from "./reduce_stack.ts";
 * const s = parseReduceStack({ ...REDUCE_STACK_CUDA_RECENT });
 * if (s.warpShuffle !== "decreasing" || !Object.isFrozen(s)) throw new Error();
 * ```
 */
export function parseReduceStack(json: unknown): ReduceStack {
  const f = fieldsOf(json, "reduce");
  onlyKnown(f, [
    "warpShuffle",
    "vectorizeWhen",
    "vectorizeMinLength",
    "vt0",
    "inputVecSize",
    "maxThreads",
    "warpSize",
    "blockOrder",
  ]);
  const stack: ReduceStack = {
    warpShuffle: oneOf(f, "warpShuffle", ["decreasing", "increasing"] as const),
    vectorizeWhen: oneOf(f, "vectorizeWhen", [">=", ">"] as const),
    vectorizeMinLength: int(f, "vectorizeMinLength", { min: 1, max: 1 << 20 }),
    vt0: int(f, "vt0", { min: 1, max: 16 }),
    inputVecSize: int(f, "inputVecSize", { min: 1, max: 16 }),
    maxThreads: int(f, "maxThreads", { min: 1, max: 1024 }),
    warpSize: int(f, "warpSize", { min: 1, max: 64 }),
    blockOrder: oneOf(f, "blockOrder", ["x-then-y", "y-then-x"] as const),
  };
  for (const k of ["maxThreads", "warpSize"] as const) {
    if ((stack[k] & (stack[k] - 1)) !== 0) {
      throw new RangeError(`Cannot read 'reduce.${k}': expected a power of two, got ${stack[k]}`);
    }
  }
  return Object.freeze(stack);
}
