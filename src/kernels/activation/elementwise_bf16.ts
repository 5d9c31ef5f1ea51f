/**
 * BF16 element-wise operations as PyTorch computes them (FP32 opmath, one rounding to BF16 at the
 * store; spec `formats.md` §2.7 and §3 rows 24-25): the SwiGLU gate product and residual adds.
 *
 * @module
 */
import { F32_RN } from "../../hardware/mod.ts";
import { bitsFromF32, f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";

/**
 * `bf16(a * b)` elementwise: the FP32 product of two BF16 values is exact (at most 16 significant
 * bits; it may still overflow or underflow the FP32 range, as on the GPU), then one nearest-even
 * rounding to BF16. Used for `down_in = bf16(silu_bf16 * up_bf16)`.
 *
 * @param a BF16 patterns
 * @param b BF16 patterns (same length)
 * @returns BF16 patterns
 * @throws {RangeError} when the lengths differ
 * @example
 * ```ts
 * import { mulBf16 } from "./elementwise_bf16.ts";
 * if (mulBf16(new Uint16Array([0x3fc0]), new Uint16Array([0x4000]))[0] !== 0x4040) throw new Error(); // 1.5*2 = 3
 * ```
 */
export function mulBf16(a: Uint16Array, b: Uint16Array): Uint16Array {
  _same(a, b);
  const out = new Uint16Array(a.length);
  for (let i = 0; i < a.length; i++) {
    const p = Math.fround(f32FromBits((a[i]! << 16) >>> 0) * f32FromBits((b[i]! << 16) >>> 0));
    out[i] = fp32ToBf16(bitsFromF32(p));
  }
  return out;
}

/**
 * `bf16(fl32(a + b))` elementwise: the residual add (a double rounding, as PyTorch does it).
 *
 * @param a BF16 patterns
 * @param b BF16 patterns (same length)
 * @returns BF16 patterns
 * @throws {RangeError} when the lengths differ
 * @example
 * ```ts
 * import { addBf16 } from "./elementwise_bf16.ts";
 * // 256 + 1.0078125: fp32 sum 257.0078125, bf16 ulp at 256 is 2, so 258.
 * if (addBf16(new Uint16Array([0x4380]), new Uint16Array([0x3f81]))[0] !== 0x4381) throw new Error();
 * ```
 */
export function addBf16(a: Uint16Array, b: Uint16Array): Uint16Array {
  _same(a, b);
  const out = new Uint16Array(a.length);
  for (let i = 0; i < a.length; i++) {
    out[i] = fp32ToBf16(F32_RN.add((a[i]! << 16) >>> 0, (b[i]! << 16) >>> 0));
  }
  return out;
}

function _same(a: Uint16Array, b: Uint16Array): void {
  if (a.length !== b.length) {
    throw new RangeError(`Cannot combine tensors: lengths ${a.length} and ${b.length} differ`);
  }
}
