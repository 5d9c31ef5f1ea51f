/**
 * The summation order of one row of PyTorch's block softmax kernels as a {@link ReductionPlan}
 * (the representation of `src/kernels/reduce`): per-thread folds, then the block tree.
 *
 * @module
 */
import type { CombineStep, ReductionPlan } from "../reduce/mod.ts";
import { _softmaxThreadFolds } from "./_softmax_thread_folds.ts";
import { SOFTMAX_ILP, type SoftmaxBlockLaunch } from "./softmax_launch.ts";

/** A {@link ReductionPlan} with the launch and alignment it was derived from. */
export interface SoftmaxBlockPlan extends ReductionPlan {
  /** The kernel, block size and tree. */
  readonly launch: SoftmaxBlockLaunch;
  /** Misalignment of the row start in elements (0 when 16-byte aligned). */
  readonly shift: number;
}

/** Options of {@link softmaxBlockPlan}. */
export interface SoftmaxBlockPlanOptions {
  /** The block kernel (see `softmaxLaunch`). */
  readonly launch: SoftmaxBlockLaunch;
  /** Row start modulo 4 elements (default 0); only `cunn_SoftMaxForward` looks at it. */
  readonly shift?: number;
}

/**
 * Builds the plan: register t is thread t's accumulator (`threadExp`, from +0), then the block
 * tree. `"smem-serial"` (old `blockReduce`): lane w of warp 0 adds registers 32w+1 .. 32w+31 into
 * 32w in order, then thread 0 adds 32, 64, ... into 0. `"shfl-down"` (`cuda_utils::BlockReduce`):
 * in every warp, offsets 16 .. 1 add lane l + off into lane l (only lanes that reach lane 0 are
 * listed), then the same over the per-warp partials 0, 32, 64, ...; lanes beyond the warp count
 * hold the identity +0, and `x + 0 = x` for every partial (partials are sums from +0 of values
 * >= +0, never -0), so those additions are left out.
 *
 * The identity the old tree starts from is dropped the same way (`0 + x = x` for x != -0).
 *
 * @param dim row length
 * @param options the launch and the row misalignment
 * @returns the frozen plan
 * @throws {RangeError} on a bad size, block size or shift, a `Reg` count PyTorch does not
 *   instantiate (1..9), an unaligned `Smem` row, or a row shorter than the block (where releases
 *   differ in the head loop; `host_softmax` never launches it)
 * @example
 * ```ts
 * import { softmaxBlockPlan } from "./softmax_block_plan.ts";
 * const launch = { kernel: "cunn_SoftMaxForwardReg", blockSize: 1024, tree: "shfl-down" } as const;
 * const p = softmaxBlockPlan(3000, { launch });
 * const t5 = p.registers[5]!; // thread 5 reads x[5], x[1029], x[2053]
 * if (t5.join() !== "5,1029,2053") throw new Error();
 * ```
 */
export function softmaxBlockPlan(dim: number, options: SoftmaxBlockPlanOptions): SoftmaxBlockPlan {
  const { launch } = options;
  const shift = options.shift ?? 0;
  const B = launch.blockSize;
  const fail = (why: string) => {
    throw new RangeError(`Cannot plan ${launch.kernel} for dim ${dim}: ${why}`);
  };
  if (!Number.isSafeInteger(dim) || dim < 1) fail("dim must be a positive integer");
  if (!Number.isInteger(B) || B < 32 || B > 1024 || B % 32 !== 0) fail(`bad block size ${B}`);
  if (!Number.isInteger(shift) || shift < 0 || shift >= SOFTMAX_ILP) fail(`bad shift ${shift}`);
  if (launch.kernel === "cunn_SoftMaxForwardReg" && Math.ceil(dim / B) > 9) {
    fail(`reg_cnt ${Math.ceil(dim / B)} is not instantiated (1..9)`);
  }
  if (launch.kernel === "cunn_SoftMaxForwardSmem" && (dim % SOFTMAX_ILP !== 0 || shift !== 0)) {
    fail("the shared-memory kernel needs an aligned row and dim % 4 == 0");
  }
  if (launch.kernel === "cunn_SoftMaxForward" && shift > 0 && dim + shift < B) {
    fail(`a misaligned row shorter than the block (${B}) is not modelled`);
  }
  const registers: Int32Array[] = [];
  for (let t = 0; t < B; t++) {
    registers.push(Int32Array.from(_softmaxThreadFolds(launch, dim, { t, shift })));
  }
  const steps: CombineStep[] = [];
  const warps = B / 32;
  if (launch.tree === "smem-serial") {
    for (let w = 0; w < warps; w++) {
      for (let i = 1; i < 32; i++) steps.push([32 * w, 32 * w + i]);
    }
    for (let w = 1; w < warps; w++) steps.push([0, 32 * w]);
  } else {
    for (let w = 0; w < warps; w++) {
      _shuffleDown(32, (l, m) => steps.push([32 * w + l, 32 * w + m]));
    }
    _shuffleDown(warps, (l, m) => steps.push([32 * l, 32 * m]));
  }
  return Object.freeze({
    length: dim,
    registers: Object.freeze(registers),
    steps: Object.freeze(steps),
    result: 0,
    launch,
    shift,
  });
}

/**
 * The lane-0 part of `for (off = 16; off > 0; off >>= 1) v += shfl_down(v, off)` over `n <= 32`
 * live lanes (lanes >= n hold the identity and are skipped).
 */
function _shuffleDown(n: number, add: (dst: number, src: number) => void): void {
  for (let off = 16; off >= 1; off /= 2) {
    for (let l = 0; l < off; l++) if (l + off < n) add(l, l + off);
  }
}
