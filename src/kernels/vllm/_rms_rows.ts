/**
 * The per-row pieces shared by vLLM's RMSNorm kernels (`csrc/layernorm_kernels.cu` at vLLM commit
 * c31246800c98272ab28b7d454d6b72f38e396972): the per-thread sums of squares (scalar strided loop,
 * or width-8 vectors through `_f16Vec::sum_squares`), the scale `rsqrtf(variance / hidden + eps)`
 * and the output casts. Every FP32 operation is the FP32 unit's `.rn` form without `.ftz` (vLLM is
 * built without fast-math), on bit patterns.
 *
 * @module
 */
import { divF32, F32_RN } from "../../hardware/mod.ts";
import { bitsFromF32, fp32ToBf16 } from "../../numerics/mod.ts";
import { cudaRsqrtf, type Mufu } from "../math/mod.ts";
import { cubBlockReduceSum } from "./cub_block_reduce.ts";

/**
 * Thread partials of the scalar loops (`rms_norm_kernel` :22-25, generic `fused_add_rms_norm_kernel`
 * :115-121): thread t does `variance += x * x` over elements t, t + B, t + 2B, ... from 0.0f.
 * Not contracted: `fl(variance + fl(x * x))`; contracted: `fma(x, x, variance)`.
 *
 * @param row FP32 patterns of one row (BF16 values widened exactly)
 * @param out one partial per thread (length B = blockDim.x)
 * @param contract whether `x * x + variance` is one FFMA
 */
export function _scalarPartials(row: Uint32Array, out: Uint32Array, contract: boolean): void {
  const threads = out.length;
  for (let t = 0; t < threads; t++) {
    let acc = 0;
    for (let i = t; i < row.length; i += threads) {
      const x = row[i]!;
      acc = contract ? F32_RN.fma(x, x, acc) : F32_RN.add(acc, F32_RN.mul(x, x));
    }
    out[t] = acc;
  }
}

/**
 * Thread partials of the width-8 loop (`fused_add_rms_norm_kernel<width>` :73-80 with
 * `_f16Vec::sum_squares`, `csrc/type_convert.cuh:147-163`): thread t takes vectors t, t + B, ...
 * of 8 elements; a vector's sum is `result = 0; result += x0*x0 + x1*x1; result += x2*x2 + x3*x3;
 * ...` (pairs through `__bfloat1622float2`), added to the thread's `variance`. Not contracted, a
 * pair is `fl(fl(x^2) + fl(y^2))`; contracted, `fma(x, x, fl(y^2))` (LLVM's DAG combiner folds the
 * first multiply of `fadd(fmul, fmul)` when both have one use).
 *
 * @param row FP32 patterns of one row (length a multiple of 8)
 * @param out one partial per thread (length B = blockDim.x)
 * @param contract whether each pair is one FFMA plus one FMUL
 */
export function _vec8Partials(row: Uint32Array, out: Uint32Array, contract: boolean): void {
  const threads = out.length;
  const vectors = row.length / 8;
  for (let t = 0; t < threads; t++) {
    let acc = 0;
    for (let v = t; v < vectors; v += threads) {
      let sum = 0;
      for (let j = 8 * v; j < 8 * v + 8; j += 2) {
        const x = row[j]!;
        const y = row[j + 1]!;
        const yy = F32_RN.mul(y, y);
        const pair = contract ? F32_RN.fma(x, x, yy) : F32_RN.add(F32_RN.mul(x, x), yy);
        sum = F32_RN.add(sum, pair);
      }
      acc = F32_RN.add(acc, sum);
    }
    out[t] = acc;
  }
}

/**
 * `s_variance = rsqrtf(variance / hidden_size + epsilon)` (:32, :87, :128): the int converts
 * exactly to FP32, `div.rn.f32` (IEEE: nvcc's default `-prec-div=true`), `add.rn.f32`, and
 * libdevice `rsqrtf` = `rsqrt.approx.f32` (MUFU.RSQ with the non-FTZ subnormal expansion).
 *
 * @param sumsq FP32 pattern of the block sum of squares
 * @param hidden hidden size (below 2^24)
 * @param eps FP32 pattern of `epsilon` (the host's double, rounded to float at the launch)
 * @param mufu the MUFU model
 * @returns FP32 pattern of the scale
 */
export function _rstdOf(sumsq: number, hidden: number, eps: number, mufu: Mufu): number {
  return cudaRsqrtf(F32_RN.add(divF32(sumsq, bitsFromF32(hidden)), eps), mufu);
}

