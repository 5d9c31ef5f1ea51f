/**
 * One tensor-core instruction for one output element: the chain of fused blocks that a single
 * `mma`/`wgmma` issues over its k products.
 *
 * @module
 */
import { floatAdd } from "../../numerics/mod.ts";
import { blockFma } from "./block_fma.ts";
import { blockPositions, type Datapath } from "./datapath.ts";

/** Operands of one instruction for one output element. */
export interface MmaOperands {
  /** Accumulator pattern in `dp.output`. */
  readonly c: number;
  /** A row segment (input patterns); shorter than `dp.k` means zero-padded. */
  readonly a: ArrayLike<number>;
  /** B column segment, same length as `a`. */
  readonly b: ArrayLike<number>;
}

/**
 * Runs one instruction: every fused block of the datapath's chain in order, the accumulator
 * handed from block to block (already rounded to the result grid), and for `late` datapaths a
 * final nearest-even addition of C.
 *
 * @param dp datapath parameters
 * @param operands accumulator and up to `dp.k` operand pairs
 * @returns the result pattern in `dp.output`
 * @throws {RangeError} when more than `dp.k` pairs are given or lengths differ
 * @example
 * ```ts
 * import { mmaStep } from "./mma_step.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const h100 = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 16, fracBits: 25,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -133, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * if (mmaStep(h100, { c: 0x3f800000, a: [0x3f80], b: [0x3f80] }) !== 0x40000000) throw new Error();
 * ```
 */
export function mmaStep(dp: Datapath, operands: MmaOperands): number {
  const { a, b } = operands;
  if (a.length !== b.length || a.length > dp.k) {
    throw new RangeError(
      `Cannot run MMA step: expected equal operand lengths of at most ${dp.k}, got ${a.length} and ${b.length}`,
    );
  }
  let acc = dp.accumulator === "early" ? operands.c : 0;
  for (const positions of blockPositions(dp)) {
    const ba: number[] = [];
    const bb: number[] = [];
    for (const k of positions) {
      if (k < a.length) {
        ba.push(a[k] as number);
        bb.push(b[k] as number);
      }
    }
    acc = blockFma(dp, { c: acc, a: ba, b: bb });
  }
  // The late C add is an ordinary IEEE addition in the output format, nearest-even, subnormals
  // kept, canonical NaN: the reference `floatAdd` of src/numerics.
  return dp.accumulator === "early" ? acc : floatAdd(dp.output, [acc, operands.c]);
}
