/**
 * Error histograms of the Tesla model against the correctly rounded result, shared by the CI
 * sample test and the slow exhaustive suite.
 *
 * @module
 */

/** Counts of (model − reference) in ulps, keyed by the difference. */
export type UlpHistogram = Record<string, number>;

/**
 * Histogram of `model(x) − reference(x)` (as bit patterns, i.e. ulps for same-sign results) over
 * `x = base | m` for the mantissas m = 0, stride, 2·stride, ... below 2^23.
 */
export function mantissaHistogram(
  base: number,
  fns: { model: (x: number) => number; reference: (x: number) => number; stride: number },
): UlpHistogram {
  const h: UlpHistogram = {};
  for (let m = 0; m < 0x800000; m += fns.stride) {
    const x = (base | m) >>> 0;
    const d = String(fns.model(x) - fns.reference(x));
    h[d] = (h[d] ?? 0) + 1;
  }
  return h;
}

const _f = new Float32Array(1);
const _u = new Uint32Array(_f.buffer);

/**
 * Histogram of `model − reference` over x = sign · i/2^23 for i = 0, stride, ... below 2^23 (the
 * [0, 1) and (−1, 0] grids of sfu_tesla_model.md §3; every such x is exact in FP32).
 */
export function fractionGridHistogram(
  negative: boolean,
  fns: { model: (x: number) => number; reference: (x: number) => number; stride: number },
): UlpHistogram {
  const h: UlpHistogram = {};
  for (let i = 0; i < 0x800000; i += fns.stride) {
    _f[0] = (negative ? -i : i) / 0x800000; // exact: i < 2^23 and the divisor is a power of two
    const x = _u[0] as number;
    const d = String(fns.model(x) - fns.reference(x));
    h[d] = (h[d] ?? 0) + 1;
  }
  return h;
}

/**
 * For results of magnitude below 2 (log2 near 1), where ulps vary: how many of `x = base | m`
 * (m = 0, stride, ...) give exactly the reference, and the largest |model − reference| in units
 * of 2^−24 (a difference of two FP32 values below 2 in magnitude is exact in float64).
 */
export function absErrorStats(
  base: number,
  fns: { model: (x: number) => number; reference: (x: number) => number; stride: number },
): { equal: number; maxUnits: number } {
  let equal = 0;
  let maxUnits = 0;
  for (let m = 0; m < 0x800000; m += fns.stride) {
    const x = (base | m) >>> 0;
    const a = fns.model(x), b = fns.reference(x);
    if (a === b) equal++;
    _u[0] = a;
    const va = _f[0] as number;
    _u[0] = b;
    maxUnits = Math.max(maxUnits, Math.abs(va - (_f[0] as number)) * 2 ** 24);
  }
  return { equal, maxUnits };
}
