/**
 * `saturateF32`: clamp to [0, 1], the PTX `cvt.sat.f32.f32` (`llvm.nvvm.saturate.f`).
 *
 * @module
 */
import { flushSubnormal, isNanF32 } from "./f32_options.ts";

/**
 * Clamps an FP32 value to [+0, 1]; NaN gives +0 (PTX ISA, `.sat`: "limits the result to [0.0,
 * 1.0]; NaN results are flushed to positive zero"). Negative values, -0 included, give +0: the
 * PTX text does not single out -0, and this choice is the one the oracle harness makes too.
 *
 * @param bits FP32 pattern
 * @param options `ftz`: a subnormal input is read as a zero
 * @returns FP32 pattern in [+0, 1]
 * @example
 * ```ts
 * import { saturateF32 } from "./saturate_f32.ts";
 * if (saturateF32(0x40000000) !== 0x3f800000 || saturateF32(0xbf800000) !== 0) throw new Error();
 * if (saturateF32(0x3f000000) !== 0x3f000000 || saturateF32(0x7fffffff) !== 0) throw new Error();
 * ```
 */
export function saturateF32(bits: number, options: { readonly ftz?: boolean } = {}): number {
  const x = options.ftz === true ? flushSubnormal(bits) : bits >>> 0;
  if (isNanF32(x) || x >= 0x80000000) return 0;
  return x > 0x3f800000 ? 0x3f800000 : x;
}
