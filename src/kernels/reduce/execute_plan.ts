/**
 * Evaluates a {@link ReductionPlan} on FP32 bit patterns with one IEEE add per plan operation.
 *
 * @module
 */
import { F32_RN } from "../../hardware/mod.ts";
import type { ReductionPlan } from "./reduction_plan.ts";

/** Options of {@link executePlan}. */
export interface ExecutePlanOptions {
  /** Index of input 0 inside `values` (a row offset into a matrix); default 0. */
  readonly offset?: number;
}

/**
 * Sums `plan.length` FP32 values in the plan's order. Every register starts at +0 (the reduction
 * identity; `0 + x` is a real FADD on the GPU, so a register folding only -0 ends at +0), each
 * fold and each combination is one `add.rn.f32` (`F32_RN.add`: RNE, no flush to zero, canonical NaN).
 *
 * The plan is trusted; check foreign plans with `validatePlan` first.
 *
 * @param plan the summation order
 * @param values FP32 bit patterns
 * @param options `offset` of the first input
 * @returns the FP32 pattern of the sum
 * @throws {RangeError} when the inputs do not fit in `values`
 * @example
 * ```ts
 * import { executePlan } from "./execute_plan.ts";
 * import { sequentialPlan } from "./reduction_plan.ts";
 * // 1 + 2^-24 + 2^-24: the left fold loses both halves of an ulp, (1 + (2^-24 + 2^-24)) keeps them.
 * const x = Uint32Array.of(0x3f800000, 0x33800000, 0x33800000);
 * if (executePlan(sequentialPlan(3), x) !== 0x3f800000) throw new Error();
 * const tree = { length: 3, registers: [Int32Array.of(0), Int32Array.of(1, 2)], steps: [[0, 1]] as const, result: 0 };
 * if (executePlan(tree, x) !== 0x3f800001) throw new Error();
 * ```
 */
export function executePlan(
  plan: ReductionPlan,
  values: Uint32Array,
  options: ExecutePlanOptions = {},
): number {
  const offset = options.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0 || offset + plan.length > values.length) {
    throw new RangeError(
      `Cannot execute plan: inputs ${offset}..${offset + plan.length - 1} outside ` +
        `${values.length} values`,
    );
  }
  const regs = new Uint32Array(plan.registers.length);
  for (let r = 0; r < plan.registers.length; r++) {
    const order = plan.registers[r] as Int32Array;
    let acc = 0; // +0
    for (let k = 0; k < order.length; k++) {
      acc = F32_RN.add(acc, values[offset + (order[k] as number)] as number);
    }
    regs[r] = acc;
  }
  for (const [dst, src] of plan.steps) {
    regs[dst] = F32_RN.add(regs[dst] as number, regs[src] as number);
  }
  return regs[plan.result] as number;
}
