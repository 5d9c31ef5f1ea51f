/**
 * CUDA math as the GPU computes it, bit for bit: libdevice's accurate `expf`, `exp2f`, `sinf`,
 * `cosf`, `logf`, `rsqrtf`, `tanhf` with the constants and operation order of `libdevice.10.bc`
 * (CUDA 13.0), the fast-math intrinsics `__expf`/`__logf`, and the non-FTZ MUFU expansions. The
 * recipes are built from the exact FP32 instruction set of `src/hardware/fp32_unit` (FFMA, FADD,
 * FMUL, division, conversions); MUFU instructions are injected through the {@link Mufu}
 * interface (the `Sfu` of `src/hardware/sfu` fits). One host function: SLEEF's vectorised `powf`
 * (u10, FMA builds), which PyTorch's x86-64 CPU `pow` runs and HF's RoPE `inv_freq` goes through.
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
export { cudaCosf } from "./cuda_cosf.ts";
export { cudaExp2f, cudaRsqrtf } from "./cuda_exp2f.ts";
export { cudaExpf, expfParts } from "./cuda_expf.ts";
export { cudaLogf } from "./cuda_logf.ts";
export { cudaSinf } from "./cuda_sinf.ts";
export { cudaTanhf } from "./cuda_tanhf.ts";
export { fastExpf, LOG2E_F32 } from "./fast_expf.ts";
export { fastLogf, type FastLogfOptions, lg2Approx, LN2_F32 } from "./fast_logf.ts";
export { ex2ApproxF32, type Mufu, rsqrtApproxF32 } from "./mufu.ts";
export { sleefPowfU10 } from "./sleef_powf_u10.ts";
export { trigReduceF32 } from "./trig_reduce.ts";
