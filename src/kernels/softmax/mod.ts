/**
 * Softmax over the last dimension as PyTorch's CUDA kernels compute it (FP32 in/out; the eager
 * attention path), spec `stack_pytorch_hf.md` §2.5. The tour:
 *
 * - {@link softmaxRows}: give it the recorded `torch.__version__`; it picks the kernel the release
 *   launches and runs it, refusing releases and variants that are not pinned.
 * - {@link softmaxStackForTorch} / {@link SoftmaxStack}: the release facts as data (warp-kernel
 *   limit, block size rule, block tree, which block kernels exist).
 * - {@link softmaxLaunch}: `host_softmax`'s choice of kernel and block size.
 * - {@link softmaxWarp}: the persistent warp kernel; {@link softmaxBlock}: the block kernels, whose
 *   summation order is a {@link softmaxBlockPlan} (a `ReductionPlan` of `src/kernels/reduce`).
 *
 * @example
 * ```ts
 * import { softmaxLaunch, softmaxRows, softmaxStackForTorch, softmaxWarp } from "./mod.ts";
 * const mufu = { ex2: (x: number) => x === 0 ? 0x3f800000 : x, rcp: (x: number) => x, rsqrt: (x: number) => x };
 * if (softmaxWarp(new Uint32Array([0]), { dim: 1, mufu })[0] !== 0x3f800000) throw new Error();
 * const stack = softmaxStackForTorch("2.3.1");
 * if (softmaxLaunch(1500, { stack }).kernel !== "cunn_SoftMaxForward") throw new Error();
 * const y = softmaxRows(new Uint32Array(1500), { dim: 1500, torchVersion: "2.3.1", mufu });
 * if (y.length !== 1500) throw new Error();
 * ```
 * @module
 */
export { softmaxBlock, type SoftmaxBlockOptions } from "./softmax_block.ts";
export {
  type SoftmaxBlockPlan,
  softmaxBlockPlan,
  type SoftmaxBlockPlanOptions,
} from "./softmax_block_plan.ts";
export {
  type SoftmaxBlockLaunch,
  type SoftmaxLaunch,
  softmaxLaunch,
  type SoftmaxLaunchOptions,
  type SoftmaxWarpLaunch,
} from "./softmax_launch.ts";
export { softmaxRows, type SoftmaxRowsOptions } from "./softmax_rows.ts";
export {
  SOFTMAX_STACK_TORCH_2_1,
  SOFTMAX_STACK_TORCH_2_4,
  SOFTMAX_STACK_TORCH_2_7,
  type SoftmaxBlockTree,
  type SoftmaxStack,
} from "./softmax_stack.ts";
export {
  softmaxStackForTorch,
  type SoftmaxStackForTorchOptions,
} from "./softmax_stack_for_torch.ts";
export { softmaxWarp, type SoftmaxWarpOptions } from "./softmax_warp.ts";
