/**
 * Tensor-core arithmetic: the parametrised fused block (block FMA), one instruction's chain of
 * blocks, the K-walk of an output element, and the plain K-walk of a whole GEMM tile
 * (`kWalkReference`) that defines the bits the fast engine of `src/engine` must reproduce.
 * Parameters come from GPU profiles.
 *
 * @example
 * ```ts
 * import { blockFma } from "./mod.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const h100 = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 16, fracBits: 25,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -133, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * // Spec vector T3: 1.5*1.5 + 1.75*2^-23 + 2^-25 gives 2.25 + 2^-22 with F = 25.
 * const one = 0x3f80;
 * const d = blockFma(h100, { c: 0, a: [0x3fc0, 0x3460, 0x3300], b: [0x3fc0, one, one] });
 * if (d !== 0x40100001) throw new Error(d.toString(16));
 * ```
 * @module
 */
export { blockFma, type BlockOperands } from "./block_fma.ts";
export {
  type Chain,
  type Datapath,
  type InstructionFamily,
  type ProfileDatapath,
} from "./datapath.ts";
export { dotKWalk, type KWalkOperands } from "./dot_k_walk.ts";
export {
  checkKWalkOperands,
  gatherSegments,
  type KSegment,
  type KWalkGemmOperands,
  type OperandMemo,
} from "./k_walk_operands.ts";
export { kWalkReference } from "./k_walk_reference.ts";
export { type MmaOperands, mmaStep } from "./mma_step.ts";
export { parseDatapath } from "./parse_datapath.ts";
