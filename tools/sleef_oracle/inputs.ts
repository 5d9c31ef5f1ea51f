/**
 * Operand pairs for checking `sleefPowfU10` against the SLEEF library (tools/sleef_oracle): the
 * RoPE grid HF feeds `powf` (theta x `fl32(2i) / d`), special operands, and four pseudo-random
 * classes. Shared by make_fixture.ts and the slow sweep so both draw the same distributions.
 *
 * @module
 */
import { bitsFromF32, f32FromBits } from "../../src/numerics/mod.ts";

/** RoPE bases of common checkpoints. */
export const ROPE_THETAS = [1e4, 1e5, 1.5e5, 5e5, 1e6, 5e6, 1e7, 1e8] as const;
/** Head dimensions. */
export const ROPE_DIMS = [64, 80, 96, 128, 256] as const;

/** Every (theta, `fl32(fl32(2i) / d)`) of the grid, as HF's `base ** (arange(0, d, 2) / d)`. */
export function ropeGrid(): [number, number][] {
  const out: [number, number][] = [];
  for (const theta of ROPE_THETAS) {
    for (const d of ROPE_DIMS) {
      for (let i = 0; i < d / 2; i++) {
        out.push([bitsFromF32(theta), bitsFromF32(Math.fround(2 * i) / d)]);
      }
    }
  }
  return out;
}

/** Zeros, denormals, one, small integers, halves, the largest finite, infinities and NaNs. */
export const SPECIALS = [
  0x00000000,
  0x80000000,
  0x00000001,
  0x80000001,
  0x007fffff,
  0x00800000,
  0x3f800000,
  0xbf800000,
  0x40000000,
  0xc0000000,
  0x3f000000,
  0xbf000000,
  0x40400000,
  0xc0400000,
  0x3fc00000,
  0x3f7fffff,
  0x3f800001,
  0x4b800000,
  0x4b800001,
  0x4b7fffff,
  0x42fe0000,
  0xc2fe0000,
  0x7f7fffff,
  0xff7fffff,
  0x7f800000,
  0xff800000,
  0x7fc00000,
  0xffc00000,
  0x7f800001,
] as const;

/** Every ordered pair of {@link SPECIALS}. */
export function specialPairs(): [number, number][] {
  return SPECIALS.flatMap((a) => SPECIALS.map((b): [number, number] => [a, b]));
}

/** splitmix32-style generator (deterministic). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * `count` pseudo-random pairs, cycling through four classes: (0) any positive finite x (every
 * pattern 1..0x7F7FFFFF) with y uniform in [0, 1) on a 2^-24 grid, the RoPE domain; (1) any
 * non-negative x pattern (denormals, infinities and NaNs included) with any pattern of [0, 1);
 * (2) x = 2^u, u uniform in [-20, 20), y uniform in [-16, 16) (finite results, large and small);
 * (3) any two patterns (signs, NaNs, infinities).
 *
 * @param seed generator seed
 * @param count pairs wanted
 * @returns the flattened pairs (x0, y0, x1, y1, ...)
 */
export function randomPairs(seed: number, count: number): Uint32Array {
  const r = rng(seed);
  const out = new Uint32Array(2 * count);
  for (let i = 0; i < count; i++) {
    let x: number, y: number;
    switch (i % 4) {
      case 0:
        x = 1 + (r() % 0x7f7fffff);
        y = bitsFromF32((r() >>> 8) / 2 ** 24);
        break;
      case 1:
        x = r() & 0x7fffffff;
        y = r() % 0x3f800000;
        break;
      case 2:
        x = bitsFromF32(2 ** ((r() / 2 ** 32) * 40 - 20));
        y = bitsFromF32((r() / 2 ** 32) * 32 - 16);
        break;
      default:
        x = r();
        y = r();
    }
    out[2 * i] = x;
    out[2 * i + 1] = y;
  }
  return out;
}

/**
 * `count` pairs whose exact power lies within `within` ulp of an FP32 rounding midpoint (judged
 * with float64 `Math.pow`, whose error is far below that), drawn from classes 0 and 2 of
 * {@link randomPairs}: where a slip in the emulated operation order is most likely to flip the
 * last bit.
 *
 * @param seed generator seed
 * @param count pairs wanted
 * @param within distance to the midpoint, in ulps
 * @returns the flattened pairs
 */
export function hardPairs(seed: number, count: number, within: number): Uint32Array {
  const out = new Uint32Array(2 * count);
  let found = 0;
  for (let round = 0; found < count; round++) {
    const pool = randomPairs(seed + round, 1 << 20);
    for (let i = 0; i < pool.length / 2 && found < count; i++) {
      if (i % 4 !== 0 && i % 4 !== 2) continue;
      const [x, y] = [pool[2 * i]!, pool[2 * i + 1]!];
      const p = Math.pow(f32FromBits(x), f32FromBits(y));
      if (!(p > 2 ** -126 && p < 2 ** 127)) continue; // normal results only
      const ulp = 2 ** (Math.floor(Math.log2(p)) - 23);
      const frac = (p / ulp) % 1; // position between two FP32 neighbours, in ulps
      if (Math.abs(frac - 0.5) < within) {
        out[2 * found] = x;
        out[2 * found++ + 1] = y;
      }
    }
  }
  return out;
}
