/**
 * Private helper: the exact sum of two signed dyadic terms, rounded once by `roundPack`.
 *
 * @module
 */
import type { FloatFormat } from "./format.ts";
import { packZero, roundPack } from "./round_pack.ts";
import type { ScalarOptions } from "./scalar_options.ts";
import { _zeroSumSign } from "./_scalar_rules.ts";

/** A signed exact term `(-1)^sign * significand * 2^exponent` (significand a safe integer > 0). */
export interface _Term {
  /** 1 for negative. */
  readonly sign: 0 | 1;
  /** Positive safe integer. */
  readonly significand: number;
  /** Exponent of the significand's least significant bit. */
  readonly exponent: number;
}

/**
 * Rounds `x + y` once. Both terms are aligned on the lower exponent; when the aligned magnitudes
 * stay below 2^52 the sum is formed in host integers (exact), otherwise in BigInt and cut to 53
 * significant bits plus a sticky bit (more than the 24 + 2 bits any target needs). An exact zero
 * sum takes IEEE's sign rule (+0, or -0 toward -infinity).
 *
 * @param format result format
 * @param terms the two non-zero terms
 * @param options rounding options
 * @returns the rounded pattern
 */
export function _exactSum(
  format: FloatFormat,
  terms: { readonly x: _Term; readonly y: _Term },
  options: ScalarOptions,
): number {
  const { x, y } = terms;
  const lsb = Math.min(x.exponent, y.exponent);
  const mx = x.significand * 2 ** (x.exponent - lsb);
  const my = y.significand * 2 ** (y.exponent - lsb);
  if (mx < 2 ** 52 && my < 2 ** 52) {
    // Exact: both aligned magnitudes are integers below 2^52, so their sum and difference are
    // integers below 2^53.
    const same = x.sign === y.sign;
    const mag = same ? mx + my : Math.abs(mx - my);
    if (mag === 0) {
      return packZero(format, _zeroSumSign({ ..._signsOf(terms), bothZero: false }, options));
    }
    const sign = same ? x.sign : mx > my ? x.sign : y.sign;
    return roundPack(format, { sign, significand: mag, exponent: lsb }, options);
  }
  const bx = BigInt(x.significand) << BigInt(x.exponent - lsb);
  const by = BigInt(y.significand) << BigInt(y.exponent - lsb);
  const sum = (x.sign ? -bx : bx) + (y.sign ? -by : by);
  if (sum === 0n) {
    return packZero(format, _zeroSumSign({ ..._signsOf(terms), bothZero: false }, options));
  }
  const mag = sum < 0n ? -sum : sum;
  const drop = Math.max(0, mag.toString(2).length - 53);
  const kept = mag >> BigInt(drop);
  return roundPack(format, {
    sign: sum < 0n ? 1 : 0,
    significand: Number(kept),
    exponent: lsb + drop,
    sticky: (kept << BigInt(drop)) !== mag,
  }, options);
}

function _signsOf(terms: { readonly x: _Term; readonly y: _Term }): { x: 0 | 1; y: 0 | 1 } {
  return { x: terms.x.sign, y: terms.y.sign };
}
