/**
 * Seeded sampler of fp32 patterns for conversion tests: half uniform over all 2^32 patterns
 * (mostly far outside the small formats' ranges), half with the exponent drawn from the target's
 * own range widened by a few binades, so that the sample lands where rounding happens.
 *
 * @module
 */
import { prng32 } from "./_prng.ts";
import { refBias, type RefFormat } from "./_ref_formats.ts";

/**
 * Returns a deterministic generator of fp32 patterns aimed at a target format.
 *
 * @param target the format the samples will be converted to
 * @param seed PRNG seed
 * @returns a function yielding the next fp32 pattern
 * @example
 * ```ts
 * import { fp32Sampler } from "./_fp32_sampler.ts";
 * import { refFormat } from "./_ref_formats.ts";
 * const next = fp32Sampler(refFormat("e4m3"), 1);
 * if (next() === fp32Sampler(refFormat("e4m3"), 2)()) throw new Error("seed ignored");
 * ```
 */
export function fp32Sampler(target: RefFormat, seed: number): () => number {
  const next = prng32(seed);
  const bias = refBias(target);
  // fp32 biased exponents from 3 binades below the target's smallest subnormal to 2 above its max.
  const low = Math.max(0, 127 + (1 - bias) - target.fracBits - 3);
  const high = Math.min(255, 127 + bias + 2);
  let flip = false;
  return () => {
    const raw = next();
    flip = !flip;
    if (flip) return raw;
    const exp = low + (next() % (high - low + 1));
    return (raw & 0x807fffff) + exp * 2 ** 23 >>> 0;
  };
}
