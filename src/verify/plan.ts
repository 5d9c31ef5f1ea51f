/**
 * Detection probability and sample size for audits ([seed paper] eq. 1, appendix C).
 *
 * If a fraction p of records is misreported, k records sampled uniformly catch at least one with
 * probability 1 − (1 − p)^k (binomial, N ≫ k); drawing without replacement from N records of
 * which F are false it is exactly 1 − C(N − F, k) / C(N, k) (hypergeometric), never less.
 *
 * @module
 */

/**
 * P(≥ 1 false record in the sample) = 1 − (1 − p)^k, computed as −expm1(k · log1p(−p)) so that
 * values near 1 (e.g. 1 − 1.2·10^−14) and tiny p keep full relative accuracy in 1 − P.
 *
 * @param p fraction of false records, 0 ≤ p ≤ 1
 * @param k sample size, a safe non-negative integer
 * @returns detection probability in [0, 1]
 * @throws {RangeError} when p or k is out of range
 * @example
 * ```ts
 * import { detectionBinomial } from "./plan.ts";
 * const pd = detectionBinomial(0.001, 3200); // paper appendix C: ~0.96
 * if (Math.abs(pd - 0.9593) > 1e-4) throw new Error(String(pd));
 * ```
 */
export function detectionBinomial(p: number, k: number): number {
  _checkP(p, "p");
  _checkCount(k, "k");
  if (k === 0 || p === 0) return 0;
  if (p === 1) return 1;
  return -Math.expm1(k * Math.log1p(-p));
}

/** Counts of {@link detectionHypergeometric}. */
export interface HypergeometricSample {
  /** F: number of false records in the population, 0 ≤ F ≤ N. */
  readonly falseCount: number;
  /** k: sample size, 0 ≤ k ≤ N. */
  readonly k: number;
}

/**
 * P(≥ 1 false record) drawing k of N records without replacement when F are false:
 * 1 − C(N − F, k) / C(N, k) = 1 − ∏_{i=0}^{k−1} (1 − F / (N − i)) = 1 − ∏_{j=0}^{F−1} (1 − k / (N − j)),
 * computed as −expm1(Σ log1p(·)) over the shorter of the two products (one rounding per term; no
 * factorials or log-gamma). When both F and k exceed {@link EXACT_TERMS}, the sum is taken by the
 * Euler–Maclaurin formula with three correction terms, so the cost is bounded for any N up to
 * 2^53 − 1 (tests compare it with the term-by-term sum).
 *
 * @param population N, a safe non-negative integer
 * @param sample F and k
 * @returns detection probability in [0, 1]
 * @throws {RangeError} when F or k is not an integer in [0, N]
 * @example
 * ```ts
 * import { detectionHypergeometric } from "./plan.ts";
 * // 10 records, 1 false, sample 5: exactly 1/2.
 * if (Math.abs(detectionHypergeometric(10, { falseCount: 1, k: 5 }) - 0.5) > 1e-15) throw new Error();
 * ```
 */
export function detectionHypergeometric(population: number, sample: HypergeometricSample): number {
  const n = population;
  const { falseCount: f, k } = sample;
  _checkCount(n, "population");
  _checkCount(f, "falseCount", n);
  _checkCount(k, "k", n);
  if (f === 0 || k === 0) return 0;
  if (k > n - f) return 1; // the sample cannot avoid every false record
  return -Math.expm1(_logMiss(n, Math.max(f, k), Math.min(f, k)));
}

/** Up to this many terms the product is summed term by term. */
export const EXACT_TERMS = 1 << 16;

/** φ(u) = (u − a)·log1p(−a/u) + a, without cancellation for small a/u. */
function _phi(u: number, a: number): number {
  const t = a / u;
  if (t >= 0.5) return (u - a) * Math.log1p(-t) + a;
  let s = 0;
  let tm = t;
  for (let m = 1; m < 80 && tm > 1e-18 * t; m++, tm *= t) s += tm / (m * (m + 1));
  return a * s;
}

/** Σ_{i<b} log1p(−a / (N − i)) with b ≤ a (the log of the miss probability). */
function _logMiss(n: number, a: number, b: number): number {
  const h = (x: number) => Math.log1p(-a / (n - x));
  if (b <= EXACT_TERMS) {
    let s = 0;
    for (let i = 0; i < b; i++) s += h(i);
    return s;
  }
  // Euler–Maclaurin over x = 0..b−1 of h(x) = ln(N−a−x) − ln(N−x). With u = N − x the integral
  // over x is G(N) − G(N − b + 1) for G(u) = φ(u) − a·ln(u), φ(u) = (u − a)·log1p(−a/u) + a;
  // written as φ(N) − φ(N − b + 1) + a·log1p(−(b − 1)/N) so that no two large logarithms are
  // subtracted, with φ by its series a·Σ t^m / (m(m + 1)), t = a/u, when t < 1/2.
  const integral = _phi(n, a) - _phi(n - (b - 1), a) + a * Math.log1p(-(b - 1) / n);
  const d1 = (x: number) => 1 / (n - x) - 1 / (n - a - x); // first derivative of h
  const d3 = (x: number) => 2 / (n - x) ** 3 - 2 / (n - a - x) ** 3; // third
  const d5 = (x: number) => 24 / (n - x) ** 5 - 24 / (n - a - x) ** 5; // fifth
  return integral + (h(0) + h(b - 1)) / 2 + (d1(b - 1) - d1(0)) / 12 -
    (d3(b - 1) - d3(0)) / 720 + (d5(b - 1) - d5(0)) / 30240;
}

