/**
 * Detection probability as a function of the sample size k: the curve the audit report draws,
 * each point the same detection statement an attestation signs, computed for another k.
 *
 * @module
 */
import { detectionStatement } from "./detection.ts";

/** One point of the curve. */
export interface DetectionPoint {
  /** Sample size. */
  readonly k: number;
  /** Misreporting rate, as in the detection statement (`"0.01"`). */
  readonly rate: string;
  /** `binomial` (seed paper eq. 1) or `hypergeometric` (exact, finite population). */
  readonly method: "binomial" | "hypergeometric";
  /** Probability of catching at least one false record. */
  readonly probability: number;
}

/**
 * Samples the detection curve from k = 0 to `kMax` (default `min(N, max(4k, 10))`), always
 * including the audit's own k.
 *
 * @param population N, records in the log
 * @param options the audit's `k`; `rates` (decimal strings, default `DEFAULT_RATES`);
 *   `points` along the axis (default 60)
 * @returns points ordered by k, then rate, then method
 * @throws {RangeError} as `detectionStatement` for a k above N or a bad rate
 * @example
 * ```ts
 * import { detectionCurve } from "./detection_curve.ts";
 * const c = detectionCurve(300, { k: 120, rates: ["0.01"], points: 3 });
 * const at = c.find((p) => p.k === 120 && p.method === "hypergeometric")!;
 * if (at.probability !== 0.785445) throw new Error(String(at.probability));
 * ```
 */
export function detectionCurve(
  population: number,
  options: { k: number; rates?: readonly string[]; points?: number; kMax?: number },
): DetectionPoint[] {
  const { k } = options;
  const kMax = options.kMax ?? Math.min(population, Math.max(4 * k, 10));
  const points = options.points ?? 60;
  const ks = new Set<number>([k]);
  for (let i = 0; i <= points; i++) ks.add(Math.round((i * kMax) / points));
  const out: DetectionPoint[] = [];
  for (const kk of [...ks].sort((a, b) => a - b)) {
    const s = detectionStatement(population, {
      k: kk,
      ...(options.rates === undefined ? {} : { rates: options.rates }),
    });
    for (const l of s.levels) {
      out.push({ k: kk, rate: l.pFalse, method: "binomial", probability: Number(l.binomial) });
      out.push({
        k: kk,
        rate: l.pFalse,
        method: "hypergeometric",
        probability: Number(l.hypergeometric),
      });
    }
  }
  return out;
}
