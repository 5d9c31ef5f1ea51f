/**
 * Row sums of a contiguous FP32 matrix as PyTorch's CUDA `reduce_kernel` computes
 * `x.sum(-1)` (the sum inside `x.mean(-1)`), one plan per row alignment class.
 *
 * @module
 */
import { _executeFlatF32, type _FlatPlan, _flattenPlan } from "./execute_plan.ts";
import { pytorchReducePlan } from "./pytorch_reduce_plan.ts";
import type { ReduceStack } from "./reduce_stack.ts";

/** Options of {@link reduceSumRows}. */
export interface ReduceSumRowsOptions {
  /** Number of rows M (= `num_outputs`; for QK-norm tokens x heads). */
  readonly rows: number;
  /** Reduced length H. */
  readonly length: number;
  /** The stack facts. */
  readonly stack: ReduceStack;
  /**
   * Offset of the tensor's first element from a 16-byte boundary, in elements (default 0: the
   * CUDA caching allocator returns aligned blocks; a view into a larger buffer may not be).
   */
  readonly baseOffset?: number;
  /**
   * Rows of the tensor on the GPU (`num_outputs`, which fixes the launch configuration) when
   * `values` holds other rows (one sequence's rows of a serving pass, or rows of several passes
   * of that size computed together); default `rows`. The
   * rows given are then taken to start at a vector-aligned row of that tensor, which holds for
   * every row when `length` is a multiple of the input vector width or the launch does not
   * vectorise (checked).
   */
  readonly launchRows?: number;
}

/**
 * Misalignment, in elements, of row `row`'s start: `(baseOffset + row * length) mod vec`.
 * Rows of a length that is a multiple of the vector width all share the base's alignment.
 *
 * @param row row index
 * @param options `length`, `stack` (vector width) and `baseOffset`
 * @returns the shift in 0..vec-1
 * @example
 * ```ts
 * import { rowShift } from "./reduce_sum_rows.ts";
 * import { REDUCE_STACK_CUDA_RECENT as stack } from "./reduce_stack.ts";
 * if (rowShift(1, { length: 130, stack }) !== 2 || rowShift(3, { length: 2560, stack }) !== 0) {
 *   throw new Error();
 * }
 * ```
 */
export function rowShift(
  row: number,
  options: { readonly length: number; readonly stack: ReduceStack; readonly baseOffset?: number },
): number {
  const v = options.stack.inputVecSize;
  return (((options.baseOffset ?? 0) + row * options.length) % v + v) % v;
}

/**
 * Sums every row of a row-major [rows, length] FP32 matrix in reduce_kernel's order.
 *
 * @param values FP32 bit patterns, `rows * length` of them
 * @param options shape, stack and alignment
 * @returns one FP32 sum pattern per row
 * @throws {TypeError} when `values` has the wrong length
 * @throws {RangeError} on bad sizes or an unmodelled configuration
 * @example
 * ```ts
 * import { reduceSumRows } from "./reduce_sum_rows.ts";
 * import { REDUCE_STACK_CUDA_RECENT as stack } from "./reduce_stack.ts";
 * const x = new Uint32Array(2 * 128).fill(0x3f800000); // ones
 * const s = reduceSumRows(x, { rows: 2, length: 128, stack });
 * if (s[0] !== 0x43000000 || s[1] !== 0x43000000) throw new Error(); // 128
 * ```
 */
export function reduceSumRows(values: Uint32Array, options: ReduceSumRowsOptions): Uint32Array {
  const { rows, length, stack } = options;
  if (!(values instanceof Uint32Array) || values.length !== rows * length) {
    throw new TypeError(
      `Cannot reduce rows: expected a Uint32Array of ${rows} x ${length} values, got ${
        values instanceof Uint32Array ? values.length : typeof values
      }`,
    );
  }
  const outputs = _launchRows(options);
  const base = pytorchReducePlan({ outputs, length }, { stack });
  if (outputs !== rows && base.config.vectorize && length % stack.inputVecSize !== 0) {
    throw new RangeError(
      `Cannot reduce rows: part of a ${outputs}-row tensor with rows of ${length} values ` +
        `(not a multiple of the vector width ${stack.inputVecSize}) needs each row's alignment`,
    );
  }
  const plans = new Map<number, _FlatPlan>([[0, _flattenPlan(base)]]);
  const out = new Uint32Array(rows);
  const f32 = new Float32Array(values.buffer, values.byteOffset, values.length);
  for (let r = 0; r < rows; r++) {
    // Only the vectorised path looks at the alignment (its misaligned-head handling).
    const shift = base.config.vectorize ? rowShift(r, options) : 0;
    let plan = plans.get(shift);
    if (plan === undefined) {
      plan = _flattenPlan(pytorchReducePlan({ outputs, length }, { stack, shift }));
      plans.set(shift, plan);
    }
    out[r] = _executeFlatF32(plan, f32, r * length);
  }
  return out;
}

function _launchRows(o: ReduceSumRowsOptions): number {
  const n = o.launchRows ?? o.rows;
  if (n === o.rows) return n;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`Cannot reduce rows: launchRows ${n} must be a positive integer`);
  }
  return n;
}
