/**
 * Detection probability and sample size for audits ([seed paper] eq. 1, appendix C).
 *
 * If a fraction p of records is misreported, k records sampled uniformly catch at least one with
 * probability 1 − (1 − p)^k (binomial, N ≫ k); drawing without replacement from N records of
 * which F are false it is exactly 1 − C(N − F, k) / C(N, k) (hypergeometric), never less.
 *
 * The values are computed in doubles; `binomialError` and `hypergeometricError` bound how far
 * each can be from the truth, and `lowerBinomial` and `lowerHypergeometric` lower each value by
 * that bound (`lowerDetection`), never above the truth: what is signed or shown, rounded down to
 * six decimals (`sixDecimalsDown`). The sample sizes here are judged with the same bounds, on the
 * lowered value and on the log of the miss probability, which keeps its accuracy near c = 1.
 *
 * @module
 */
import { type DetectionError, lowerDetection } from "./detection_text.ts";

/** Unit roundoff of a double, 2^−53. */
const U = 2 ** -53;

/** The error of a value the inputs decide: none. */
const EXACT: DetectionError = Object.freeze({ exact: true, relative: 0, absolute: 0 });

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
  return -Math.expm1(_binomialLogMiss(p, k));
}

/** S = k·log1p(−p), the log of the binomial miss probability (0 < p < 1). */
function _binomialLogMiss(p: number, k: number): number {
  return k * Math.log1p(-p);
}

/**
 * How far {@link detectionBinomial}'s S = k·log1p(−p) can be from k·ln(1 − p): log1p is within
 * one unit in the last place (2u, u = 2^−53) and the product rounds once (u), so |ΔS| ≤ 3u·|S|;
 * stated with a factor 2 to spare, 6u. (Rounding p to a double moves D by at most u/2, counted
 * in the roundings `detectionErrorBound` adds.) Exact when k = 0, p = 0 or p = 1.
 *
 * @param p fraction of false records, 0 ≤ p ≤ 1
 * @param k sample size, a safe non-negative integer
 * @returns the error, as {@link lowerBinomial} lowers by it
 * @throws {RangeError} when p or k is out of range
 * @example
 * ```ts
 * import { binomialError } from "./plan.ts";
 * if (binomialError(0.05, 290).relative !== 6 * 2 ** -53) throw new Error();
 * if (!binomialError(1, 290).exact) throw new Error(); // p = 1: certain
 * ```
 */
export function binomialError(p: number, k: number): DetectionError {
  _checkP(p, "p");
  _checkCount(k, "k");
  if (k === 0 || p === 0 || p === 1) return EXACT;
  return { exact: false, relative: 6 * U, absolute: 0 };
}

/**
 * {@link detectionBinomial} lowered by its error bound ({@link binomialError}): never above the
 * true 1 − (1 − p)^k.
 *
 * @param p fraction of false records, 0 ≤ p ≤ 1
 * @param k sample size, a safe non-negative integer
 * @returns the lowered probability in [0, 1]
 * @throws {RangeError} when p or k is out of range
 * @example
 * ```ts
 * import { lowerBinomial } from "./plan.ts";
 * import { sixDecimalsDown } from "./detection_text.ts";
 * // 1 − 0.95^290 = 0.99999965...: 1.000000 to nearest, never above the truth here.
 * if (sixDecimalsDown(lowerBinomial(0.05, 290)) !== "0.999999") throw new Error();
 * if (lowerBinomial(1, 3) !== 1) throw new Error(); // certain
 * ```
 */
