/**
 * Deterministic inputs and float64 helpers shared by the vLLM kernel tests.
 *
 * @module
 */

/** FP32 pattern of a number (nearest-even). */
export function f32Bits(x: number): number {
  return new Uint32Array(new Float32Array([x]).buffer)[0]!;
}

/** Value of an FP32 pattern. */
export function f32Value(bits: number): number {
  return new Float32Array(new Uint32Array([bits]).buffer)[0]!;
}

/** Value of a BF16 pattern. */
export function bf16Value(bits: number): number {
  return f32Value((bits << 16) >>> 0);
}

/**
 * BF16 pattern of a number: nearest-even through FP32 (the number is first rounded to FP32, which
 * is exact for the inputs built here).
 *
 * @param x value
 * @returns BF16 pattern
 */
export function bf16Of(x: number): number {
  const u = f32Bits(x);
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/**
 * BF16 values uniform in (-scale, scale) from a seeded xorshift-multiply generator (the witnesses
 * below were found with this exact generator: change it and they move).
 *
 * @param seed seed
 * @param n count
 * @param scale half-width of the range
 * @returns BF16 patterns
 */
export function bf16Row(seed: number, n: number, scale: number): Uint16Array {
  let s = seed >>> 0;
  const out = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    out[i] = bf16Of(((s / 2 ** 32) * 2 - 1) * scale);
  }
  return out;
}

/**
 * BF16 values drawn from a small set whose squares, and every sum of up to 2^16 of those squares,
 * are exact in FP32 (multiples of 1/4 below 2^22): then every summation order gives the same sum.
 *
 * @param seed seed
 * @param n count
 * @returns BF16 patterns from {0, +-0.5, +-1, +-1.5, +-2, +-3}
 */
export function exactSquaresRow(seed: number, n: number): Uint16Array {
  const SET = [
    0x0000,
    0x3f00,
    0xbf00,
    0x3f80,
    0xbf80,
    0x3fc0,
    0xbfc0,
    0x4000,
    0xc000,
    0x4040,
    0xc040,
  ];
  let s = seed >>> 0;
  return Uint16Array.from({ length: n }, () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return SET[s % SET.length]!;
  });
}

/** Units in the last place of an FP32 value of magnitude |x| (normal range). */
export function ulp32(x: number): number {
  return 2 ** (Math.max(Math.floor(Math.log2(Math.abs(x))), -126) - 23);
}
