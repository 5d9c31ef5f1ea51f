/**
 * `fastLogf`: CUDA's fast intrinsic `__logf` (also what `logf` becomes under `--use_fast_math`).
 *
 * @module
 */
import { addF32, flushSubnormal, mulF32 } from "../../hardware/mod.ts";

/** ln 2 rounded to FP32 (0x3F317218), the constant `__logf` multiplies by. */
export const LN2_F32 = 0x3f317218;

/** Options of {@link fastLogf}. */
export interface FastLogfOptions {
  /** MUFU.LG2 (`lg2.approx.ftz.f32`) on FP32 patterns, e.g. the `lg2` of an `Sfu`. */
  readonly lg2: (bits: number) => number;
  /** `.ftz` build (fast-math): bare MUFU.LG2 and an FTZ multiply. */
  readonly ftz: boolean;
}

/**
 * `__logf(y) = fl32(LG2(y) · 0x3F317218)` (spec `stack_pytorch_hf.md` §4.3, §4.4): MUFU.LG2 then
 * one FMUL by ln 2 in FP32. Under `ftz` a subnormal y is flushed to zero (so an `ieee`-mode LG2
 * sees what the `.ftz` instruction sees), LG2 is the bare `lg2.approx.ftz.f32` and the FMUL
 * flushes; without it, `lg2.approx.f32` must accept subnormal inputs.
 *
 * ASSUMPTION (inferred, not seen in SASS): non-FTZ `lg2.approx.f32` of a subnormal y is computed
 * as `LG2(y · 2^24) − 24` (an exact scaling, then an FADD). The FA2 kernels only take logs of row
 * sums of at least 1, so this branch never decides one of their bits.
 *
 * @param bits FP32 pattern of y
 * @param options the MUFU.LG2 model and the build's FTZ flag
 * @returns FP32 pattern of `__logf(y)`
 * @example
 * ```ts
 * import { fastLogf } from "./fast_logf.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * const { lg2 } = createSfu({ mode: "ieee" });
 * if (fastLogf(0x40000000, { lg2, ftz: true }) !== 0x3f317218) throw new Error(); // ln 2
 * if (fastLogf(0x3f800000, { lg2, ftz: false }) !== 0) throw new Error(); // ln 1 = 0
 * ```
 */
export function fastLogf(bits: number, options: FastLogfOptions): number {
  return mulF32(lg2Approx(bits, options), LN2_F32, { ftz: options.ftz });
}

/**
 * The LG2 stage of {@link fastLogf}: `lg2.approx.ftz.f32` under `ftz` (subnormal inputs flushed
 * first), else `lg2.approx.f32` with the inferred subnormal pre-scale (see the ASSUMPTION there).
 *
 * @param bits FP32 pattern of y
 * @param options the MUFU.LG2 model and the build's FTZ flag
 * @returns FP32 pattern of LG2(y)
 * @example
 * ```ts
 * import { lg2Approx } from "./fast_logf.ts";
 * const lg2 = (b: number) => b === 0 ? 0xff800000 : 0x3f800000; // stand-in: -inf or 1.0
 * if (lg2Approx(0x00000001, { lg2, ftz: true }) !== 0xff800000) throw new Error(); // flushed
 * if (lg2Approx(0x00000001, { lg2, ftz: false }) !== 0xc1b80000) throw new Error(); // 1 - 24
 * ```
 */
export function lg2Approx(bits: number, options: FastLogfOptions): number {
  const { lg2, ftz } = options;
  const e = (bits >>> 23) & 0xff;
  const m = bits & 0x7fffff;
  if (ftz || e !== 0 || m === 0) return lg2(ftz ? flushSubnormal(bits) : bits);
  const scaled = mulF32(bits, 0x4b800000); // · 2^24, exact for a subnormal
  return addF32(lg2(scaled), 0xc1c00000); // − 24
}
