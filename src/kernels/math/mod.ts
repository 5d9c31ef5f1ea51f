/**
 * CUDA math as the GPU computes it, bit for bit: exact FP32 primitives (single-rounding FMA, add,
 * mul, div, sqrt in the four rounding modes, with `.ftz`; float-to-int conversions; saturate) and
 * libdevice's accurate `expf`, `exp2f`, `sinf`, `cosf`, `logf`, `rsqrtf`, `tanhf` with the
 * constants and operation order of `libdevice.10.bc` (CUDA 13.0). MUFU instructions are injected
 * through the {@link Mufu} interface (the `Sfu` of `src/hardware/sfu` fits).
 *
 * @example
 * ```ts
 * import { cudaCosf, cudaExpf, cudaSinf, fmaF32 } from "./mod.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * if (fmaF32([0x3f800800, 0x3f800800, 0xbf800000], { mode: "rne" }) !== 0x3a000400) throw new Error();
 * if (cudaSinf(0x00000000) !== 0 || cudaCosf(0x00000000) !== 0x3f800000) throw new Error();
 * if (cudaExpf(0x00000000, createSfu({ mode: "ieee", ftz: true })) !== 0x3f800000) throw new Error();
 * ```
 * @module
 */
export { addF32 } from "./add_f32.ts";
export { cudaCosf } from "./cuda_cosf.ts";
export { cudaExp2f, cudaRsqrtf } from "./cuda_exp2f.ts";
export { cudaExpf, expfParts } from "./cuda_expf.ts";
export { cudaLogf } from "./cuda_logf.ts";
export { cudaSinf } from "./cuda_sinf.ts";
export { cudaTanhf } from "./cuda_tanhf.ts";
export { divF32 } from "./div_f32.ts";
export { f2i, type F2iOptions } from "./f2i.ts";
export { type F32Arith, f32Arith } from "./f32_arith.ts";
export { CUDA_NAN, type F32OpOptions, isNanF32 } from "./f32_options.ts";
export { fastExpf, LOG2E_F32 } from "./fast_expf.ts";
export { fastLogf, type FastLogfOptions, lg2Approx, LN2_F32 } from "./fast_logf.ts";
export { fmaF32 } from "./fma_f32.ts";
export { ex2ApproxF32, type Mufu, rsqrtApproxF32 } from "./mufu.ts";
export { mulF32 } from "./mul_f32.ts";
export { saturateF32 } from "./saturate_f32.ts";
export { sqrtF32 } from "./sqrt_f32.ts";
export { trigReduceF32 } from "./trig_reduce.ts";
