/**
 * Bit length of non-negative safe integers.
 *
 * @module
 */

/**
 * Number of bits needed to write a non-negative safe integer (0 for 0).
 *
 * @param n non-negative safe integer (below 2^53)
 * @returns the index of the highest set bit plus one
 * @example
 * ```ts
 * import { bitLength } from "./bit_length.ts";
 * if (bitLength(1) !== 1 || bitLength(2 ** 40) !== 41) throw new Error();
 * ```
 */
export function bitLength(n: number): number {
  if (n < 2 ** 32) return 32 - Math.clz32(n);
  // Exact: n < 2^53, so the division by 2^32 and floor are exact on the high word.
  return 64 - Math.clz32(Math.floor(n / 2 ** 32));
}
