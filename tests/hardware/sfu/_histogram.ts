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
