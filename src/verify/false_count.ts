/**
 * The number of false records a misreporting rate means in a log: F = ⌈p·N⌉, with p read exactly
 * from its decimal text. In doubles p·N is rounded (0.07 × 279,928,000 is 19,594,960.000000004,
 * so a ceiling gives one record too many) and no fixed tolerance fixes every N up to 2^53 − 1.
 * The same exact reading tells a rate of 1 from one just below that doubles read as 1.
 *
 * @module
 */

/** Longest rate text read (a rate needs a handful of digits; the bound caps the BigInt work). */
export const MAX_RATE_TEXT = 64;

/**
 * Decimal text as JavaScript's `Number` reads it: an optional leading `+` (as `--p-false +0.01`),
 * no minus sign, spaces, `Infinity`, `0x` or `_`.
 */
const RATE = /^\+?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/;

/**
 * F = ⌈p·N⌉ for a rate p in [0, 1] given as decimal text (`0.01`, `.5`, `1e-15`, `2.5E-3`).
 *
 * @param pFalse the rate's decimal text, at most {@link MAX_RATE_TEXT} characters
 * @param population N, a safe non-negative integer
 * @returns F, in [0, N]
 * @throws {RangeError} when the text is not such a decimal, or p is above 1, or N is not a safe
 *   non-negative integer
 * @example
 * ```ts
 * import { falseCount } from "./false_count.ts";
 * if (falseCount("0.07", 279_928_000) !== 19_594_960) throw new Error();
 * if (falseCount("0.001", 1500) !== 2 || falseCount("1e-15", 10) !== 1) throw new Error();
 * ```
 */
export function falseCount(pFalse: string, population: number): number {
  if (!Number.isSafeInteger(population) || population < 0) {
    throw new RangeError(`Cannot count false records: population ${population} is not a count`);
  }
  const rate = _rate(pFalse);
  if (rate === "zero") return 0;
  if (rate === "tiny") return population === 0 ? 0 : 1;
  const product = rate.num * BigInt(population);
  return Number((product + rate.den - 1n) / rate.den); // ceiling; at most N, a safe integer
}

/**
 * Whether a rate's decimal text is exactly 1 (`1`, `1.000`, `10e-1`). `Number` reads a text
 * within 2^−54 below 1 as 1 too (`0.99999999999999999`), so a caller that computes with the
 * double refuses such a text rather than state a certain detection that is not.
 *
 * @param pFalse the rate's decimal text, at most {@link MAX_RATE_TEXT} characters
 * @returns true when the text's exact value is 1
 * @throws {RangeError} when the text is not such a decimal, or p is above 1
 * @example
 * ```ts
 * import { rateIsOne } from "./false_count.ts";
 * if (!rateIsOne("1.0") || rateIsOne("0.99999999999999999")) throw new Error();
 * ```
 */
export function rateIsOne(pFalse: string): boolean {
  const rate = _rate(pFalse);
  return typeof rate !== "string" && rate.num === rate.den;
}

/** A rate's exact value num / den ≤ 1; "zero", or "tiny" below 10^−900 and not 0. */
function _rate(pFalse: string): { num: bigint; den: bigint } | "zero" | "tiny" {
  const m = typeof pFalse === "string" && pFalse.length <= MAX_RATE_TEXT ? RATE.exec(pFalse) : null;
  if (m === null) {
    throw new RangeError(
      `Cannot count false records: rate ${_quote(pFalse)} is not a decimal number`,
    );
  }
  const fraction = m[2] ?? m[3] ?? "";
  const digits = BigInt(`${m[1] ?? ""}${fraction}` || "0");
  // p = digits · 10^shift. The text's length bounds the digits; an exponent beyond ±1000 is
  // decided without powers of ten (a rate below 10^−900 that is not 0 makes one record).
  const exponent = Number(m[4] ?? "0");
  const shift = exponent - fraction.length;
  if (digits === 0n) return "zero";
  if (shift < -1000) return "tiny";
  if (shift > 1000) throw new RangeError(`Cannot count false records: rate ${pFalse} is above 1`);
  const [num, den] = shift >= 0 ? [digits * 10n ** BigInt(shift), 1n] : [
    digits,
    10n ** BigInt(-shift),
  ];
  if (num > den) throw new RangeError(`Cannot count false records: rate ${pFalse} is above 1`);
  return { num, den };
}

function _quote(x: unknown): string {
  return typeof x === "string" ? JSON.stringify(x.slice(0, MAX_RATE_TEXT)) : String(x);
}
