/**
 * CUDA math as the GPU computes it, bit for bit: libdevice's accurate `expf`, `exp2f`, `sinf`,
 * `cosf`, `logf`, `rsqrtf`, `tanhf` with the constants and operation order of `libdevice.10.bc`
 * (CUDA 13.0), the fast-math intrinsics `__expf`/`__logf`, and the non-FTZ MUFU expansions. The
 * recipes are built from the exact FP32 instruction set of `src/hardware/fp32_unit` (FFMA, FADD,
 * FMUL, division, conversions); MUFU instructions are injected through the {@link Mufu}
 * interface (the `Sfu` of `src/hardware/sfu` fits).
 *
 * @example
 * ```ts
 * import { cudaCosf, cudaExpf, cudaSinf } from "./mod.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * if (cudaSinf(0x00000000) !== 0 || cudaCosf(0x00000000) !== 0x3f800000) throw new Error();
 * if (cudaExpf(0x00000000, createSfu({ mode: "ieee", ftz: true })) !== 0x3f800000) throw new Error();
 * ```
 * @module
 */
export * from "./mufu.ts";
export { trigReduceF32 } from "./trig_reduce.ts";
export { cudaSinf } from "./cuda_sinf.ts";
export { cudaCosf } from "./cuda_cosf.ts";
export { cudaLogf } from "./cuda_logf.ts";
export { cudaExpf, expfParts } from "./cuda_expf.ts";
export { cudaExp2f, cudaRsqrtf } from "./cuda_exp2f.ts";
export { cudaTanhf } from "./cuda_tanhf.ts";
export { fastLogf, type FastLogfOptions, lg2Approx, LN2_F32 } from "./fast_logf.ts";
export { fastExpf, LOG2E_F32 } from "./fast_expf.ts";
