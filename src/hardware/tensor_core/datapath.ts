/**
 * The parameters of one tensor-core datapath: how an instruction family rounds for one pair of
 * input and output formats on one GPU. Instances are built from profile JSON by
 * `parseDatapath` and are frozen.
 *
 * @module
 */
import type { FloatFormat } from "../../numerics/mod.ts";

/** Instruction families whose arithmetic has been characterised. */
export type InstructionFamily = "mma" | "wgmma" | "tcgen05";

/** How the products of one instruction are split into fused blocks. */
export type Chain =
  | { readonly kind: "contiguous" }
  | {
    /**
     * Blocks take the positions `k` whose residue `k mod period` is in the group, group by
     * group (Hopper/Blackwell `mma.sync` fp8: two fp16 HMMAs over byte pairs, Khattak &
     * Mikaitis §12.3 reconstruction).
     */
    readonly kind: "interleaved";
    readonly period: number;
    readonly groups: readonly (readonly number[])[];
  };

/** A frozen tensor-core datapath description. */
export interface Datapath {
  /** Instruction family this datapath describes. */
  readonly family: InstructionFamily;
  /** Format of the A and B operands. */
  readonly input: FloatFormat;
  /** Format of the accumulator C and result D (fp32 or fp16). */
  readonly output: FloatFormat;
  /** Depth (k) of the modelled instruction: products per accumulator hand-off of one MMA. */
  readonly k: number;
  /** Products fused in one block (Khattak & Mikaitis `fma`, MMA-Sim `L`). */
  readonly blockSize: number;
  /** Fraction bits kept below the alignment exponent (F = 23 + neab). */
  readonly fracBits: number;
  /** Grid each block result is rounded to (fp32, e8m13 or fp16); shares `output`'s container. */
  readonly resultFormat: FloatFormat;
  /** Rounding of each block result. */
  readonly rounding: "rz" | "rne";
  /** Lower bound of the alignment exponent (Khattak & Mikaitis `min_exp_limit`), or null. */
  readonly alignFloor: number | null;
  /** Block structure inside one instruction. */
  readonly chain: Chain;
  /**
   * `early`: C enters the first block's fused sum. `late`: the blocks start from zero and C is
   * added at the end with one round-to-nearest-even addition in the output format.
   */
  readonly accumulator: "early" | "late";
}

/** A datapath plus its provenance, as listed in a profile. */
export interface ProfileDatapath extends Datapath {
  /** Stable id inside the profile, e.g. `mma-bf16-fp32`. */
  readonly id: string;
  /** Where each parameter comes from (papers, tables, measured sets). */
  readonly sources: readonly string[];
  /** What checks this datapath against hardware, e.g. a measured vector set. */
  readonly validation: string;
  /** Why a parameter departs from a published model, when it does. */
  readonly note?: string;
}

/**
 * Lists, for one instruction, the operand positions of each fused block in execution order.
 *
 * @param dp the datapath
 * @returns one array of positions in `[0, dp.k)` per block
 * @example
 * ```ts
 * import { blockPositions } from "./datapath.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const dp = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 8, fracBits: 24,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -132, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * if (blockPositions(dp).length !== 2) throw new Error("A100 runs two blocks of 8");
 * ```
 */
export function blockPositions(dp: Datapath): number[][] {
  const out: number[][] = [];
  if (dp.chain.kind === "contiguous") {
    for (let k0 = 0; k0 < dp.k; k0 += dp.blockSize) {
      const block: number[] = [];
      for (let k = k0; k < Math.min(k0 + dp.blockSize, dp.k); k++) block.push(k);
      out.push(block);
    }
    return out;
  }
  const { period, groups } = dp.chain;
  for (const group of groups) {
    const block: number[] = [];
    for (let k = 0; k < dp.k; k++) if (group.includes(k % period)) block.push(k);
    out.push(block);
  }
  return out;
}
