/**
 * Exact dyadic rationals `num * 2^exp` on BigInt, for the test-only reference of the numerics
 * layer. Nothing here is shared with `src/numerics`: the reference must be independent.
 *
 * @module
 */

/** A non-negative exact value `num * 2^exp` (`num` a BigInt, `exp` any safe integer). */
export interface Dyadic {
  /** Non-negative integer numerator. */
  readonly num: bigint;
  /** Power of two the numerator is scaled by (may be negative: a denominator 2^-exp). */
  readonly exp: number;
}

/** The exact zero. */
export const DYADIC_ZERO: Dyadic = Object.freeze({ num: 0n, exp: 0 });

/**
 * Builds `num * 2^exp` from a safe-integer numerator.
 *
 * @param num non-negative safe integer or BigInt
 * @param exp power-of-two scale
 * @returns the dyadic value
 * @throws {RangeError} when `num` is negative or a non-integer number
 * @example
 * ```ts
 * import { dyadic } from "./_dyadic.ts";
 * if (dyadic(3, -1).num !== 3n) throw new Error(); // 1.5
 * ```
 */
export function dyadic(num: number | bigint, exp: number): Dyadic {
  if (typeof num === "number" && !Number.isSafeInteger(num)) {
    throw new RangeError(`Cannot build dyadic: numerator must be a safe integer, got ${num}`);
  }
  const n = BigInt(num);
  if (n < 0n) throw new RangeError(`Cannot build dyadic: numerator must be >= 0, got ${n}`);
  return { num: n, exp };
}

/**
 * Compares two dyadic values exactly.
 *
 * @param a left value
 * @param b right value
 * @returns -1, 0 or 1 as `a` is below, equal to or above `b`
 * @example
 * ```ts
 * import { compareDyadic, dyadic } from "./_dyadic.ts";
 * if (compareDyadic(dyadic(2, 0), dyadic(1, 1)) !== 0) throw new Error();
 * ```
 */
export function compareDyadic(a: Dyadic, b: Dyadic): -1 | 0 | 1 {
  const m = Math.min(a.exp, b.exp);
  const x = a.num << BigInt(a.exp - m);
  const y = b.num << BigInt(b.exp - m);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Adds two dyadic values exactly.
 *
 * @param a left value
 * @param b right value
 * @returns `a + b`
 * @example
 * ```ts
 * import { addDyadic, compareDyadic, dyadic } from "./_dyadic.ts";
 * if (compareDyadic(addDyadic(dyadic(1, -1), dyadic(1, -1)), dyadic(1, 0)) !== 0) throw new Error();
 * ```
 */
export function addDyadic(a: Dyadic, b: Dyadic): Dyadic {
  const m = Math.min(a.exp, b.exp);
  return { num: (a.num << BigInt(a.exp - m)) + (b.num << BigInt(b.exp - m)), exp: m };
}

/**
 * Converts a dyadic value to a host number. Exact only when the value is a float64 number: the
 * tests call it for values with at most 53 significant bits inside float64's exponent range.
 *
 * @param a value to convert
 * @returns `num * 2^exp` as a number
 * @throws {RangeError} when the value has more than 53 significant bits
 * @example
 * ```ts
 * import { dyadic, dyadicToNumber } from "./_dyadic.ts";
 * if (dyadicToNumber(dyadic(3, -2)) !== 0.75) throw new Error();
 * ```
 */
export function dyadicToNumber(a: Dyadic): number {
  let num = a.num;
  let exp = a.exp;
  while (num > 0n && (num & 1n) === 0n) {
    num >>= 1n;
    exp += 1;
  }
  if (num >= 1n << 53n) {
    throw new RangeError(`Cannot convert dyadic: ${num} has more than 53 significant bits`);
  }
  // Exact: num < 2^53 is a float64 integer, and scaling by a power of two is exact while the
  // result stays inside float64's range (callers only pass values of formats up to fp32).
  return Number(num) * 2 ** exp;
}
