/**
 * `fastExpf`: CUDA's fast intrinsic `__expf` (also what `expf` becomes under `--use_fast_math`).
 *
 * @module
 */
import { mulF32 } from "../../hardware/mod.ts";
import { ex2ApproxF32, type Mufu } from "./mufu.ts";

/** log2(e) rounded to FP32 (0x3FB8AA3B), the constant `__expf` multiplies by. */
export const LOG2E_F32 = 0x3fb8aa3b;

/**
 * `__expf(x) = EX2(fl32(x · 0x3FB8AA3B))` (spec `stack_pytorch_hf.md` §4.4): one FMUL by log2 e
 * in FP32, then MUFU.EX2. Under `ftz` the FMUL flushes and EX2 is the bare
 * `ex2.approx.ftz.f32`; without it EX2 is `ex2.approx.f32` ({@link ex2ApproxF32}).
 *
 * @param bits FP32 pattern of x
 * @param options the MUFU model (`ex2` is used) and the build's FTZ flag
 * @returns FP32 pattern of `__expf(x)`
 * @example
 * ```ts
 * import { fastExpf } from "./fast_expf.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * const mufu = createSfu({ mode: "ieee" });
 * if (fastExpf(0x00000000, { mufu, ftz: true }) !== 0x3f800000) throw new Error(); // e^0
 * if (fastExpf(0xff800000, { mufu, ftz: true }) !== 0) throw new Error(); // e^-inf
 * ```
 */
export function fastExpf(
  bits: number,
  options: { readonly mufu: Mufu; readonly ftz: boolean },
): number {
  const { mufu, ftz } = options;
  const t = mulF32(bits, LOG2E_F32, { ftz });
  return ftz ? mufu.ex2(t) : ex2ApproxF32(mufu, t);
}
