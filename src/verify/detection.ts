/**
 * The detection statement of an audit: how likely a sample of k records out of N catches
 * misreporting at given rates (seed paper eq. 1, and the exact finite-population bound).
 *
 * @module
 */
import { detectionBinomial, detectionHypergeometric } from "./plan.ts";

/** Detection probability at one misreporting rate. */
export interface DetectionLevel {
  /** Fraction of false records, as a decimal string (no floats in signed records). */
  readonly pFalse: string;
  /** Number of false records F = ceil(p * N). */
  readonly falseCount: number;
  /** 1 - (1 - p)^k, as a decimal string with 6 digits. */
  readonly binomial: string;
  /** 1 - C(N - F, k) / C(N, k), as a decimal string with 6 digits. */
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

/**
 * Computes the detection statement.
 *
 * @param population N
 * @param options sample size `k` and the misreporting rates to report (decimal strings)
 * @returns the statement (probabilities as fixed-point strings, so it can be signed canonically)
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
  const { k } = options;
  const levels = (options.rates ?? DEFAULT_RATES).map((pFalse) => {
    const p = Number(pFalse);
    const falseCount = Math.min(population, Math.ceil(p * population - 1e-9));
    return {
      pFalse,
      falseCount,
      binomial: detectionBinomial(p, k).toFixed(6),
      hypergeometric: falseCount === 0
        ? "0.000000"
        : detectionHypergeometric(population, { falseCount, k }).toFixed(6),
    };
  });
  return { population, k, levels };
}
