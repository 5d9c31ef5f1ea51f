/**
 * BF16 element-wise operations as PyTorch computes them (FP32 opmath, one rounding to BF16 at the
 * store; spec `formats.md` §2.7 and §3 rows 24-25): the SwiGLU gate product and residual adds.
 *
 * @module
 */
import { fp32ToBf16 } from "../../numerics/mod.ts";

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
  for (let i0 = 0; i0 < a.length; i0 += _CHUNK) {
    const n = _load(a, b, i0);
    for (let j = 0; j < n; j++) _r[j] = (_x[j] as number) * (_y[j] as number);
    for (let j = 0; j < n; j++) out[i0 + j] = fp32ToBf16(_rBits[j] as number);
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
  for (let i0 = 0; i0 < a.length; i0 += _CHUNK) {
    const n = _load(a, b, i0);
    for (let j = 0; j < n; j++) _r[j] = (_x[j] as number) + (_y[j] as number);
    for (let j = 0; j < n; j++) out[i0 + j] = fp32ToBf16(_rBits[j] as number);
  }
  return out;
}

// Both ops run on float views of FP32 patterns: the float64 product or sum of two binary32
// values, stored into a Float32Array, is rounded once to binary32 exactly as the FP32 unit
// rounds (double rounding is innocuous for binary32 operands in binary64: 53 >= 2 * 24 + 2), and
// the NaN payloads that a store may keep do not matter, because every NaN rounds to the BF16
// NaN 0x7FFF.
const _CHUNK = 4096;
const _x = new Float32Array(_CHUNK);
const _xBits = new Uint32Array(_x.buffer);
const _y = new Float32Array(_CHUNK);
const _yBits = new Uint32Array(_y.buffer);
const _r = new Float32Array(_CHUNK);
const _rBits = new Uint32Array(_r.buffer);

/** Widens elements [i0, i0 + n) of a and b into the float views; returns n. */
function _load(a: Uint16Array, b: Uint16Array, i0: number): number {
  const n = Math.min(_CHUNK, a.length - i0);
  for (let j = 0; j < n; j++) {
    _xBits[j] = (a[i0 + j] as number) << 16;
    _yBits[j] = (b[i0 + j] as number) << 16;
  }
  return n;
}

function _same(a: Uint16Array, b: Uint16Array): void {
  if (a.length !== b.length) {
    throw new RangeError(`Cannot combine tensors: lengths ${a.length} and ${b.length} differ`);
  }
}
