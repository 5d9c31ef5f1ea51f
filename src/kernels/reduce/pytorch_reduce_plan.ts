/**
 * The reduction plan of one output row of PyTorch's CUDA `reduce_kernel` (FP32 sum over the last,
 * contiguous dimension): thread folds, per-thread combination, shared-memory and warp-shuffle
 * trees (ops.md §1.1, Reduce.cuh `ReduceOp::run`).
 *
 * @module
 */
import { _threadFolds } from "./_thread_folds.ts";
import { type ReduceConfig, reduceConfig } from "./reduce_config.ts";
import type { ReduceStack } from "./reduce_stack.ts";
import type { CombineStep, ReductionPlan } from "./reduction_plan.ts";

/** A {@link ReductionPlan} with the configuration it was derived from. */
export interface PytorchReducePlan extends ReductionPlan {
  /** The launch configuration. */
  readonly config: ReduceConfig;
  /** Misalignment of the row start in elements (0 when 16-byte aligned). */
  readonly shift: number;
  /** Accumulators per thread (`inputVecSize` when vectorised, else `vt0`). */
  readonly accumulatorsPerThread: number;
}

/** Options of {@link pytorchReducePlan}. */
export interface PytorchReducePlanOptions {
  /** The stack facts (shuffle order, vectorisation threshold, ...). */
  readonly stack: ReduceStack;
  /** Row start modulo the vector width, in elements (default 0: aligned; see `rowShift`). */
  readonly shift?: number;
}

/**
 * Builds the plan: register `t * A + i` is accumulator i of thread t = tx + ty * blockWidth.
 * Each thread combines its accumulators left to right (`((a0 + a1) + a2) + a3`); then
 * `block_x_reduce` (shared-memory halving while the width exceeds a warp, then the shuffle loop in
 * the stack's order) and, when the row is split over warps, `block_y_reduce` (halving over ty), in
 * the stack's block order. The sum ends in register 0 (thread 0, the one that stores).
 *
 * @param shape `outputs` rows (decides the block shape) and the reduced `length`
 * @param options the stack and the row misalignment
 * @returns the frozen plan
 * @throws {RangeError} on bad sizes, an unmodelled configuration or a shift outside 0..vec-1
 * @example
 * ```ts
 * import { pytorchReducePlan } from "./pytorch_reduce_plan.ts";
 * import { REDUCE_STACK_CUDA_RECENT as stack } from "./reduce_stack.ts";
 * const p = pytorchReducePlan({ outputs: 16, length: 2560 }, { stack });
 * // Thread 1, accumulator 2 reads x[4*1+2], x[4*1+2+128], ... (20 elements).
 * const a = p.registers[1 * 4 + 2]!;
 * if (a.length !== 20 || a[0] !== 6 || a[1] !== 134) throw new Error();
 * ```
 */
export function pytorchReducePlan(
  shape: { readonly outputs: number; readonly length: number },
  options: PytorchReducePlanOptions,
): PytorchReducePlan {
  const stack = options.stack;
  const config = reduceConfig(shape, { stack });
  const shift = options.shift ?? 0;
  const vec = stack.inputVecSize;
  if (!Number.isInteger(shift) || shift < 0 || shift >= vec || (shift > 0 && !config.vectorize)) {
    throw new RangeError(`Cannot plan reduction: shift ${shift} outside 0..${vec - 1}`);
  }
  const A = config.vectorize ? vec : stack.vt0;
  const bw = config.blockWidth;
  const rows = config.splitY ? config.blockHeight : 1;
  const registers: Int32Array[] = [];
  const steps: CombineStep[] = [];
  const reg = (tx: number, ty: number) => (tx + ty * bw) * A;
  for (let ty = 0; ty < rows; ty++) {
    for (let tx = 0; tx < bw; tx++) {
      for (const list of _threadFolds(config, stack, { tx, ty, shift })) {
        registers.push(Int32Array.from(list));
      }
      for (let i = 1; i < A; i++) steps.push([reg(tx, ty), reg(tx, ty) + i]);
    }
  }
  const xStage = (ty: number) => _blockX(bw, stack, (a, b) => steps.push([reg(a, ty), reg(b, ty)]));
  const yStage = (tx: number) => _halving(rows, 1, (a, b) => steps.push([reg(tx, a), reg(tx, b)]));
  if (stack.blockOrder === "x-then-y" || rows === 1) {
    for (let ty = 0; ty < rows; ty++) xStage(ty);
    yStage(0);
  } else {
    for (let tx = 0; tx < bw; tx++) yStage(tx);
    xStage(0);
  }
  return Object.freeze({
    length: config.length,
    registers: Object.freeze(registers),
    steps: Object.freeze(steps),
    result: 0,
    config,
    shift,
    accumulatorsPerThread: A,
  });
}

/** Shared-memory halving down to one warp, then the shuffle loop (only lanes reaching lane 0). */
function _blockX(width: number, stack: ReduceStack, add: (dst: number, src: number) => void) {
  let dim = width;
  if (dim > stack.warpSize) {
    _halving(dim, stack.warpSize, add);
    dim = stack.warpSize;
  }
  if (stack.warpShuffle === "decreasing") {
    _halving(dim, 1, add);
  } else {
    // off = 1, 2, 4, ...: lane t reads lane t + off; lane 0 depends only on t = 0 mod 2*off.
    for (let off = 1; off < dim; off *= 2) {
      for (let t = 0; t < dim; t += 2 * off) add(t, t + off);
    }
  }
}

/** `for off = n/2; off >= min; off /= 2: for t < off: v[t] += v[t + off]` (n a power of two). */
function _halving(n: number, min: number, add: (dst: number, src: number) => void) {
  for (let off = n / 2; off >= min; off /= 2) {
    for (let t = 0; t < off; t++) add(t, t + off);
  }
}
