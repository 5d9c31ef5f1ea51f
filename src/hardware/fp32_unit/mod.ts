/**
 * The exact FP32 instruction set of NVIDIA GPUs, on bit patterns: `add`, `mul`, `fma`, `div` and
 * `sqrt` in the four rounding modes (`.rn/.rz/.rp/.rm`) with and without `.ftz`, float-to-int
 * conversion (`cvt.{rni,rzi,rmi,rpi}.s32.f32`), saturation (`cvt.sat.f32.f32`), and the bound
 * `f32Arith` form for hot loops. NaN results are the canonical NaN 0x7FFFFFFF
 * (`FP32.canonicalNan`).
 *
 * `addF32`, `mulF32`, `fmaF32` and `divF32` are fast paths on float64 (double rounding proved
 * innocuous, or round-to-odd); `sqrtF32` is the format-generic reference operation of
 * `src/numerics` on FP32. Every fast path is tested bit for bit against that reference.
 *
 * @example
 * ```ts
 * import { addF32, divF32, f2i, f32Arith, fmaF32, saturateF32 } from "./mod.ts";
 * // 1 + 2^-24 is a tie: nearest-even keeps 1.0, round-up gives the next float.
 * if (addF32(0x3f800000, 0x33800000) !== 0x3f800000) throw new Error();
 * if (addF32(0x3f800000, 0x33800000, { mode: "ru" }) !== 0x3f800001) throw new Error();
 * // FFMA keeps the product unrounded: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24.
 * if (fmaF32([0x3f800800, 0x3f800800, 0xbf800000]) !== 0x3a000400) throw new Error();
 * // .ftz flushes the subnormal product 2^-149 * 1 to zero.
 * const fast = f32Arith({ ftz: true });
 * if (fast.mul(1, 0x3f800000) !== 0 || f32Arith().mul(1, 0x3f800000) !== 1) throw new Error();
 * if (divF32(0x3f800000, 0x40400000) !== 0x3eaaaaab) throw new Error(); // 1/3
 * if (f2i(0x40200000) !== 2 || saturateF32(0x40000000) !== 0x3f800000) throw new Error();
 * ```
 * @module
 */
export { type F32OpOptions, flushSubnormal, isNanF32 } from "./f32_options.ts";
export { roundToF32, roundToOdd } from "./round_to_f32.ts";
export { addF32 } from "./add_f32.ts";
export { mulF32 } from "./mul_f32.ts";
export { fmaF32, fmaRnValue } from "./fma_f32.ts";
export { divF32 } from "./div_f32.ts";
export { sqrtF32 } from "./sqrt_f32.ts";
export { F32_RN, type F32Arith, f32Arith } from "./f32_arith.ts";
export { f2i, type F2iOptions, f2iValue } from "./f2i.ts";
export { saturateF32 } from "./saturate_f32.ts";
