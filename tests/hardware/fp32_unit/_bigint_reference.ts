/**
 * An independent exact reference for the FP32 primitives: exact rationals in BigInt, reduced to a
 * 53-bit significand plus sticky bit and rounded by the numerics layer's `roundPack`.
 *
 * @module
 */
import { FP32, type RoundingMode, roundPack } from "../../../src/numerics/mod.ts";

/** Exact finite value of an FP32 pattern: `sign * sig * 2^exp`. */
export function exact(bits: number): { neg: boolean; sig: bigint; exp: number } {
  const field = (bits >>> 23) & 0xff;
  const frac = bits & 0x7fffff;
  return {
    neg: bits >>> 31 === 1,
    sig: BigInt(field === 0 ? frac : frac + 0x800000),
    exp: field === 0 ? -149 : field - 150,
  };
}

/** Rounds the exact value `num * 2^exp` (num non-zero) with an extra sticky bit. */
export function roundExact(
  num: bigint,
  exp: number,
  opts: { mode: RoundingMode; ftz?: boolean; sticky?: boolean },
): number {
  const neg = num < 0n;
  let mag = neg ? -num : num;
  let sticky = opts.sticky === true;
  const len = mag.toString(2).length;
  if (len > 53) {
    const sh = len - 53;
    if ((mag & ((1n << BigInt(sh)) - 1n)) !== 0n) sticky = true;
    mag >>= BigInt(sh);
    exp += sh;
  }
  return roundPack(FP32, { sign: neg ? 1 : 0, significand: Number(mag), exponent: exp, sticky }, {
    mode: opts.mode,
    ftz: opts.ftz === true,
  }) >>> 0;
}

/** Exact a*b + c for finite operands, as `num * 2^exp`. */
export function exactFma(a: number, b: number, c: number): { num: bigint; exp: number } {
  const x = exact(a), y = exact(b), z = exact(c);
  const pe = x.exp + y.exp;
  const m = Math.min(pe, z.exp);
  const p = (x.neg !== y.neg ? -1n : 1n) * x.sig * y.sig << BigInt(pe - m);
  const q = (z.neg ? -1n : 1n) * z.sig << BigInt(z.exp - m);
  return { num: p + q, exp: m };
}

/** Exact-quotient reference: 80 quotient bits plus the remainder as sticky. */
export function refDiv(a: number, b: number, mode: RoundingMode): number {
  const x = exact(a), y = exact(b);
  const n = x.sig << 80n;
  const q = n / y.sig;
  const num = (x.neg !== y.neg ? -1n : 1n) * q;
  return roundExact(num, x.exp - y.exp - 80, { mode, sticky: n % y.sig !== 0n });
}

/** Exact-root reference: integer square root of sig * 2^(2k) with sticky. */
export function refSqrt(a: number, mode: RoundingMode): number {
  const x = exact(a);
  let e = x.exp - 100;
  let n = x.sig << 100n;
  if ((e & 1) !== 0) {
    n <<= 1n;
    e -= 1;
  }
  let r = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (r * r > n) r -= 1n;
  while ((r + 1n) * (r + 1n) <= n) r += 1n;
  return roundExact(r, e / 2, { mode, sticky: r * r !== n });
}
