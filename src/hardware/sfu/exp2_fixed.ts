/**
 * `exp2Fixed`: 2^f for a dyadic fraction f in [0, 1) as a fixed-point BigInt with an error bound
 * (the arbitrary-precision core of the correctly rounded `ieeeEx2`).
 *
 * @module
 */
import { ln2Fixed } from "./ln2_fixed.ts";

/** A fixed-point approximation `value ≈ 2^f · 2^bits`, off by at most `error` units. */
export interface FixedApprox {
  /** The approximation, scaled by 2^bits. */
  readonly value: bigint;
  /** Bound on |value − 2^f·2^bits|, in units of 2^−bits. */
  readonly error: bigint;
}

/**
 * 2^f with f = num / 2^den in [0, 1), at `bits` fractional bits: y = f·ln 2 (error < 3 units:
 * f·2 from {@link ln2Fixed} plus 1 truncation), then e^y by its Taylor series, each term truncated. Error
 * bound, in units of 2^−bits: with y fixed, term k inherits at most 0.7 × the error of term k − 1
 * (y < 0.7, k ≥ 1) plus 2 units of truncation, so every term is within 2/(1 − 0.7) < 7 units;
 * the series stops at the first truncated term equal to 0, whose true value is then below 8
 * units, and the terms after it shrink by 0.7/k each, so the tail is below 16 units; the error of
 * y moves e^y by less than 2·3 units (e^y < 2). Hence |error| < 7·terms + 16 + 6 ≤ 8·terms + 32.
 *
 * @param num numerator of f, 0 ≤ num < 2^den
 * @param options `den`: exponent of the denominator (≥ 0); `bits`: working precision (≥ 16)
 * @returns the approximation and its error bound
 * @throws {RangeError} when `num` is outside [0, 2^den) or `bits` < 16
 * @example
 * ```ts
 * import { exp2Fixed } from "./exp2_fixed.ts";
 * const { value, error } = exp2Fixed(1n, { den: 1, bits: 64 }); // 2^0.5
 * const exact = 26087635650665564424n; // floor(sqrt(2) * 2^64)
 * const d = value > exact ? value - exact : exact - value;
 * if (d > error + 1n) throw new Error();
 * ```
 */
export function exp2Fixed(
  num: bigint,
  options: { readonly den: number; readonly bits: number },
): FixedApprox {
  const { den, bits } = options;
  if (bits < 16 || num < 0n || num >= 1n << BigInt(den)) {
    throw new RangeError(`Cannot compute 2^f: need 0 <= f < 1 and bits >= 16, got bits ${bits}`);
  }
  const w = BigInt(bits);
  const one = 1n << w;
  const y = (num * ln2Fixed(bits)) >> BigInt(den);
  let sum = one;
  let term = one;
  let terms = 0n;
  for (let k = 1n; term !== 0n; k++) {
    term = ((term * y) >> w) / k;
    sum += term;
    terms++;
  }
  return { value: sum, error: 8n * terms + 32n };
}
