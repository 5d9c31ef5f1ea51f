/**
 * A computed detection probability as it may be stated: lowered by the error bound of its
 * computation and rounded down to six decimals, so the text is never above the true value.
 *
 * `detectionBinomial` and `detectionHypergeometric` compute D = 1 − M as −expm1(S), S the log of
 * the miss probability M, summed in doubles. Each states how far its S can be from the true one
 * (`binomialError`, `hypergeometricError`: a part relative to |S| and an absolute part); then
 * M_true ≤ M·e^|ΔS| and D_true ≥ D − M·(e^|ΔS| − 1), less the roundings after S (2^−51). The
 * bounds are derived where the computations are, and tests/verify/detection_text_test.ts checks
 * them against exact values (Python `fractions` and `mpmath`) on the hardest cases found.
 *
 * @module
 */

/**
 * How far a computed log miss probability S can be from the true one:
 * |ΔS| ≤ `relative`·|S| + `absolute`, or nothing at all where the inputs decide the value.
 */
export interface DetectionError {
  /**
   * The value is exact, not rounded: 0 or 1 decided by the inputs (k = 0, F = 0, p = 1, or
   * k > N − F: no sample can avoid every false record). It is then not lowered, so a sample that
   * cannot miss states 1.000000.
   */
  readonly exact: boolean;
  /** The part of |ΔS| proportional to |S| (from rounding each of the summed logarithms). */
  readonly relative: number;
  /** The part of |ΔS| independent of S (from cancellation or truncation). */
  readonly absolute: number;
}

/**
 * The roundings after S, as absolute errors of D: −expm1 (one unit in the last place, 2^−53 near
 * 1), the rounding of p or F / (N − i) to a double (at most 2^−53 in all: the derivatives add up
 * to the chance of exactly one success, at most 1) and the scaling by 10^6 in
 * {@link sixDecimalsDown} (half a unit of 10^6·D, below 2^−53 of D).
 */
const ROUNDING = 2 ** -51;

/**
 * Largest error of a computed detection probability.
 *
 * @param computed the computed probability D, in [0, 1]
 * @param error the computation's error (`binomialError`, `hypergeometricError`)
 * @returns 0 when exact, else M·(e^(relative·|ln M| + absolute) − 1) + 2^−51 with M = 1 − D
 * @throws {RangeError} when `computed` is not in [0, 1]
 * @example
 * ```ts
 * import { detectionErrorBound } from "./detection_text.ts";
 * const term = { exact: false, relative: 1e-15, absolute: 0 };
 * if (!(detectionErrorBound(0.5, term) < 1e-15)) throw new Error();
 * if (detectionErrorBound(1, { exact: true, relative: 0, absolute: 0 }) !== 0) throw new Error();
 * ```
 */
export function detectionErrorBound(computed: number, error: DetectionError): number {
  _checkProbability(computed);
  if (error.exact) return 0;
  const miss = 1 - computed;
  if (miss === 0) return ROUNDING; // e^S below 2^−54: the true miss is below 2^−53
  const ds = error.relative * -Math.log1p(-computed) + error.absolute;
  return miss * Math.expm1(ds) + ROUNDING;
}

/**
 * The computed probability lowered by its error bound, clamped at 0: never above the true value.
 * Sample sizes compare it with the wanted confidence, and a checker compares a stated value with
 * it.
 *
 * @param computed the computed probability D, in [0, 1]
 * @param error the computation's error (`binomialError`, `hypergeometricError`)
 * @returns max(0, D − `detectionErrorBound(D, error)`)
 * @throws {RangeError} when `computed` is not in [0, 1]
 * @example
 * ```ts
 * import { lowerDetection } from "./detection_text.ts";
 * if (!(lowerDetection(0.5, { exact: false, relative: 1e-15, absolute: 0 }) < 0.5)) throw new Error();
 * if (lowerDetection(1, { exact: true, relative: 0, absolute: 0 }) !== 1) throw new Error();
 * ```
 */
export function lowerDetection(computed: number, error: DetectionError): number {
  return Math.max(0, computed - detectionErrorBound(computed, error));
}

/**
 * The six-decimal text of a value in [0, 1], rounded down. Scaling by 10^6 rounds, so a value
 * within 2^−53 below a six-decimal boundary may be written as that boundary: the error bound
 * {@link lowerDetection} subtracts first counts that rounding.
 *
 * @param value in [0, 1]
 * @returns `0.xxxxxx` or `1.000000`
 * @throws {RangeError} when `value` is not in [0, 1]
 * @example
 * ```ts
 * import { sixDecimalsDown } from "./detection_text.ts";
 * if (sixDecimalsDown(0.9999996) !== "0.999999" || sixDecimalsDown(0.25) !== "0.250000") {
 *   throw new Error();
 * }
 * ```
 */
export function sixDecimalsDown(value: number): string {
  _checkProbability(value);
  const units = Math.floor(value * 1e6);
  return units === 1e6 ? "1.000000" : `0.${String(units).padStart(6, "0")}`;
}

function _checkProbability(p: number): void {
  if (typeof p !== "number" || !(p >= 0 && p <= 1)) {
    throw new RangeError(`Cannot state detection: probability ${p} is not in [0, 1]`);
  }
}