/**
 * Smallest k with 1 − (1 − p)^k ≥ confidence: starts from ⌈ln(1 − c) / ln(1 − p)⌉ and corrects
 * it by whole steps so that k meets the bound and k − 1 does not (as computed by
 * {@link detectionBinomial}). Examples at c = 0.95: p = 5 % → 59, 1 % → 299, 0.1 % → 2995.
 *
 * @param p fraction of false records, 0 < p ≤ 1
 * @param confidence wanted detection probability, 0 ≤ c < 1
 * @returns the sample size k
 * @throws {RangeError} when p is not in (0, 1], confidence not in [0, 1), or the sample size
 *   passes 2^53 (p below about 1e-15)
 * @example
 * ```ts
 * import { requiredSampleBinomial } from "./plan.ts";
 * if (requiredSampleBinomial(0.05, 0.95) !== 59) throw new Error();
 * ```
 */
export function requiredSampleBinomial(p: number, confidence: number): number {
  _checkP(p, "p");
  if (p === 0) throw new RangeError("Cannot size sample: p = 0 can never be detected");
  _checkConfidence(confidence);
  if (confidence === 0) return 0;
  if (p === 1) return 1;
  let k = Math.max(0, Math.ceil(Math.log1p(-confidence) / Math.log1p(-p)));
  if (!Number.isSafeInteger(k)) {
    throw new RangeError(`Cannot size sample: p = ${p} needs more than 2^53 draws`);
  }
  while (detectionBinomial(p, k) < confidence) k++;
  while (k > 0 && detectionBinomial(p, k - 1) >= confidence) k--;
  return k;
}

/** Inputs of {@link requiredSampleHypergeometric}. */
export interface HypergeometricTarget {
  /** F: number of false records to catch, 1 ≤ F ≤ N. */
  readonly falseCount: number;
  /** Wanted detection probability, 0 ≤ c < 1. */
  readonly confidence: number;
}

/**
 * Smallest k ≤ N with {@link detectionHypergeometric} ≥ confidence, by binary search (detection
 * grows with k). Never larger than the binomial size for p = F / N (drawing without replacement
 * catches at least as often), which bounds the search; each step sums at most
 * {@link EXACT_TERMS} terms, so N up to 2^53 − 1 is answered in milliseconds.
 *
 * @param population N
 * @param target F and confidence
 * @returns the sample size k
 * @throws {RangeError} when F is not in [1, N] or confidence not in [0, 1)
 * @example
 * ```ts
 * import { requiredSampleHypergeometric } from "./plan.ts";
 * if (requiredSampleHypergeometric(100, { falseCount: 100, confidence: 0.95 }) !== 1) throw new Error();
 * ```
 */
export function requiredSampleHypergeometric(
  population: number,
  target: HypergeometricTarget,
): number {
  const { falseCount: f, confidence } = target;
  _checkCount(population, "population");
  _checkCount(f, "falseCount", population);
  if (f === 0) throw new RangeError("Cannot size sample: falseCount 0 can never be detected");
  _checkConfidence(confidence);
  let lo = 0; // detection(lo) may be < confidence
  // detection(N - F + 1) = 1, and the binomial size for p = F / N already reaches `confidence`
  // (where it has one below 2^53: else N - F + 1 bounds the search alone).
  let hi = population - f + 1;
  try {
    hi = Math.min(hi, requiredSampleBinomial(f / population, confidence));
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  if (detectionHypergeometric(population, { falseCount: f, k: lo }) >= confidence) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (detectionHypergeometric(population, { falseCount: f, k: mid }) >= confidence) hi = mid;
    else lo = mid;
  }
  return hi;
}

function _checkP(p: number, what: string): void {
  if (typeof p !== "number" || !(p >= 0 && p <= 1)) {
    throw new RangeError(`Cannot compute detection: ${what} ${p} is not in [0, 1]`);
  }
}

function _checkConfidence(c: number): void {
  if (typeof c !== "number" || !(c >= 0 && c < 1)) {
    throw new RangeError(`Cannot size sample: confidence ${c} is not in [0, 1)`);
  }
}

function _checkCount(x: number, what: string, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isSafeInteger(x) || x < 0 || x > max) {
    throw new RangeError(`Cannot compute detection: ${what} ${x} is not an integer in [0, ${max}]`);
  }
}
