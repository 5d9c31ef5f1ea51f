/**
 * One projection of a planned block: y = x W^T through the plan's recipe, BF16 out.
 *
 * @module
 */
import { type GemmResult, runGemmRecipe } from "../../src/kernels/mod.ts";
import type { BlockPlanBase, BlockRuntime, GemmCall } from "../../src/model/mod.ts";

/**
 * Runs a projection with the recipe the plan fixed for it.
 *
 * @param x activations [call.m, call.k] (BF16 patterns)
 * @param options the plan, the runtime (walker), the call and the weight [call.n, call.k]
 * @returns the GEMM's FP32 pre-epilogue values and BF16 output
 * @throws {RangeError} when the plan has no recipe for the call or the shapes do not match
 * @example
 * ```ts ignore
 * const q = await runProjection(h, { plan, runtime, call: { name: "q_proj", m, n, k }, weight });
 * ```
 */
export function runProjection(
  x: Uint16Array,
  options: {
    readonly plan: BlockPlanBase;
    readonly runtime: BlockRuntime;
    readonly call: GemmCall;
    readonly weight: Uint16Array;
  },
): Promise<GemmResult> {
  const { plan, call } = options;
  const recipe = plan.recipes[call.name];
  if (recipe === undefined) {
    throw new RangeError(`Cannot run ${call.name}: the plan fixes no recipe for it`);
  }
  return runGemmRecipe(recipe, {
    dp: plan.datapath,
    walker: options.runtime.walker,
    a: x,
    b: options.weight,
    m: call.m,
    n: call.n,
    k: call.k,
    outFormat: "bf16",
  });
}
