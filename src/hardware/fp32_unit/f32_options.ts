/**
 * Options and input rules shared by the exact FP32 instructions.
 *
 * Every NVIDIA FP32 arithmetic instruction (FADD, FMUL, FFMA, MUFU) returns the canonical NaN
 * 0x7FFFFFFF whatever the input NaNs were (PTX ISA, "Floating Point Instructions": NaN payloads
 * are not propagated): that is `FP32.canonicalNan` of `src/numerics`, the one definition.
 *
 * @module
 */
import type { RoundingMode } from "../../numerics/mod.ts";

/** Options of the FP32 instructions (`fmaF32`, `addF32`, `mulF32`, `divF32`, `sqrtF32`). */
export interface F32OpOptions {
  /** Rounding direction (PTX `.rn/.rz/.rp/.rm` = `rne/rz/ru/rd`); default `"rne"`. */
  readonly mode?: RoundingMode;
  /**
   * PTX `.ftz`: subnormal inputs become a zero of the same sign before the operation, and a result
   * that is subnormal after rounding becomes a zero of the same sign; default false.
   */
  readonly ftz?: boolean;
}

/**
 * Flushes a subnormal FP32 pattern to a zero of the same sign (the `.ftz` input rule).
 *
 * @param bits FP32 pattern (unsigned 32-bit)
 * @returns the pattern, or ±0 when it was subnormal
 * @example
 * ```ts
 * import { flushSubnormal } from "./f32_options.ts";
 * if (flushSubnormal(0x80000001) !== 0x80000000 || flushSubnormal(0x00800000) !== 0x00800000) {
 *   throw new Error();
 * }
 * ```
 */
export function flushSubnormal(bits: number): number {
  return (bits & 0x7f800000) === 0 ? (bits & 0x80000000) >>> 0 : bits >>> 0;
}

/**
 * True when an FP32 pattern is a NaN.
 *
 * @param bits FP32 pattern
 * @returns whether the exponent field is all ones with a non-zero fraction
 * @example
 * ```ts
 * import { isNanF32 } from "./f32_options.ts";
 * if (!isNanF32(0x7fffffff) || isNanF32(0x7f800000)) throw new Error();
 * ```
 */
export function isNanF32(bits: number): boolean {
  return (bits & 0x7fffffff) > 0x7f800000;
}
