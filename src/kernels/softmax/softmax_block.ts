/**
 * PyTorch's block-per-row softmax kernels (`cunn_SoftMaxForward`, `cunn_SoftMaxForwardReg`,
 * `cunn_SoftMaxForwardSmem`; FP32 in/out, last dimension), bit for bit given a MUFU model
 * (spec `stack_pytorch_hf.md` §2.5, SoftMax.cu):
 *
 * ```
 * max  = max(-FLT_MAX, x_i over non-NaN x_i)     # fmaxf per thread, `a < b ? b : a` tree: exact
 * e_i  = expf(fl(x_i - max))                      # FADD, then libdevice expf (§2.3)
 * sum  = the plan of softmaxBlockPlan over e_i    # per-thread folds from +0, then the block tree
 * out_i = e_i / sum                               # the epilogue recomputes expf; IEEE division
 * ```
 *
 * @module
 */
import { addF32, divF32, fmaF32, isNanF32 } from "../../hardware/mod.ts";
import { f32FromBits, FP32 } from "../../numerics/mod.ts";
import { cudaExpf, expfParts, type Mufu } from "../math/mod.ts";
import { executePlan } from "../reduce/mod.ts";
import type { SoftmaxBlockLaunch } from "./softmax_launch.ts";
import { type SoftmaxBlockPlan, softmaxBlockPlan } from "./softmax_block_plan.ts";
import { _rowMax } from "./_row_max.ts";

/** Options of {@link softmaxBlock}. */
export interface SoftmaxBlockOptions {
  /** Row length (the softmax dimension). */
  readonly dim: number;
  /** MUFU implementation for `expf`. */
  readonly mufu: Mufu;
  /** The block kernel, block size and tree (see `softmaxLaunch`). */
  readonly launch: SoftmaxBlockLaunch;
  /** Input misalignment from a 16-byte boundary in elements (default 0); row r starts at `baseOffset + r * dim`. */
  readonly baseOffset?: number;
  /**
   * How `sum + expf(v - max)` is compiled. nvcc builds ATen with `--fmad=true`, so ptxas may fuse
   * expf's final `EX2 * 2^k` into the accumulation (`"ffma"`) or keep FMUL + FADD
   * (`"fmul-fadd"`); not checked in SASS. The two agree whenever every product `EX2 * 2^k` is
   * exact (it is unless the term is subnormal). Default: compute both and refuse the row when
   * they differ.
   */
  readonly expfAccumulate?: "ffma" | "fmul-fadd";
}

/**
 * Softmax of each row of an FP32 matrix with a block kernel.
 *
 * @param x fp32 patterns, row-major [rows, dim]
 * @param options row length, MUFU, launch, alignment, accumulation contraction
 * @returns fp32 patterns, same layout
 * @throws {RangeError} when `dim` does not divide the input, the launch is not modelled (see
 *   `softmaxBlockPlan`), or a row's bits depend on an unpinned compilation choice (the FFMA
 *   contraction above, or the sign of a zero maximum when expf(-0) != expf(+0) under `mufu`)
 * @example
 * ```ts
 * import { softmaxBlock } from "./softmax_block.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * const mufu = createSfu({ mode: "ieee", ftz: true });
 * const launch = { kernel: "cunn_SoftMaxForward", blockSize: 256, tree: "smem-serial" } as const;
 * const y = softmaxBlock(new Uint32Array(2048), { dim: 2048, mufu, launch }); // equal logits
 * if (y[0] !== 0x3a000000 || y[2047] !== 0x3a000000) throw new Error(); // 2^-11 each
 * ```
 */
export function softmaxBlock(x: Uint32Array, options: SoftmaxBlockOptions): Uint32Array {
  const { dim, mufu, launch } = options;
  const baseOffset = options.baseOffset ?? 0;
  if (!Number.isSafeInteger(dim) || dim < 1 || x.length % dim !== 0) {
    throw new RangeError(
      `Cannot run ${launch.kernel}: dim ${dim} must be a positive integer dividing ${x.length} values`,
    );
  }
  if (!Number.isSafeInteger(baseOffset) || baseOffset < 0) {
    throw new RangeError(`Cannot run ${launch.kernel}: bad baseOffset ${baseOffset}`);
  }
  const plans = new Map<number, SoftmaxBlockPlan>();
  const out = new Uint32Array(x.length);
  const e = new Uint32Array(dim);
  for (let r = 0; r < x.length / dim; r++) {
    const row = x.subarray(r * dim, (r + 1) * dim);
    // Only ilpReduce looks at the alignment; Smem requires (and the plan checks) an aligned row.
    const rowShift = (baseOffset + r * dim) % 4;
    const shift = launch.kernel === "cunn_SoftMaxForwardReg" ? 0 : rowShift;
    let plan = plans.get(shift);
    if (plan === undefined) {
      plan = softmaxBlockPlan(dim, { launch, shift });
      plans.set(shift, plan);
    }
    const negMax = (_rowMax(row, mufu, launch.kernel) ^ 0x80000000) >>> 0;
    const inexact: number[] = [];
    for (let i = 0; i < dim; i++) {
      e[i] = cudaExpf(addF32(row[i]!, negMax), mufu); // fl(x - max) = fl(x + (-max))
      if ((e[i]! & 0x7f800000) === 0 && _productInexact(row[i]!, negMax, mufu)) inexact.push(i);
    }
    let sum = _canonical(executePlan(plan, e));
    if (inexact.length > 0 && options.expfAccumulate !== "fmul-fadd") {
      const fused = _canonical(_fusedSum(plan, e, { row, negMax, mufu, inexact }));
      if (options.expfAccumulate === undefined && fused !== sum) {
        throw new RangeError(
          `Cannot run ${launch.kernel} on row ${r}: its sum depends on whether expf's final ` +
            `multiply is fused into the accumulation (set 'expfAccumulate')`,
        );
      }
      sum = fused;
    }
    for (let i = 0; i < dim; i++) out[r * dim + i] = divF32(e[i]!, sum);
  }
  return out;
}

/** Whether `EX2 * 2^k` of expf(fl(x - max)) is inexact (only possible for subnormal terms). */
function _productInexact(x: number, negMax: number, mufu: Mufu): boolean {
  const { e, scale } = expfParts(addF32(x, negMax), mufu);
  const p = f32FromBits(e) * f32FromBits(scale); // exact in float64: 24-bit significand times 2^k
  return p === p && Math.fround(p) !== p;
}

/** The plan with `acc = fma(EX2, 2^k, acc)` for the inexact terms (FFMA contraction). */
function _fusedSum(
  plan: SoftmaxBlockPlan,
  e: Uint32Array,
  ctx: { row: Uint32Array; negMax: number; mufu: Mufu; inexact: number[] },
): number {
  const special = new Map<number, { e: number; scale: number }>();
  for (const i of ctx.inexact) special.set(i, expfParts(addF32(ctx.row[i]!, ctx.negMax), ctx.mufu));
  const regs = new Uint32Array(plan.registers.length);
  plan.registers.forEach((list, t) => {
    let acc = 0; // +0
    for (const i of list) {
      const p = special.get(i);
      acc = p === undefined ? addF32(acc, e[i]!) : fmaF32([p.e, p.scale, acc]);
    }
    regs[t] = acc;
  });
  for (const [dst, src] of plan.steps) regs[dst] = addF32(regs[dst]!, regs[src]!);
  return regs[plan.result]!;
}

/** NaN sums (any payload) as the canonical pattern, so that two evaluations compare equal. */
function _canonical(bits: number): number {
  return isNanF32(bits) ? FP32.canonicalNan : bits;
}
