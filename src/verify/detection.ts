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
Object.freeze(DEFAULT_RATES);

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

/**
 * Largest difference accepted between a stated probability and the recomputed one: one unit of
 * the sixth decimal, so that a checker whose JavaScript engine rounds `log1p` or `expm1`
 * differently in the last bit does not refuse an honest statement.
 */
const PROBABILITY_SLACK = 1e-6 + 1e-12;

/**
 * Why a signed detection statement is not the one an audit of `population` records with sample
 * `k` gives (`detectionStatement` at the default rates): the inspector's signature does not make
 * its numbers true, so a checker recomputes them as it recomputes the seed and the sample.
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
  const want = detectionStatement(population, { k });
  if (stated.levels.length !== want.levels.length) {
    return `the detection statement has ${stated.levels.length} rates, not ${want.levels.length}`;
  }
  for (const [i, w] of want.levels.entries()) {
    const l = stated.levels[i]!;
    if (l.pFalse !== w.pFalse || l.falseCount !== w.falseCount) {
      return `detection rate ${i} is ${l.pFalse} (${l.falseCount} false), not ${w.pFalse} ` +
        `(${w.falseCount} false)`;
    }
    for (const which of ["binomial", "hypergeometric"] as const) {
      // A probability: 0.xxxxxx or 1.000000 (never above 1, whatever the slack allows).
      const ok = /^(?:0\.\d{6}|1\.000000)$/.test(l[which]) &&
        Math.abs(Number(l[which]) - Number(w[which])) <= PROBABILITY_SLACK;
      if (!ok) {
        return `at rate ${w.pFalse} the ${which} detection probability is stated as ` +
          `${l[which]}, recomputed ${w[which]}`;
      }
    }
  }
  return null;
}
