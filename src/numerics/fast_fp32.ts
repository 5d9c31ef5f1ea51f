/**
 * Fast fp32 conversions on bit patterns for hot loops: host reinterpretation and the fp32 -> bf16
 * nearest-even narrowing, each checked bit for bit against `convert`/`roundPack` in tests. The
 * FP32 arithmetic instructions live in `src/hardware/fp32_unit/`.
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
