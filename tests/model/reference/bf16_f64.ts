/**
 * BF16 <-> float64 for the reference: decoding is exact (a BF16 value is a float32 with 16 zero
 * low bits, and every float32 is a float64); encoding rounds to nearest, ties to even.
 *
 * @module
 */

const _u32 = new Uint32Array(1);
const _f32 = new Float32Array(_u32.buffer);

/**
 * Decodes BF16 bit patterns to float64, exactly.
 *
 * @param bits BF16 patterns
 * @returns their values
 * @example
 * ```ts
 * import { bf16ToF64 } from "./bf16_f64.ts";
 * if (bf16ToF64(Uint16Array.of(0x3f80, 0xc000))[1] !== -2) throw new Error();
 * ```
 */
export function bf16ToF64(bits: Uint16Array): Float64Array {
  const out = new Float64Array(bits.length);
  for (let i = 0; i < bits.length; i++) {
    _u32[0] = bits[i]! << 16;
    out[i] = _f32[0]!;
  }
  return out;
}

/**
 * Rounds a finite float64 to the nearest BF16 pattern (ties to even), through float32: the
 * float32 rounding first can only matter at an exact BF16 tie of the float32 value, which
 * synthetic weights do not care about.
 *
 * @param v a finite value
 * @returns the BF16 pattern
 * @example
 * ```ts
 * import { f64ToBf16 } from "./bf16_f64.ts";
 * if (f64ToBf16(1) !== 0x3f80 || f64ToBf16(-0.5) !== 0xbf00) throw new Error();
 * ```
 */
export function f64ToBf16(v: number): number {
  _f32[0] = v;
  const b = _u32[0]!;
  // Add 0x7fff plus the lowest kept bit: rounds to nearest, ties to the even pattern.
  return ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16) & 0xffff;
}
