/**
 * The detection statement of an audit: how likely a sample of k records out of N catches
 * misreporting at given rates (seed paper eq. 1, and the exact finite-population bound).
 *
 * @module
 */
import { sixDecimalsDown } from "./detection_text.ts";
import { falseCount as countFalse, rateIsOne } from "./false_count.ts";
import { lowerBinomial, lowerHypergeometric } from "./plan.ts";

/** Detection probability at one misreporting rate. */
export interface DetectionLevel {
  /** Fraction of false records, as a decimal string (no floats in signed records). */
  readonly pFalse: string;
  /** Number of false records F = ceil(p * N). */
  readonly falseCount: number;
  /** 1 - (1 - p)^k, as a decimal string with 6 digits, never above the true value. */
  readonly binomial: string;
  /** 1 - C(N - F, k) / C(N, k), as a decimal string with 6 digits, never above the true value. */
  readonly hypergeometric: string;
}

/** The statement recorded with a verdict. */
export interface DetectionStatement {
  /** Records in the log. */
  readonly population: number;
  /** Records audited. */
  readonly k: number;
  /** Detection probability per misreporting rate. */
  readonly levels: readonly DetectionLevel[];
}

/** Misreporting rates reported by default (per mille: 1, 10, 50). */
export const DEFAULT_RATES = ["0.001", "0.01", "0.05"] as const;
Object.freeze(DEFAULT_RATES);

/**
 * Computes the detection statement. F is ⌈p·N⌉ with p read exactly from its decimal text
 * (`falseCount`); each probability is lowered by the error bound of its computation
 * (`lowerBinomial`, `lowerHypergeometric`) and rounded down to six decimals (`sixDecimalsDown`),
 * so the signed figure never states more than the truth.
 *
 * @param population N
 * @param options sample size `k` and the misreporting rates to report (decimal strings)
 * @returns the statement (probabilities as fixed-point strings, so it can be signed canonically)
 * @throws {RangeError} when a rate is not a decimal in [0, 1] (or is below 1 but read as 1 in
 *   double precision) or k is not an integer in [0, N]
 * @example
 * ```ts
 * import { detectionStatement } from "./detection.ts";
 * const s = detectionStatement(1_000_000, { k: 3200, rates: ["0.001"] });
 * if (s.levels[0]!.binomial !== "0.959303") throw new Error(s.levels[0]!.binomial);
 * ```
 */
export function detectionStatement(
  population: number,
  options: { k: number; rates?: readonly string[] },
): DetectionStatement {
  const levels = _lowered(population, options).map((l) => ({
    pFalse: l.pFalse,
    falseCount: l.falseCount,
    binomial: sixDecimalsDown(l.binomial),
    hypergeometric: sixDecimalsDown(l.hypergeometric),
  }));
  return { population, k: options.k, levels };
}

/** A level with its probabilities lowered by their error bound, unwritten. */
interface LoweredLevel {
  readonly pFalse: string;
  readonly falseCount: number;
  readonly binomial: number;
  readonly hypergeometric: number;
}

function _lowered(
  population: number,
  options: { k: number; rates?: readonly string[] },
): LoweredLevel[] {
  const { k } = options;
  return (options.rates ?? DEFAULT_RATES).map((pFalse) => {
    const p = Number(pFalse);
    if (p === 1 && !rateIsOne(pFalse)) {
      // A double reads it as 1, which would state a certain detection that is not.
      throw new RangeError(
        `Cannot state detection: rate ${pFalse} is below 1 but read as 1 in double precision`,
      );
    }
    const sample = { falseCount: countFalse(pFalse, population), k };
    return {
      pFalse,
      falseCount: sample.falseCount,
      binomial: lowerBinomial(p, k),
      hypergeometric: lowerHypergeometric(population, sample),
    };
  });
}

/**
 * Tolerance for engines whose `log1p` or `expm1` differ from this one's in the last bit: one unit
 * in the last place moves a value by about 10^−16, and such differences, independent over the at
 * most 2^16 summed terms, by far less than 10^−12, itself far below a unit of the sixth decimal.
 */
const ENGINE_SLACK = 1e-12;

/**
 * Why a signed detection statement is not the one an audit of `population` records with sample
 * `k` gives (`detectionStatement` at the default rates): the inspector's signature does not make
 * its numbers true, so a checker recomputes them as it recomputes the seed and the sample.
 *
 * With L a recomputed probability lowered by its error bound (never above the true value), a
 * stated value s is accepted when s ≤ L + 10^−12 (it states no more than the truth) and s is at
 * least one unit of the sixth decimal below L's own text (an engine whose L falls just under a
 * six-decimal boundary writes one unit less). 1.000000 is accepted only where L is exactly 1, the
 * inputs making detection certain (k > N − F, or p = 1): elsewhere L is at least 2^−51 below 1
 * on every engine running this code, so 1.000000 states more than the truth.
 *
 * @param stated the statement from the verdict predicate
 * @param audit the audited population and sample size
 * @returns null when it is that statement, else what differs
 * @example
 * ```ts
 * import { detectionMismatch, detectionStatement } from "./detection.ts";
 * const s = detectionStatement(100, { k: 5 });
 * if (detectionMismatch(s, { population: 100, k: 5 }) !== null) throw new Error();
 * const inflated = { ...s, levels: s.levels.map((l) => ({ ...l, binomial: "0.999999" })) };
 * if (detectionMismatch(inflated, { population: 100, k: 5 }) === null) throw new Error();
 * ```
 */
export function detectionMismatch(
  stated: DetectionStatement,
  audit: { readonly population: number; readonly k: number },
): string | null {
  const { population, k } = audit;
  if (stated.population !== population || stated.k !== k) {
    return `the detection statement is for ${stated.k} of ${stated.population} records, ` +
      `the audit drew ${k} of ${population}`;
  }
  const want = _lowered(population, { k });
  if (stated.levels.length !== want.length) {
    return `the detection statement has ${stated.levels.length} rates, not ${want.length}`;
  }
  for (const [i, w] of want.entries()) {
    const l = stated.levels[i]!;
    if (l.pFalse !== w.pFalse || l.falseCount !== w.falseCount) {
      return `detection rate ${i} is ${l.pFalse} (${l.falseCount} false), not ${w.pFalse} ` +
        `(${w.falseCount} false)`;
    }
    for (const which of ["binomial", "hypergeometric"] as const) {
      const text = sixDecimalsDown(w[which]);
      // A probability: 0.xxxxxx or 1.000000, never above 1.
      const s = /^(?:0\.\d{6}|1\.000000)$/.test(l[which]) ? Number(l[which]) : Number.NaN;
      const within = s <= w[which] + ENGINE_SLACK && s >= Number(text) - 1e-6 - ENGINE_SLACK;
      if (!(within && (s < 1 || w[which] === 1))) {
        return `at rate ${w.pFalse} the ${which} detection probability is stated as ` +
          `${l[which]}, recomputed ${text}`;
      }
    }
  }
  return null;
}
