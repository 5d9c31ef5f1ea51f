/**
 * `ln2Fixed`: ln 2 as a fixed-point BigInt with a proven error bound, shared by the correctly
 * rounded `ieeeEx2` and `ieeeLg2`.
 *
 * @module
 */

const _cache = new Map<number, bigint>();

/**
 * ln 2 · 2^w, truncated, with error below 2 units (and never above the true value): the series
 * ln 2 = Σ_{k≥1} 1/(k·2^k) is summed at g = w + 32 bits over k ≤ g + 8 (each term truncated,
 * < 1 unit each; the tail is below 1 unit), so the error is below g + 10 < 2^32 units there,
 * under 1 unit after dropping 32 bits, plus 1 for that last truncation.
 *
 * @param w fractional bits (a non-negative integer)
 * @returns ⌊ln 2 · 2^w⌋ or one less
 * @throws {RangeError} when `w` is not a non-negative integer
 * @example
 * ```ts
 * import { ln2Fixed } from "./ln2_fixed.ts";
 * const v = ln2Fixed(64); // floor(ln 2 · 2^64) = 12786308645202655659
 * if (v !== 12786308645202655659n && v !== 12786308645202655658n) throw new Error();
 * ```
 */
export function ln2Fixed(w: number): bigint {
  if (!Number.isInteger(w) || w < 0) {
    throw new RangeError(`Cannot compute ln 2: bits must be a non-negative integer, got ${w}`);
  }
  const hit = _cache.get(w);
  if (hit !== undefined) return hit;
  const g = BigInt(w + 32);
  let sum = 0n;
  for (let k = 1n; k <= g + 8n; k++) sum += (1n << (g - k)) / k;
  const v = sum >> 32n;
  _cache.set(w, v);
  return v;
}
