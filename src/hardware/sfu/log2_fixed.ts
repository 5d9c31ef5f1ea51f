/**
 * `log2Fixed`: log2(m) for a dyadic m in [1, 2) as a fixed-point BigInt with an error bound (the
 * arbitrary-precision core of the correctly rounded `ieeeLg2`).
 *
 * @module
 */
import type { FixedApprox } from "./exp2_fixed.ts";
import { ln2Fixed } from "./ln2_fixed.ts";

/**
 * log2(m) with m = sig / 2^den in [1, 2), at `bits` fractional bits, via
 * ln m = 2·atanh(z), z = (m − 1)/(m + 1) = N/D in [0, 1/3), N = sig − 2^den, D = sig + 2^den.
 *
 * Error bound, in units of 2^−w (w = bits); every step truncates, so every approximation below
 * is at or under its true value:
 * - Z = ⌊N·2^w/D⌋ and Z2 = ⌊N²·2^w/D²⌋ are within 1 unit of z·2^w and z²·2^w;
 * - T_0 = Z, T_k = ⌊T_{k−1}·Z2/2^w⌋ approximate t_k = z^(2k+1)·2^w with deficit
 *   δ_k < t_{k−1}/2^w + z²·δ_{k−1} + 1 < 2 + δ_{k−1}/9, so δ_k < 2.25 for all k;
 * - the terms ⌊T_k/(2k+1)⌋ of atanh(z)·2^w are each short by less than 3.25 units; the sum
 *   stops after the first T_k = 0 (then t_k < 2.25, and the rest of the series, shrinking by
 *   z² < 1/9 a term, is below 0.3), so over K terms the sum S is short by less than 3.25·K + 0.3;
 * - ln m·2^w ≈ 2S is short by less than 6.5·K + 0.6; dividing by L = {@link ln2Fixed}(w)
 *   (short of ln 2·2^w by less than 2) gives R = ⌊2S·2^w/L⌋, which is below the true value by at
 *   most (6.5·K + 0.6)/ln 2 + 1 < 9.4·K + 2 and above it by at most 2S·2/(L·ln 2) < 2.9.
 * Hence |R − log2(m)·2^w| < 10·K + 8, the bound returned.
 *
 * @param sig numerator of m, 2^den ≤ sig < 2^(den+1)
 * @param options `den`: exponent of the denominator (≥ 0); `bits`: working precision (≥ 16)
 * @returns the approximation (`value` ≈ log2(m)·2^bits) and its error bound in units
 * @throws {RangeError} when m is outside [1, 2) or `bits` < 16
 * @example
 * ```ts
 * import { log2Fixed } from "./log2_fixed.ts";
 * const { value, error } = log2Fixed(3n, { den: 1, bits: 64 }); // log2(1.5)
 * const exact = 10790653543520307103n; // floor(log2(1.5) * 2^64)
 * const d = value > exact ? value - exact : exact - value;
 * if (d > error + 1n) throw new Error();
 * ```
 */
export function log2Fixed(
  sig: bigint,
  options: { readonly den: number; readonly bits: number },
): FixedApprox {
  const { den, bits } = options;
  const one = 1n << BigInt(den);
  if (!(bits >= 16) || !Number.isInteger(bits) || sig < one || sig >= 2n * one) {
    throw new RangeError(
      `Cannot compute log2(m): need 1 <= m < 2 and integer bits >= 16, got bits ${bits}`,
    );
  }
  const w = BigInt(bits);
  const n = sig - one;
  const d = sig + one;
  const z2 = ((n * n) << w) / (d * d);
  let t = (n << w) / d;
  let sum = 0n;
  let terms = 0n;
  for (let k = 1n;; k += 2n) {
    sum += t / k;
    terms++;
    if (t === 0n) break;
    t = (t * z2) >> w;
  }
  const value = ((2n * sum) << w) / ln2Fixed(bits);
  return { value, error: 10n * terms + 8n };
}
