/**
 * Test-only, literal simulation of Reduce.cuh's `ReduceOp::run` for one row: every thread of the
 * block row(s) runs its loop, shared memory and all 32 shuffle lanes are simulated (including
 * `shfl_down` returning the caller's own value past the warp end). Written from the kernel text,
 * independently of the plan builder, to check it.
 *
 * @module
 */
import type { ReduceConfig, ReduceStack } from "../../../src/kernels/reduce/mod.ts";

const f = Math.fround;

/** Sum of one row `x` (numbers, FP32 values) as the kernel computes it. */
export function simulateReduceKernel(
  x: Float32Array,
  c: ReduceConfig,
  s: ReduceStack,
  shift: number,
): number {
  const bw = c.blockWidth;
  const bh = c.splitY ? c.blockHeight : 1;
  const value: number[][] = [];
  for (let ty = 0; ty < bh; ty++) {
    value.push([]);
    for (let tx = 0; tx < bw; tx++) value[ty]!.push(_thread(x, c, s, tx, ty, shift));
  }
  const xReduce = (row: number[]) => _blockX(row, s);
  const yReduce = (col: number[]) => {
    for (let off = col.length / 2; off >= 1; off /= 2) {
      for (let t = 0; t < off; t++) col[t] = f(col[t]! + col[t + off]!);
    }
    return col[0]!;
  };
  if (s.blockOrder === "x-then-y" || bh === 1) {
    return yReduce(value.map(xReduce));
  }
  const col = Array.from({ length: bw }, (_, tx) => yReduce(value.map((row) => row[tx]!)));
  return xReduce(col);
}

function _thread(
  x: Float32Array,
  c: ReduceConfig,
  s: ReduceStack,
  tx: number,
  ty: number,
  shift: number,
): number {
  const stride = c.stepInput;
  const tailOk = !c.splitY || ty === 0;
  let idx = tx + (c.splitY ? ty * c.blockWidth : 0);
  if (c.vectorize) {
    const V = s.inputVecSize;
    let data = 0; // pointer into x, in elements
    let end = x.length;
    let head = 0;
    if (shift > 0) {
      data -= shift; // points before the row, as the kernel's pointer arithmetic does
      end += shift;
      if (tx >= shift && tx < V && tailOk) head = f(head + x[data + tx]!);
      end -= V;
      data += V;
    }
    const acc = new Array<number>(V).fill(0);
    acc[0] = head;
    while (idx * V + V - 1 < end) {
      for (let i = 0; i < V; i++) acc[i] = f(acc[i]! + x[data + idx * V + i]!);
      idx += stride;
    }
    const tailStart = end - end % V;
    if (tailOk && tailStart + tx < end) acc[0] = f(acc[0]! + x[data + tailStart + tx]!);
    let v = acc[0]!;
    for (let i = 1; i < V; i++) v = f(v + acc[i]!);
    return v;
  }
  const vt0 = s.vt0;
  const acc = new Array<number>(vt0).fill(0);
  while (idx + (vt0 - 1) * stride < x.length) {
    for (let i = 0; i < vt0; i++) acc[i] = f(acc[i]! + x[idx + i * stride]!);
    idx += stride * vt0;
  }
  for (let i = 0; i < vt0 && idx < x.length; i++, idx += stride) acc[i] = f(acc[i]! + x[idx]!);
  let v = acc[0]!;
  for (let i = 1; i < vt0; i++) v = f(v + acc[i]!);
  return v;
}

function _blockX(row: number[], s: ReduceStack): number {
  const v = [...row];
  let dim = v.length;
  if (dim > s.warpSize) {
    for (let off = dim / 2; off >= s.warpSize; off /= 2) {
      for (let t = 0; t < off; t++) v[t] = f(v[t]! + v[t + off]!);
    }
    dim = s.warpSize;
  }
  // All lanes of a full warp; lanes >= dim hold garbage (here: NaN) that must not reach lane 0.
  const lanes = Array.from({ length: s.warpSize }, (_, t) => (t < dim ? v[t]! : NaN));
  const offsets: number[] = [];
  for (let off = 1; off < dim; off *= 2) offsets.push(off);
  if (s.warpShuffle === "decreasing") offsets.reverse();
  for (const off of offsets) {
    const before = [...lanes];
    for (let t = 0; t < s.warpSize; t++) {
      const src = t + off < s.warpSize ? before[t + off]! : before[t]!; // shfl_down
      lanes[t] = f(before[t]! + src);
    }
  }
  return lanes[0]!;
}