export function lowerBinomial(p: number, k: number): number {
  return lowerDetection(detectionBinomial(p, k), binomialError(p, k));
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

/**
 * How far {@link detectionHypergeometric}'s S can be from the log of C(N − F, k) / C(N, k), with
 * a = max(F, k), b = min(F, k) and u = 2^−53:
 *
 * - term by term (b ≤ {@link EXACT_TERMS}): each log1p within 2u of its value, and b same-signed
 *   terms summed in order within (b − 1)u·|S|, so |ΔS| ≤ (b + 1)u·|S|; stated as 2(b + 1)u·|S|.
 *   (Rounding a / (N − i) moves D by at most u, counted in the roundings `detectionErrorBound`
 *   adds.)
 * - Euler–Maclaurin (b above it): φ(N) and φ(N − b + 1), each about a²/(2N) and within about 4u
 *   of it, cancel, leaving 4u·a²/N; the other terms are of size |S| or less, within 8u·|S| in all;
 *   the remainder after the fifth-derivative term is below 2ζ(7)/(2π)^7 · 5!/(N − a − b + 1)^6,
 *   under 10^−3/(N − a − b + 1)^6. Stated as 16u·|S| + 8u·a²/N + 10^−3/(N − a − b + 1)^6.
 *
 * Exact when F = 0, k = 0 or k > N − F. Measured against `mpmath` (log-gamma at 60 digits) over
 * 24,000 random audits of N up to 2^53 − 1 (18,000 by Euler–Maclaurin), the error of D stayed
 * within 0.3 of what this allows (tests/verify/detection_text_test.ts keeps the closest cases).
 *
 * @param population N, a safe non-negative integer
 * @param sample F and k
 * @returns the error, as {@link lowerHypergeometric} lowers by it
 * @throws {RangeError} when F or k is not an integer in [0, N]
 * @example
 * ```ts
 * import { hypergeometricError } from "./plan.ts";
 * const s = { falseCount: 19, k: 270 }; // summed term by term: 2(19 + 1)u·|S|
 * if (hypergeometricError(1860, s).relative !== 40 * 2 ** -53) throw new Error();
 * if (!hypergeometricError(6, { falseCount: 1, k: 6 }).exact) throw new Error(); // k > N − F
 * ```
 */
export function hypergeometricError(
  population: number,
  sample: HypergeometricSample,
): DetectionError {
  const n = population;
  const { falseCount: f, k } = sample;
  _checkCount(n, "population");
  _checkCount(f, "falseCount", n);
  _checkCount(k, "k", n);
  if (f === 0 || k === 0 || k > n - f) return EXACT;
  const a = Math.max(f, k);
  const b = Math.min(f, k);
  if (b <= EXACT_TERMS) return { exact: false, relative: 2 * (b + 1) * U, absolute: 0 };
  return {
    exact: false,
    relative: 16 * U,
    absolute: 8 * U * (a / n) * a + 1e-3 / (n - a - b + 1) ** 6,
  };
}

/**
 * {@link detectionHypergeometric} lowered by its error bound ({@link hypergeometricError}): never
 * above the true 1 − C(N − F, k) / C(N, k).
 *
 * @param population N, a safe non-negative integer
 * @param sample F and k
 * @returns the lowered probability in [0, 1]
 * @throws {RangeError} when F or k is not an integer in [0, N]
 * @example
 * ```ts
 * import { lowerHypergeometric } from "./plan.ts";
 * import { sixDecimalsDown } from "./detection_text.ts";
 * // 1860 records, 19 false, 270 sampled: 0.94999997982..., 0.950000 to nearest.
 * const low = lowerHypergeometric(1860, { falseCount: 19, k: 270 });
 * if (sixDecimalsDown(low) !== "0.949999") throw new Error();
 * ```
 */
export function lowerHypergeometric(population: number, sample: HypergeometricSample): number {
  return lowerDetection(
    detectionHypergeometric(population, sample),
    hypergeometricError(population, sample),
  );
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
 * Smallest k with 1 − (1 − p)^k ≥ c for every c that rounds to `confidence` (a decimal read as a
 * double stands for all of them), judged with the computation's error bound
 * ({@link binomialError}), so the k returned reaches the confidence for certain and is never
 * below the exact minimum. It is judged on the log S of the miss probability against ln(1 − c),
 * which keeps full relative accuracy where 1 − D in doubles does not, and on
 * {@link lowerBinomial}. It exceeds the exact minimum by one step at most plus two shares of k:
 * the share of |S| that the bound and its judging span (19·2^−53, about 2.1·10^−15, for p up to
 * 1/2), and 2^−53 / ((1 − c)·|ln(1 − c)|), half a unit in the last place of c (2^−54) and again
 * as much between a decimal and its double. That is a step or a few for c up to 0.99 and k below
 * 10^14, but up to 4·10^−6 of k at c = 0.999999999999 (p = 10^−12: 27,631,098,751,800 where the
 * exact minimum is 27,631,021,115,915; judged on 1 − D in doubles alone, 27,631,431,900,054).
 * Starts from ⌈ln(1 − c) / ln(1 − p)⌉ and moves by doubling steps, then halves the last one.
 * Examples at c = 0.95: p = 5 % → 59, 1 % → 299, 0.1 % → 2995.
 *
 * @param p fraction of false records, 0 < p ≤ 1
 * @param confidence wanted detection probability, 0 ≤ c < 1
 * @returns the sample size k
 * @throws {RangeError} when p is not in (0, 1], confidence not in [0, 1), or the sample size
 *   passes 2^53 (p below |ln(1 − c)| / 2^53: 3.3·10^−16 at c = 0.95, 3.1·10^−15 at
 *   c = 0.999999999999)
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
  const start = Math.max(0, Math.ceil(Math.log1p(-confidence) / Math.log1p(-p)));
  const reaches = (k: number) => {
    const error = binomialError(p, k);
    if (error.exact) return detectionBinomial(p, k) >= confidence;
    return _reaches(_binomialLogMiss(p, k), error, { terms: k, largest: p, confidence });
  };
  if (!Number.isSafeInteger(start) || !reaches(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`Cannot size sample: p = ${p} needs more than 2^53 draws`);
  }
  // Invariant: !reaches(lo) (or lo = −1) and reaches(hi).
  let lo: number;
  let hi: number;
  if (reaches(start)) {
    [lo, hi] = [start - 1, start];
    for (let step = 1; lo >= 0 && reaches(lo); step *= 2) [hi, lo] = [lo, Math.max(-1, lo - step)];
  } else {
    [lo, hi] = [start, start + 1];
    for (let step = 1; !reaches(hi); step *= 2) {
      [lo, hi] = [hi, Math.min(Number.MAX_SAFE_INTEGER, hi + step)];
    }
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (reaches(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Inputs of {@link requiredSampleHypergeometric}. */
export interface HypergeometricTarget {
  /** F: number of false records to catch, 1 ≤ F ≤ N. */
  readonly falseCount: number;
  /** Wanted detection probability, 0 ≤ c < 1. */
  readonly confidence: number;
}

/**
 * Smallest k ≤ N with 1 − C(N − F, k) / C(N, k) ≥ c for every c that rounds to `confidence`,
 * judged as {@link requiredSampleBinomial} judges (log space and {@link lowerHypergeometric}; exact
 * where k > N − F), by binary search (detection grows with k): the k returned reaches the
 * confidence for certain and is never below the exact minimum. It exceeds it by one step at most
 * plus two shares of k, as there: 2^−53 / ((1 − c)·|ln(1 − c)|), and the bound's share of |S|
 * with its judging ({@link hypergeometricError}, a = max(F, k), b = min(F, k)):
 * (2(b + 1) + 13)·2^−53 summed term by term (up to 1.5·10^−11 for 2^16 terms; more where a rate
 * a / (N − i) passes 1/2), and (16 + 13)·2^−53 + 8·2^−53·a² / (N·|S|) by Euler–Maclaurin (1,885
 * steps above the exact 385,465,430,314 for N = 2^53 − 1, F = 70,000, c = 0.95). Never larger
 * than the binomial size for p = F / N (drawing without replacement catches at least as often, and
 * that size is itself judged for certain), which bounds the search; each step sums at most
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
  const reaches = (k: number) => {
    const sample = { falseCount: f, k };
    const error = hypergeometricError(population, sample);
    if (error.exact) return detectionHypergeometric(population, sample) >= confidence;
    const [a, b] = [Math.max(f, k), Math.min(f, k)];
    // b terms; the largest rate a / (N − i) is at i = b − 1.
    const at = { terms: b, largest: a / (population - b + 1), confidence };
    return _reaches(_logMiss(population, a, b), error, at);
  };
  let lo = 0; // reaches(lo) may be false
  // detection(N - F + 1) = 1, and the binomial size for p = F / N already reaches `confidence`
  // (where it has one below 2^53: else N - F + 1 bounds the search alone).
  let hi = population - f + 1;
  try {
    hi = Math.min(hi, requiredSampleBinomial(f / population, confidence));
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
  }
  if (reaches(lo)) return lo;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (reaches(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * Whether a detection probability whose miss probability has the computed log s (with its error)
 * surely reaches every c that rounds to `confidence`: its lowered value (`lowerDetection`) does,
 * or, judged in log space, the true miss probability is at most 1 − c. Near c = 1 a probability
 * in doubles resolves 1 − D only to 2^−53 (the absolute 2^−51 that `lowerDetection` subtracts is
 * 4·10^−4 of 1 − c = 10^−12), while S keeps full relative accuracy. With u = 2^−53, r and A the
 * computation's error (`binomialError`, `hypergeometricError`) and n terms of rates x_i ≤ x (k
 * terms of p, or b terms of a / (N − i)):
 *
 * - the true S is at most s + (r + 4u)·(|s| + A) + A + 4u·n·x / (1 − x − 2u). r·|S| + A bounds
 *   the computation; each rate is a double within u·x_i of its exact value (p's decimal, or the
 *   quotient), which moves its term ln(1 − x_i) by at most 2u·x_i / (1 − x_i) while that is at
 *   most 1/2 (1 − x > 4u); the rest covers |S| against |s|, x against x_i and the roundings of
 *   this sum;
 * - any c that rounds to `confidence` is at most `confidence` + 2^−54 (c ≥ 1/2), and
 *   m = 1 − `confidence` − 2^−54 is exact in doubles (1 − c is a multiple of 2^−53 there);
 * - `Math.log(m)` is within one unit in the last place (2u) of ln m, so ln m ≥ log(m)·(1 + 2u),
 *   which the product with 1 + 4u stays below after its own rounding.
 *
 * The lowered value covers such a c too: the roundings after S it subtracts (2^−51) exceed those
 * that occur here (2^−52) by more than 2^−54. Log space is not used where c < 1/2 (1 − D is then
 * at least 1/2, and the lowered value judges as closely) or 1 − x ≤ 4u.
 */
function _reaches(
  logMiss: number,
  error: DetectionError,
  at: { terms: number; largest: number; confidence: number },
): boolean {
  const { terms, largest: x, confidence } = at;
  if (lowerDetection(-Math.expm1(logMiss), error) >= confidence) return true;
  if (confidence < 0.5 || !(1 - x > 4 * U)) return false;
  const computation = (error.relative + 4 * U) * (-logMiss + error.absolute) + error.absolute;
  const rates = 4 * U * terms * (x / (1 - x - 2 * U));
  const miss = 1 - confidence - U / 2; // exact: see above
  return logMiss + computation + rates <= Math.log(miss) * (1 + 4 * U);
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
