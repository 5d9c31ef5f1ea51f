/**
 * The sequential K-walk of one output element through a datapath's instructions.
 *
 * @module
 */
import type { Datapath } from "./datapath.ts";
import { mmaStep } from "./mma_step.ts";

/** Operands of {@link dotKWalk}. */
export interface KWalkOperands {
  /** A row as `dp.input` patterns (length K). */
  readonly a: ArrayLike<number>;
  /** B column as `dp.input` patterns (length K). */
  readonly b: ArrayLike<number>;
  /** Initial accumulator pattern in `dp.output`; default +0. */
  readonly c?: number;
}

/**
 * Walks K in instruction-sized steps in increasing k, feeding each instruction the previous
 * result as accumulator (CUTLASS's default mainloop; spec `tensor_core.md` §3). A K tail is
 * zero-padded inside its last instruction.
 *
 * @param dp datapath
 * @param operands A row, B column and initial accumulator
 * @returns the final accumulator pattern in `dp.output`
 * @throws {RangeError} when the operand lengths differ
 * @example
 * ```ts
 * import { dotKWalk } from "./dot_k_walk.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const dp = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 16, fracBits: 25,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -133, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * const ones = new Array(40).fill(0x3f80);
 * if (dotKWalk(dp, { a: ones, b: ones }) !== 0x42200000) throw new Error(); // 40.0
 * ```
 */
export function dotKWalk(dp: Datapath, operands: KWalkOperands): number {
  const { a, b } = operands;
  if (a.length !== b.length) {
    throw new RangeError(`Cannot walk K: A has ${a.length} values, B has ${b.length}`);
  }
  let acc = operands.c ?? 0;
  const aa = Array.from(a);
  const bb = Array.from(b);
  for (let k0 = 0; k0 < aa.length; k0 += dp.k) {
    acc = mmaStep(dp, { c: acc, a: aa.slice(k0, k0 + dp.k), b: bb.slice(k0, k0 + dp.k) });
  }
  return acc;
}
