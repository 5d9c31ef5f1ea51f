/**
 * Per-thread accumulator lists of Reduce.cuh's `thread_reduce` (private to the reduce folder).
 *
 * @module
 */
import type { ReduceConfig } from "./reduce_config.ts";
import type { ReduceStack } from "./reduce_stack.ts";

/**
 * The input indices each accumulator of thread (tx, ty) folds, in order.
 *
 * Vectorised path (`input_vectorized_thread_reduce_impl`): a misaligned row start (`shift` > 0
 * elements past a vector boundary) first gives lanes shift..vec-1 one head element each in
 * accumulator 0; then vector v = tx + ty*bw, stepping by `stepInput`, while the whole vector fits,
 * element i of a vector going to accumulator i; then lane tx < (rest mod vec) adds one tail
 * element to accumulator 0. Head and tail are read only by `threadIdx.y == 0` when the row is
 * split over warps (`should_reduce_tail`).
 *
 * Strided path (`thread_reduce_impl`): element idx + i*step goes to accumulator i, idx advancing
 * by vt0*step while all vt0 loads fit; the tail gives accumulator i the i-th remaining element.
 *
 * @param config the launch configuration
 * @param stack the stack facts (`vt0`, `inputVecSize`)
 * @param thread lane `tx`, warp row `ty` and the row's misalignment `shift` in elements
 * @returns one index list per accumulator
 */
export function _threadFolds(
  config: ReduceConfig,
  stack: ReduceStack,
  thread: { tx: number; ty: number; shift: number },
): number[][] {
  const { tx, ty, shift } = thread;
  const bw = config.blockWidth;
  const stride = config.stepInput;
  let idx = tx + (config.splitY ? ty * bw : 0);
  const readsEdges = !config.splitY || ty === 0;
  if (config.vectorize) {
    const v = stack.inputVecSize;
    const lists: number[][] = Array.from({ length: v }, () => []);
    let base = 0;
    let end = config.length;
    if (shift > 0) {
      if (readsEdges && tx >= shift && tx < v) lists[0]!.push(tx - shift);
      base = v - shift;
      end = config.length + shift - v;
    }
    while (idx * v + v - 1 < end) {
      for (let i = 0; i < v; i++) lists[i]!.push(base + idx * v + i);
      idx += stride;
    }
    const tail = end - (end % v) + tx;
    if (readsEdges && tail < end) lists[0]!.push(base + tail);
    return lists;
  }
  const vt0 = stack.vt0;
  const end = config.length;
  const lists: number[][] = Array.from({ length: vt0 }, () => []);
  while (idx + (vt0 - 1) * stride < end) {
    for (let i = 0; i < vt0; i++) lists[i]!.push(idx + i * stride);
    idx += stride * vt0;
  }
  for (let i = 0; i < vt0 && idx < end; i++) {
    lists[i]!.push(idx);
    idx += stride;
  }
  return lists;
}
