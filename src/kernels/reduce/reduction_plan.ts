/**
 * A reduction plan: the order of every FP32 addition of a sum, as data. Any summation topology
 * (a left fold, PyTorch's reduce_kernel, a CUB tree) is written as registers that each fold a
 * list of input elements in order, followed by pairwise register combinations.
 *
 * @module
 */

/** One pairwise combination: `reg[dst] = fl32(reg[dst] + reg[src])`; `src` is dead afterwards. */
export type CombineStep = readonly [dst: number, src: number];

/** An explicit summation order over `length` inputs. */
export interface ReductionPlan {
  /** Number of inputs the plan reads (indices 0 .. length-1). */
  readonly length: number;
  /**
   * Per register, the input indices it folds in order, starting from +0: `reg = fl32(reg + x[i])`.
   * An empty list leaves the register at +0 (an idle thread's identity value).
   */
  readonly registers: readonly Int32Array[];
  /** Combinations applied in order after all folds. */
  readonly steps: readonly CombineStep[];
  /** Register holding the sum at the end. */
  readonly result: number;
}

/**
 * Checks that a plan reads every input exactly once and forms a tree: each register is consumed
 * at most once, never used after being consumed, and everything but `result` is consumed.
 *
 * @param plan the plan
 * @throws {RangeError} naming the first defect (out-of-range index, duplicate, missing input,
 *   reuse of a consumed register, or a register that never reaches the result)
 * @example
 * ```ts
 * import { validatePlan } from "./reduction_plan.ts";
 * validatePlan({ length: 2, registers: [Int32Array.of(0), Int32Array.of(1)], steps: [[0, 1]], result: 0 });
 * ```
 */
export function validatePlan(plan: ReductionPlan): void {
  const seen = new Uint8Array(plan.length);
  for (const reg of plan.registers) {
    for (const i of reg) {
      if (!(i >= 0 && i < plan.length)) {
        throw new RangeError(
          `Cannot validate plan: input index ${i} outside 0..${plan.length - 1}`,
        );
      }
      if (seen[i] === 1) throw new RangeError(`Cannot validate plan: input ${i} read twice`);
      seen[i] = 1;
    }
  }
  const missing = seen.indexOf(0);
  if (missing >= 0) throw new RangeError(`Cannot validate plan: input ${missing} never read`);
  const n = plan.registers.length;
  const dead = new Uint8Array(n);
  const ok = (r: number) => Number.isInteger(r) && r >= 0 && r < n;
  for (const [dst, src] of plan.steps) {
    if (!ok(dst) || !ok(src) || dst === src) {
      throw new RangeError(`Cannot validate plan: bad step [${dst}, ${src}]`);
    }
    if (dead[dst] === 1 || dead[src] === 1) {
      throw new RangeError(`Cannot validate plan: step [${dst}, ${src}] uses a consumed register`);
    }
    dead[src] = 1;
  }
  if (!ok(plan.result) || dead[plan.result] === 1) {
    throw new RangeError(`Cannot validate plan: result register ${plan.result} is not live`);
  }
  for (let r = 0; r < n; r++) {
    if (r !== plan.result && dead[r] === 0) {
      throw new RangeError(`Cannot validate plan: register ${r} never reaches the result`);
    }
  }
}

/**
 * The left fold `((0 + x0) + x1) + ...`: one register reading the inputs in index order.
 *
 * @param length number of inputs
 * @returns the plan
 * @throws {RangeError} when `length` is not a non-negative integer
 * @example
 * ```ts
 * import { sequentialPlan } from "./reduction_plan.ts";
 * const p = sequentialPlan(3);
 * if (p.registers[0]!.join() !== "0,1,2" || p.steps.length !== 0) throw new Error();
 * ```
 */
export function sequentialPlan(length: number): ReductionPlan {
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new RangeError(`Cannot build plan: length must be a non-negative integer, got ${length}`);
  }
  const order = new Int32Array(length);
  for (let i = 0; i < length; i++) order[i] = i;
  return Object.freeze({ length, registers: Object.freeze([order]), steps: [], result: 0 });
}
