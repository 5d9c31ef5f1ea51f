/**
 * Evaluates a {@link ReductionPlan} on FP32 bit patterns with one IEEE add per plan operation.
 *
 * Each `add.rn.f32` is computed as `Math.fround(a + b)` on the float64 values of the operands: the
 * sum of two binary32 numbers rounded to binary64 and then to binary32 equals the directly rounded
 * binary32 sum, because 53 >= 2 * 24 + 2 (double rounding is innocuous for +, -, *, / and sqrt;
 * S. A. Figueroa, "When is double rounding innocuous?", SIGNUM Newsletter 30(3), 1995), subnormal
 * results included (binary64 has the range, and a subnormal binary32 result has fewer bits). A
 * NaN stays NaN through every later add, and the result's bits are canonicalised once at the end,
 * which is what `F32_RN.add` (canonical NaN at every step) gives. Tests compare both forms.
 *
 * @module
 */
import { FP32 } from "../../numerics/mod.ts";
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
  return _executePlanF32(
    plan,
    new Float32Array(values.buffer, values.byteOffset, values.length),
    offset,
  );
}

/**
 * {@link executePlan} on a float view of the patterns (offset already checked): the FP32 pattern
 * of the sum. For callers that sum many rows of one buffer through one view.
 */
export function _executePlanF32(plan: ReductionPlan, values: Float32Array, offset: number): number {
  const count = plan.registers.length;
  if (_regs.length < count) _regs = new Float64Array(count);
  const regs = _regs;
  for (let r = 0; r < count; r++) {
    const order = plan.registers[r] as Int32Array;
    let acc = 0; // +0
    for (let k = 0; k < order.length; k++) {
      acc = Math.fround(acc + (values[offset + (order[k] as number)] as number));
    }
    regs[r] = acc;
  }
  const steps = plan.steps;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    regs[step[0]] = Math.fround((regs[step[0]] as number) + (regs[step[1]] as number));
  }
  const sum = regs[plan.result] as number;
  if (sum !== sum) return FP32.canonicalNan;
  _F32[0] = sum;
  return _U32[0] as number;
}

/**
 * A {@link ReductionPlan} flattened for summing many rows: every register's input indices in one
 * array (register r folds `indices[starts[r]] .. indices[starts[r + 1] - 1]`) and the steps as two
 * index arrays. A snapshot: later edits to the plan do not reach it.
 */
export interface _FlatPlan {
  /** The input indices of all registers, register after register. */
  readonly indices: Int32Array;
  /** Register r's first index in `indices`; `registers + 1` entries. */
  readonly starts: Int32Array;
  /** Per step, the register written. */
  readonly dst: Int32Array;
  /** Per step, the register read. */
  readonly src: Int32Array;
  /** Register holding the sum at the end. */
  readonly result: number;
}

/**
 * Flattens a trusted plan for {@link _executeFlatF32}.
 *
 * @param plan the summation order
 * @returns its flat form
 */
export function _flattenPlan(plan: ReductionPlan): _FlatPlan {
  const count = plan.registers.length;
  const starts = new Int32Array(count + 1);
  for (let r = 0; r < count; r++) {
    starts[r + 1] = (starts[r] as number) + (plan.registers[r] as Int32Array).length;
  }
  const indices = new Int32Array(starts[count] as number);
  for (let r = 0; r < count; r++) indices.set(plan.registers[r] as Int32Array, starts[r]);
  const dst = Int32Array.from(plan.steps, (s) => s[0]);
  const src = Int32Array.from(plan.steps, (s) => s[1]);
  return { indices, starts, dst, src, result: plan.result };
}

/**
 * {@link _executePlanF32} of a flattened plan: the same additions in the same order, the same
 * FP32 pattern.
 *
 * @param flat the flattened plan
 * @param values float view of the FP32 patterns
 * @param offset index of input 0 in `values` (checked by the caller)
 * @returns the FP32 pattern of the sum
 */
export function _executeFlatF32(flat: _FlatPlan, values: Float32Array, offset: number): number {
  const { indices, starts, dst, src } = flat;
  const count = starts.length - 1;
  if (_regs.length < count) _regs = new Float64Array(count);
  const regs = _regs;
  let k = 0;
  for (let r = 0; r < count; r++) {
    const end = starts[r + 1] as number;
    let acc = 0; // +0
    for (; k < end; k++) {
      acc = Math.fround(acc + (values[offset + (indices[k] as number)] as number));
    }
    regs[r] = acc;
  }
  for (let i = 0; i < dst.length; i++) {
    const d = dst[i] as number;
    regs[d] = Math.fround((regs[d] as number) + (regs[src[i] as number] as number));
  }
  const sum = regs[flat.result] as number;
  if (sum !== sum) return FP32.canonicalNan;
  _F32[0] = sum;
  return _U32[0] as number;
}

/** Register scratch, reused by every call (the module is single-threaded per realm). */
let _regs = new Float64Array(64);
const _F32 = new Float32Array(1);
const _U32 = new Uint32Array(_F32.buffer);
