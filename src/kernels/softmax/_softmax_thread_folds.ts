/**
 * Which row elements each thread of a block softmax kernel visits, in order (private to the
 * softmax folder). Indices are relative to the row start.
 *
 * @module
 */
import type { SoftmaxBlockLaunch } from "./softmax_launch.ts";

/**
 * The element list of thread `t` (`threadIdx.x`), read from SoftMax.cu:
 *
 * - `cunn_SoftMaxForward` (`ilpReduce`, ILP = 4): with the row `shift` elements past a 16-byte
 *   boundary, the pointer moves back by `shift` and thread t >= shift takes element `t - shift`;
 *   the pointer then moves forward by `blockDim` (row index `B - shift`, aligned because B is a
 *   multiple of 4). On the remaining `size` elements, with `last = size % (4B)`, thread t takes
 *   the 4-vectors t, t + B, ... below `size - last` (elements 4v .. 4v + 3 in order), then the
 *   tail elements `size - last + t`, `+ B`, ... one at a time.
 * - `cunn_SoftMaxForwardReg<reg_cnt>`: elements `t + r * B` for r = 0 .. reg_cnt - 1 that exist.
 * - `cunn_SoftMaxForwardSmem`: 4-vectors t, t + B, ... while `4v < dim` (dim % 4 == 0).
 *
 * @param launch the kernel and block size
 * @param dim row length
 * @param thread `t` and the row's misalignment `shift` in elements (0..3)
 * @returns the indices thread t folds, in order
 */
export function _softmaxThreadFolds(
  launch: SoftmaxBlockLaunch,
  dim: number,
  thread: { readonly t: number; readonly shift: number },
): number[] {
  const { t, shift } = thread;
  const B = launch.blockSize;
  const list: number[] = [];
  if (launch.kernel === "cunn_SoftMaxForwardReg") {
    for (let i = t; i < dim; i += B) list.push(i);
    return list;
  }
  if (launch.kernel === "cunn_SoftMaxForwardSmem") {
    for (let v = t; 4 * v < dim; v += B) list.push(4 * v, 4 * v + 1, 4 * v + 2, 4 * v + 3);
    return list;
  }
  let size = dim;
  let base = 0;
  if (shift > 0) {
    size = dim + shift;
    if (t >= shift) list.push(t - shift);
    size -= B;
    base = B - shift;
  }
  const last = size % (4 * B);
  for (let v = t; 4 * v < size - last; v += B) {
    list.push(base + 4 * v, base + 4 * v + 1, base + 4 * v + 2, base + 4 * v + 3);
  }
  for (let i = size - last + t; i < size; i += B) list.push(base + i);
  return list;
}
