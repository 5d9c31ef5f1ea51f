/**
 * PyTorch's CUDA `reduce_kernel` topology as data: the launch configuration
 * ({@link reduceConfig}), an explicit {@link ReductionPlan} per row ({@link pytorchReducePlan}),
 * a plan executor on FP32 bit patterns ({@link executePlan}) and row sums
 * ({@link reduceSumRows}). Version-dependent facts live in a {@link ReduceStack}.
 *
 * @example
 * ```ts
 * import { executePlan, pytorchReducePlan, reduceStackForTorch, validatePlan } from "./mod.ts";
 * const stack = reduceStackForTorch("2.9.1+cu128");
 * const plan = pytorchReducePlan({ outputs: 1, length: 2560 }, { stack });
 * validatePlan(plan); // every element exactly once, one tree
 * if (plan.config.blockWidth !== 512) throw new Error(); // one row: 512 threads cooperate
 * const ones = new Uint32Array(2560).fill(0x3f800000);
 * if (executePlan(plan, ones) !== 0x45200000) throw new Error(); // 2560
 * ```
 * @module
 */
export { executePlan, type ExecutePlanOptions } from "./execute_plan.ts";
export {
  type PytorchReducePlan,
  pytorchReducePlan,
  type PytorchReducePlanOptions,
} from "./pytorch_reduce_plan.ts";
export { type ReduceConfig, reduceConfig } from "./reduce_config.ts";
export {
  parseReduceStack,
  REDUCE_STACK_CUDA_LEGACY,
  REDUCE_STACK_CUDA_RECENT,
  REDUCE_STACK_ROCM_RECENT,
  type ReduceStack,
  type WarpShuffleOrder,
} from "./reduce_stack.ts";
export { reduceStackForTorch, type ReduceStackForTorchOptions } from "./reduce_stack_for_torch.ts";
export { reduceSumRows, type ReduceSumRowsOptions } from "./reduce_sum_rows.ts";
export {
  type CombineStep,
  type ReductionPlan,
  sequentialPlan,
  validatePlan,
} from "./reduction_plan.ts";
