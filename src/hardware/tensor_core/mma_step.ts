/**
 * One tensor-core instruction for one output element: the chain of fused blocks that a single
 * `mma`/`wgmma` issues over its k products.
 *
 * @module
 */
import { decode, packInfinity, packZero, roundPack } from "../../numerics/mod.ts";
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
  return dp.accumulator === "early" ? acc : addRne(dp, { x: acc, y: operands.c });
}

/**
 * One IEEE addition in the output format with round-to-nearest-even (the late C add).
 *
 * Exact: both operands are decoded to integers; the aligned sum is formed with BigInt, so any
 * exponent gap is handled without double rounding.
 *
 * @param dp datapath (only its output format is used)
 * @param operands the addend patterns `x` and `y`
 * @returns the rounded sum pattern
 * @example
 * ```ts
 * import { addRne } from "./mma_step.ts";
 * import { FP16 } from "../../numerics/mod.ts";
 * const dp = { output: FP16 } as unknown as Parameters<typeof addRne>[0];
 * if (addRne(dp, { x: 0x3c00, y: 0x3c00 }) !== 0x4000) throw new Error(); // 1 + 1 = 2
 * ```
 */
export function addRne(dp: Datapath, operands: { x: number; y: number }): number {
  const { x, y } = operands;
  const f = dp.output;
  const dx = decode(f, x);
  const dy = decode(f, y);
  if (dx.kind === "nan" || dy.kind === "nan") return f.canonicalNan;
  if (dx.kind === "inf" || dy.kind === "inf") {
    if (dx.kind === "inf" && dy.kind === "inf" && dx.sign !== dy.sign) return f.canonicalNan;
    return dx.kind === "inf" ? packInfinity(f, dx.sign) : packInfinity(f, dy.sign as 0 | 1);
  }
  if (dx.kind === "zero" && dy.kind === "zero") return packZero(f, (dx.sign & dy.sign) as 0 | 1);
  if (dx.kind === "zero") return y;
  if (dy.kind === "zero") return x;
  const lsb = Math.min(dx.exponent, dy.exponent);
  const vx = BigInt(dx.significand) << BigInt(dx.exponent - lsb);
  const vy = BigInt(dy.significand) << BigInt(dy.exponent - lsb);
  const sum = (dx.sign ? -vx : vx) + (dy.sign ? -vy : vy);
  if (sum === 0n) return 0; // IEEE: exact cancellation is +0 under nearest-even
  const mag = sum < 0n ? -sum : sum;
  // Keep 53 significant bits plus a sticky flag: more than enough for any 24-bit target.
  const len = mag.toString(2).length;
  const drop = Math.max(0, len - 53);
  const kept = mag >> BigInt(drop);
  const sticky = (kept << BigInt(drop)) !== mag;
  return roundPack(f, {
    sign: sum < 0n ? 1 : 0,
    significand: Number(kept),
    exponent: lsb + drop,
    sticky,
  });
}
