/**
 * `cubBlockReduceSum`: the FP32 sum that `cub::BlockReduce<float, BLOCK_THREADS>` returns in thread
 * 0 with its default algorithm `BLOCK_REDUCE_WARP_REDUCTIONS`, as vLLM's layernorm kernels call it:
 * `BlockReduce(reduceStore).Reduce(v, CubAddOp{}, blockDim.x)`.
 *
 * Source (NVIDIA/cccl tag v2.7.0, the CCCL of CUDA 12.8, which vLLM 0.11 wheels are built with [I];
 * v2.8.0 differs only in names, e.g. `cuda::std::plus<>` for `cub::Sum`, same order of adds):
 * - `cub/block/block_reduce.cuh:461-471`: `Reduce(input, op, num_valid)` takes the full-tile path
 *   when `num_valid >= BLOCK_THREADS`, else the partial one; the default algorithm is
 *   `BLOCK_REDUCE_WARP_REDUCTIONS` (:239, :258-263).
 * - `cub/block/specializations/block_reduce_warp_reductions.cuh:75-91, 241-253`: 32-lane logical
 *   warps (`LOGICAL_WARP_SIZE = min(BLOCK_THREADS, 32)`); each warp reduces its
 *   `warp_num_valid` lanes (32, or `num_valid - warp_offset` for the last partial warp); lane 0 of
 *   each warp stores its aggregate, and thread 0 folds them in warp order (:138-196):
 *   `acc = warp0; acc = op(acc, warp[w])` for w = 1, 2, ... while `w * 32 < num_valid`.
 * - `cub/warp/specializations/warp_reduce_shfl.cuh:530-604, 223-241`: five steps with offsets
 *   1, 2, 4, 8, 16 (`1 << STEP`); lane l adds the value of lane l + offset when
 *   `l + offset <= last_lane` (`shfl.sync.down` with the clamp `last_lane = valid - 1`, then
 *   `@p add.f32`), otherwise keeps its own. FP32 addition is commutative bit for bit, so the
 *   operand order inside one add does not matter.
 *
 * Evidence: derived from source only; never compared with a GPU.
 *
 * @module
 */
import { F32_RN } from "../../hardware/mod.ts";

/** Options of {@link cubBlockReduceSum}. */
export interface CubBlockReduceOptions {
  /** The `BLOCK_DIM_X` template argument, a multiple of 32 (vLLM's norms: 1024, the default). */
  readonly blockThreads?: number;
}

const WARP = 32;
const _lanes = new Uint32Array(WARP);
const _next = new Uint32Array(WARP);

/**
 * Reduces one FP32 value per thread as CUB's warp-reductions block reduce does, and returns
 * thread 0's result. `values.length` is `num_valid` (vLLM passes `blockDim.x`, one value per
 * launched thread, threads without elements holding +0).
 *
 * @param values FP32 patterns, one per valid thread in thread order (1 to `blockThreads` of them)
 * @param options the template block size
 * @returns FP32 pattern of the block sum (NaN results are 0x7FFFFFFF)
 * @throws {RangeError} when `blockThreads` is not a positive multiple of 32, or the number of
 *   values is 0 or above it
 * @example
 * ```ts
 * import { cubBlockReduceSum } from "./cub_block_reduce.ts";
 * // 2^24, 1, 1: the shuffle tree adds lanes 0+1, then lane 2: (2^24 + 1) + 1 = 2^24 (two ties
 * // to even), where adding the two ones first would give 2^24 + 2.
 * const v = new Uint32Array([0x4b800000, 0x3f800000, 0x3f800000]);
 * if (cubBlockReduceSum(v) !== 0x4b800000) throw new Error();
 * ```
 */
export function cubBlockReduceSum(
  values: Uint32Array,
  options: CubBlockReduceOptions = {},
): number {
  const blockThreads = options.blockThreads ?? 1024;
  if (!Number.isInteger(blockThreads) || blockThreads < WARP || blockThreads % WARP !== 0) {
    throw new RangeError(
      `Cannot reduce: BLOCK_THREADS ${blockThreads} is not a positive multiple of ${WARP}`,
    );
  }
  const numValid = values.length;
  if (numValid < 1 || numValid > blockThreads) {
    throw new RangeError(
      `Cannot reduce: ${numValid} valid threads, expected 1 to ${blockThreads}`,
    );
  }
  let acc = 0;
  for (let offset = 0, w = 0; offset < numValid; offset += WARP, w++) {
    const warpValid = Math.min(WARP, numValid - offset);
    const aggregate = _warpReduce(values, offset, warpValid);
    acc = w === 0 ? aggregate : F32_RN.add(acc, aggregate);
  }
  return acc;
}

/** Lane 0 of `WarpReduceShfl::Reduce` over `valid` lanes starting at `values[offset]`. */
function _warpReduce(values: Uint32Array, offset: number, valid: number): number {
  for (let l = 0; l < valid; l++) _lanes[l] = values[offset + l]!;
  const lastLane = valid - 1;
  for (let step = 1; step < WARP; step <<= 1) {
    for (let l = 0; l < valid; l++) {
      _next[l] = l + step <= lastLane ? F32_RN.add(_lanes[l]!, _lanes[l + step]!) : _lanes[l]!;
    }
    _lanes.set(_next.subarray(0, valid));
  }
  return _lanes[0]!;
}
