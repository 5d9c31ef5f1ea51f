/**
 * Comparison of an emulated BF16 forward with the float64 reference: per row (token), the largest
 * element error relative to the reference row's RMS, `max_i |e_i - r_i| / sqrt(mean_i r_i^2)`.
 * Measuring against the row's RMS, not each element, keeps near-zero elements from dominating,
 * while a single wrong channel still counts in full.
 *
 * The final-norm output is `w * x_hat`: a channel with a large weight (real checkpoints and the
 * bundled tiny ones have weights of 8..40 in about 1 channel in 64) holds elements tens of times
 * the row's RMS, whose BF16 rounding alone is then a sizeable fraction of that RMS. Given
 * `normWeight` (`model.norm.weight`), errors are measured in normalised units instead:
 * `max_i (|e_i - r_i| / |w_i|) / rms(r / w)`, i.e. against `x_hat`, whose RMS is 1, so the score
 * no longer depends on the weights' spread.
 *
 * @module
 */
import { bf16ToF64 } from "./bf16_f64.ts";

/** Options of {@link rowErrors} and {@link withinTolerance}. */
export interface ToleranceOptions {
  /** The final norm's weight (`[hidden]`): measure in normalised units (see the module doc). */
  readonly normWeight?: Float64Array | undefined;
}

/**
 * Each row's error (see the module doc).
 *
 * @param emulated BF16 patterns `[rows, hidden]`
 * @param o `reference` (float64 `[rows, hidden]`), `hidden` and optional `normWeight`
 * @returns one relative error per row (NaN where an emulated value is NaN)
 * @throws {TypeError} when the lengths disagree or are not whole rows
 * @example
 * ```ts
 * import { rowErrors } from "./within_tolerance.ts";
 * const e = rowErrors(Uint16Array.of(0x3f80, 0x4000), { reference: Float64Array.of(1, 2.5), hidden: 2 });
 * if (Math.abs(e[0]! - 0.5 / Math.sqrt(3.625)) > 1e-15) throw new Error();
 * ```
 */
export function rowErrors(
  emulated: Uint16Array,
  o: ToleranceOptions & { reference: Float64Array; hidden: number },
): Float64Array {
  const { reference: r, hidden: h } = o;
  if (emulated.length !== r.length || h <= 0 || r.length % h !== 0) {
    throw new TypeError(
      `Cannot compare: ${emulated.length} emulated and ${r.length} reference values in rows of ${h}`,
    );
  }
  if (o.normWeight !== undefined && o.normWeight.length !== h) {
    throw new TypeError(`Cannot compare: norm weight of ${o.normWeight.length} for rows of ${h}`);
  }
  const scale = o.normWeight ?? new Float64Array(h).fill(1);
  const e = bf16ToF64(emulated);
  const out = new Float64Array(r.length / h);
  for (let row = 0; row < out.length; row++) {
    let ss = 0;
    let n = 0;
    let worst = 0;
    for (let i = 0; i < h; i++) {
      const w = Math.abs(scale[i]!);
      if (w === 0) continue; // a zero-weight channel is 0 in both: nothing to measure
      n++;
      const ref = r[row * h + i]!;
      ss += (ref / w) ** 2;
      const d = Math.abs(e[row * h + i]! - ref) / w;
      worst = d > worst || Number.isNaN(d) ? d : worst;
    }
    out[row] = worst / Math.sqrt(ss / n);
  }
  return out;
}

/**
 * The worst row error of an emulated forward against the reference (see the module doc).
 *
 * @param emulatedBf16 BF16 patterns `[rows, hidden]`
 * @param reference float64 `[rows, hidden]`
 * @param hidden row width
 * @param options optional `normWeight` (measure in normalised units)
 * @returns the largest per-row relative error (NaN if any emulated value is NaN)
 * @throws {TypeError} as {@link rowErrors}
 * @example
 * ```ts
 * import { withinTolerance } from "./within_tolerance.ts";
 * if (withinTolerance(Uint16Array.of(0x3f80), Float64Array.of(1), 1) !== 0) throw new Error();
 * ```
 */
export function withinTolerance(
  emulatedBf16: Uint16Array,
  reference: Float64Array,
  hidden: number,
  options: ToleranceOptions = {},
): number {
  return rowErrors(emulatedBf16, { ...options, reference, hidden }).reduce(
    (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b)),
    0,
  );
}
