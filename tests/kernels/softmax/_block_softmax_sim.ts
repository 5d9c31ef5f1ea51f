/**
 * An independent simulation of PyTorch's block softmax kernels for the tests: it runs every
 * thread's loops on byte addresses (checking that each float4 load is 16-byte aligned), keeps
 * shared memory and warp lanes as explicit arrays (inactive shuffle lanes read their own value, as
 * `__shfl_down_sync` does), starts every reduction from its identity, and does the FP32 additions
 * and divisions with host floats: `Math.fround(a + b)` and `Math.fround(a / b)` of two binary32
 * values are correctly rounded because binary64 has at least 2 * 24 + 2 bits (double rounding is
 * innocuous; Figueroa 1995). Only `cudaExpf` is shared with the code under test.
 *
 * @module
 */
import { cudaExpf, type Mufu } from "../../../src/kernels/mod.ts";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";

/** The launch to simulate. */
export interface SimLaunch {
  kernel: "cunn_SoftMaxForward" | "cunn_SoftMaxForwardReg" | "cunn_SoftMaxForwardSmem";
  blockSize: number;
  tree: "smem-serial" | "shfl-down";
}

type Op = (acc: number, v: number) => number;
const FLT_MAX = f32FromBits(0x7f7fffff);
const fmaxf: Op = (a, b) => (a !== a ? b : b !== b ? a : a > b ? a : b);
const maxOp: Op = (a, b) => (a < b ? b : a);
const addOp: Op = (a, b) => Math.fround(a + b);

/** Runs every thread's input loop of the kernel, calling `fold(t, i)` per element read. */
function threadLoop(
  launch: SimLaunch,
  dim: number,
  rowByte: number,
  fold: (t: number, i: number) => void,
) {
  const B = launch.blockSize;
  const at = (byte: number) => (byte - rowByte) / 4; // element index of a byte address
  const load4 = (t: number, byte: number) => {
    if (byte % 16 !== 0) throw new Error(`misaligned float4 load at byte ${byte}`);
    for (let j = 0; j < 4; j++) fold(t, at(byte) + j);
  };
  for (let t = 0; t < B; t++) {
    if (launch.kernel === "cunn_SoftMaxForwardReg") {
      const regs = Math.ceil(dim / B);
      for (let r = 0; r < regs; r++) if (t + r * B < dim) fold(t, t + r * B);
    } else if (launch.kernel === "cunn_SoftMaxForwardSmem") {
      for (let off = t; off * 4 < dim; off += B) load4(t, rowByte + 16 * off);
    } else {
      // ilpReduce, on pointers: `data` is a byte address, `size` a count of floats.
      const shift = (rowByte % 16) / 4;
      let data = rowByte;
      let size = dim;
      let offset = t;
      if (shift > 0) {
        data -= 4 * shift;
        size += shift;
        if (t >= shift) fold(t, at(data + 4 * offset));
        size -= B;
        data += 4 * B;
      }
      const last = size % (4 * B);
      for (; offset * 4 < size - last; offset += B) load4(t, data + 16 * offset);
      for (offset = size - last + t; offset < size; offset += B) fold(t, at(data + 4 * offset));
    }
  }
}

function blockReduceOld(vals: number[], op: Op, identity: number): number {
  const B = vals.length;
  const smem = [...vals];
  const warpVals: number[] = [];
  for (let lane = 0; lane < B / 32; lane++) {
    let w = identity;
    for (let i = 0; i < 32; i++) w = op(w, smem[lane * 32 + i]!);
    warpVals.push(w);
  }
  warpVals.forEach((w, lane) => (smem[lane] = w)); // after __syncwarp
  let blockVal = identity;
  for (let i = 0; i < B / 32; i++) blockVal = op(blockVal, smem[i]!);
  return blockVal;
}

function warpReduce(lanes: number[], op: Op): number[] {
  let v = [...lanes];
  for (let off = 16; off > 0; off >>= 1) v = v.map((x, l) => op(x, l + off < 32 ? v[l + off]! : x));
  return v;
}

function blockReduceShfl(vals: number[], op: Op, identity: number): number {
  const warps = vals.length / 32;
  const shared: number[] = [];
  for (let w = 0; w < warps; w++) shared[w] = warpReduce(vals.slice(32 * w, 32 * w + 32), op)[0]!;
  const lane0 = Array.from({ length: 32 }, (_, l) => (l < warps ? shared[l]! : identity));
  return warpReduce(lane0, op)[0]!;
}

/**
 * Simulates one row: max pass, exp-sum pass, epilogue; NaN outputs as 0x7FFFFFFF.
 *
 * @param row fp32 patterns
 * @param launch kernel, block size, tree
 * @param options `mufu` and the row's element offset from a 16-byte boundary (`misalign`)
 * @returns the output patterns
 */
export function simulateBlockSoftmax(
  row: Uint32Array,
  launch: SimLaunch,
  options: { mufu: Mufu; misalign: number },
): Uint32Array {
  const dim = row.length;
  const x = Array.from(row, f32FromBits);
  const rowByte = 4096 + 4 * options.misalign; // a 16-byte-aligned base plus the offset
  const tree = launch.tree === "smem-serial" ? blockReduceOld : blockReduceShfl;
  const maxVals = new Array<number>(launch.blockSize).fill(-FLT_MAX);
  const reads = new Uint8Array(dim);
  threadLoop(launch, dim, rowByte, (t, i) => {
    reads[i]! += 1;
    maxVals[t] = fmaxf(maxVals[t]!, x[i]!);
  });
  if (reads.some((n) => n !== 1)) {
    throw new Error("the simulated loops must read each element once");
  }
  const max = tree(maxVals, maxOp, -FLT_MAX);
  const exp = (v: number) => f32FromBits(cudaExpf(bitsFromF32(Math.fround(v - max)), options.mufu));
  const sumVals = new Array<number>(launch.blockSize).fill(0);
  threadLoop(launch, dim, rowByte, (t, i) => (sumVals[t] = addOp(sumVals[t]!, exp(x[i]!))));
  const sum = tree(sumVals, addOp, 0);
  return Uint32Array.from(x, (v) => {
    const y = Math.fround(exp(v) / sum);
    return y !== y ? 0x7fffffff : bitsFromF32(y);
  });
}

/**
 * Seeded rows of FP32 logits, uniform in [-span, span] (mulberry32).
 *
 * @param count number of values
 * @param seed integer seed
 * @param span half-width of the range
 * @returns fp32 patterns
 */
export function randomLogits(count: number, seed: number, span = 8): Uint32Array {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return Uint32Array.from(
    { length: count },
    () => bitsFromF32(Math.fround((2 * next() - 1) * span)),
  );
}