/**
 * The output of one row, `(scalar_t)(x * s_variance) * weight[i]` (:37-39, :133-135) or the
 * width-8 `temp *= s_variance; temp *= weight_v[idx]` (:94-97): `bf16(fl32(x * s))`, then the
 * BF16 product with the weight rounded once. For the width-8 path that product is `__hmul2`
 * (`fma.rn.bf16x2(a, b, -0)`, one rounding of the exact product); for the scalar path it is
 * c10's `BFloat16 * BFloat16` (FP32 product, then `__float2bfloat16`). Both give the same bits:
 * the exact product of two BF16 values has at most 16 significant bits, so the FP32 product is
 * exact unless it lies below 2^-126; there it keeps every bit down to 2^-149 when it is at least
 * 2^-134, and below 2^-134 both roundings give zero (the BF16 result rounds to 0, and an FP32
 * value of at most 2^-134 is a tie or less, which rounds to the even 0).
 *
 * @param row FP32 patterns of the row
 * @param rstd FP32 pattern of the scale
 * @param weight BF16 weight patterns
 * @param out BF16 output, written at `offset`
 * @param offset first output index
 */
export function _normaliseRow(
  row: Uint32Array,
  rstd: number,
  weight: Uint16Array,
  out: Uint16Array,
  offset: number,
): void {
  for (let i = 0; i < row.length; i++) {
    const n = fp32ToBf16(F32_RN.mul(row[i]!, rstd));
    out[offset + i] = fp32ToBf16(F32_RN.mul((n << 16) >>> 0, (weight[i]! << 16) >>> 0));
  }
}

/**
 * Checks the shared inputs of the norm kernels.
 *
 * @param x BF16 input
 * @param rows rows
 * @param hidden hidden size
 * @param weight BF16 weight
 * @throws {RangeError} on sizes that are not positive integers below 2^24
 * @throws {TypeError} on arrays of the wrong length
 */
export function _checkShapes(x: Uint16Array, rows: number, hidden: number, weight: Uint16Array) {
  for (const [name, v] of [["rows", rows], ["hidden", hidden]] as const) {
    if (!Number.isInteger(v) || v < 1 || v >= 2 ** 24) {
      throw new RangeError(`Cannot normalise: ${name} ${v} is not an integer in 1..2^24-1`);
    }
  }
  if (!(x instanceof Uint16Array) || x.length !== rows * hidden) {
    throw new TypeError(`Cannot normalise: expected ${rows} x ${hidden} BF16 values in x`);
  }
  if (!(weight instanceof Uint16Array) || weight.length !== hidden) {
    throw new TypeError(`Cannot normalise: expected ${hidden} BF16 weights`);
  }
}

/**
 * The per-row work of both norm kernels: each row widened to FP32, the threads' partial sums of
 * squares (width 8: pairs of the vectorised kernel; else the scalar loop), CUB's block sum, the
 * reciprocal root and the normalised, weighted BF16 output.
 *
 * @param x BF16 rows (already the residual sum for the fused kernel)
 * @param o shape, weight, MUFU model, `epsilon` as the host gives it (default 1e-6; rounded to
 *   FP32 at the launch), the block's thread count, the width and whether the sums of squares are
 *   contracted into FMAs (default false)
 * @returns the output, each row's sum of squares and reciprocal root (FP32 bits)
 */
export function _normRows(
  x: Uint16Array,
  o: {
    readonly rows: number;
    readonly hidden: number;
    readonly weight: Uint16Array;
    readonly mufu: Mufu;
    readonly eps?: number | undefined;
    readonly blockThreads: number;
    readonly width: 0 | 8;
    readonly contract?: boolean | undefined;
  },
): { output: Uint16Array; sumsq: Uint32Array; rstd: Uint32Array } {
  const { rows, hidden } = o;
  const eps = bitsFromF32(Math.fround(o.eps ?? 1e-6));
  const contract = o.contract === true;
  const output = new Uint16Array(x.length);
  const sumsq = new Uint32Array(rows);
  const rstd = new Uint32Array(rows);
  const row = new Uint32Array(hidden);
  const partials = new Uint32Array(o.blockThreads);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < hidden; i++) row[i] = (x[r * hidden + i]! << 16) >>> 0;
    if (o.width === 8) _vec8Partials(row, partials, contract);
    else _scalarPartials(row, partials, contract);
    sumsq[r] = cubBlockReduceSum(partials);
    rstd[r] = _rstdOf(sumsq[r]!, hidden, eps, o.mufu);
    _normaliseRow(row, rstd[r]!, o.weight, output, r * hidden);
  }
  return { output, sumsq, rstd };
}
