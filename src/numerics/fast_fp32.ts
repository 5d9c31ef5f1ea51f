/**
 * Fast fp32 helpers on bit patterns for hot loops (checked against the generic path in tests).
 *
 * @module
 */
import { FP32 } from "./format.ts";

const _f32 = new Float32Array(1);
const _u32 = new Uint32Array(_f32.buffer);

/**
 * Reinterprets an fp32 pattern as a number (exact).
 *
 * @param bits fp32 pattern
 * @returns the value (NaN payloads are not preserved)
 * @example
 * ```ts
 * import { f32FromBits } from "./fast_fp32.ts";
 * if (f32FromBits(0x3fc00000) !== 1.5) throw new Error();
 * ```
 */
export function f32FromBits(bits: number): number {
  _u32[0] = bits;
  return _f32[0] as number;
}

/**
 * Rounds a number to fp32 (nearest-even) and returns its pattern; NaN gives the canonical NaN.
 *
 * @param x value
 * @returns fp32 pattern
 * @example
 * ```ts
 * import { bitsFromF32 } from "./fast_fp32.ts";
 * if (bitsFromF32(-0) !== 0x80000000) throw new Error();
 * ```
 */
export function bitsFromF32(x: number): number {
  if (Number.isNaN(x)) return FP32.canonicalNan;
  _f32[0] = x;
  return _u32[0] as number;
}

/**
 * One IEEE binary32 addition with round-to-nearest-even, as an FADD without FTZ computes it.
 *
 * Exactness: the float64 sum of two binary32 values rounded once more to binary32 equals the
 * correctly rounded binary32 sum, because 53 >= 2*24 + 2 (double rounding is innocuous for
 * addition when the wider precision is at least 2p + 2; S. A. Figueroa, "When is double rounding
 * innocuous?", SIGNUM Newsletter 30(3), 1995).
 *
 * @param x fp32 pattern
 * @param y fp32 pattern
 * @returns pattern of fl32(x + y); NaN results are the canonical NaN
 * @example
 * ```ts
 * import { fp32Add } from "./fast_fp32.ts";
 * if (fp32Add(0x3f800000, 0x3f800000) !== 0x40000000) throw new Error();
 * ```
 */
export function fp32Add(x: number, y: number): number {
  return bitsFromF32(f32FromBits(x) + f32FromBits(y));
}

/**
 * Rounds an fp32 pattern to bf16 with nearest-even (PyTorch/CUTLASS epilogue rounding).
 * NaN gives the canonical bf16 NaN 0x7FFF; finite overflow gives infinity.
 *
 * @param bits fp32 pattern
 * @returns bf16 pattern
 * @example
 * ```ts
 * import { fp32ToBf16 } from "./fast_fp32.ts";
 * if (fp32ToBf16(0x3f808000) !== 0x3f80 || fp32ToBf16(0x3f818000) !== 0x3f82) throw new Error();
 * ```
 */
export function fp32ToBf16(bits: number): number {
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) return 0x7fff;
  // Adding 0x7FFF plus the lowest kept bit carries into bit 16 exactly when the discarded half
  // is above one half, or equal to it with an odd kept part: nearest-even on the magnitude.
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}
