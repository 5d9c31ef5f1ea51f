/**
 * Seeded deterministic PRNG (SplitMix32 finaliser over a Weyl sequence) for reproducible random
 * samples in the numerics tests.
 *
 * @module
 */

/**
 * Returns a generator of uniform unsigned 32-bit integers for a seed.
 *
 * @param seed any 32-bit integer; the same seed always gives the same sequence
 * @returns a function yielding the next integer in `[0, 2^32)`
 * @example
 * ```ts
 * import { prng32 } from "./_prng.ts";
 * const a = prng32(7);
 * const b = prng32(7);
 * if (a() !== b()) throw new Error("not deterministic");
 * ```
 */
export function prng32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}
