/**
 * `cudaExp2f` and `cudaRsqrtf`: libdevice's `__nv_exp2f` and `__nv_rsqrtf`, which are bare MUFU.
 *
 * @module
 */
import { FP32 } from "../../numerics/mod.ts";
import { isNanF32 } from "../../hardware/mod.ts";
import { ex2ApproxF32, type Mufu, rsqrtApproxF32 } from "./mufu.ts";

/**
 * 2^x as `__nv_exp2f` computes it: the non-FTZ build calls `ex2.approx.f32` (see
 * `ex2ApproxF32`, the subnormal-preserving expansion around MUFU.EX2); the FTZ build calls
 * `ex2.approx.ftz.f32`, which is `mufu.ex2` itself. There is no software step.
 *
 * @param bits FP32 pattern of x
 * @param mufu the MUFU model (`ex2` is used)
 * @returns FP32 pattern of exp2f(x); NaN results are 0x7FFFFFFF
 * @example
 * ```ts
 * import { cudaExp2f } from "./cuda_exp2f.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * const ieee = createSfu({ mode: "ieee", ftz: true });
 * if (cudaExp2f(0x40400000, ieee) !== 0x41000000) throw new Error(); // 2^3
 * if (cudaExp2f(0xc3100000, ieee) !== 0x00000020) throw new Error(); // 2^-144 = (2^-72)^2, subnormal
 * ```
 */
export function cudaExp2f(bits: number, mufu: Mufu): number {
  const r = ex2ApproxF32(mufu, bits);
  return isNanF32(r) ? FP32.canonicalNan : r;
}

/**
 * 1/sqrt(x) as `__nv_rsqrtf` computes it: the non-FTZ build calls `rsqrt.approx.f32` (see
 * `rsqrtApproxF32`); the FTZ build `rsqrt.approx.ftz.f32` (`mufu.rsqrt` itself).
 *
 * @param bits FP32 pattern of x
 * @param mufu the MUFU model (`rsqrt` is used)
 * @returns FP32 pattern of rsqrtf(x); NaN results are 0x7FFFFFFF
 * @example
 * ```ts
 * import { cudaRsqrtf } from "./cuda_exp2f.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * const ieee = createSfu({ mode: "ieee", ftz: true });
 * if (cudaRsqrtf(0x40800000, ieee) !== 0x3f000000) throw new Error(); // 1/sqrt(4)
 * ```
 */
export function cudaRsqrtf(bits: number, mufu: Pick<Mufu, "rsqrt">): number {
  const r = rsqrtApproxF32(mufu, bits);
  return isNanF32(r) ? FP32.canonicalNan : r;
}
