/**
 * Private helper: a finite decoded value with its significand shifted to full precision.
 *
 * @module
 */
import type { FloatFormat } from "./format.ts";

/**
 * Shifts a subnormal's significand up to `format.fracBits + 1` bits (exponent lowered to match);
 * normals are returned as they are. Exact: only multiplications by two below 2^25.
 *
 * @param format the value's format
 * @param value a finite non-zero `significand * 2^exponent`
 * @returns the same value with a significand in [2^fracBits, 2^(fracBits + 1))
 */
export function _normalise(
  format: FloatFormat,
  value: { readonly significand: number; readonly exponent: number },
): { significand: number; exponent: number } {
  let { significand, exponent } = value;
  while (significand < 2 ** format.fracBits) {
    significand *= 2;
    exponent -= 1;
  }
  return { significand, exponent };
}
