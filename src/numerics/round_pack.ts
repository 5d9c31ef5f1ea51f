/**
 * `roundPack`: the single place where an exact value becomes a stored pattern.
 *
 * @module
 */
import type { FloatFormat } from "./format.ts";
import { bitLength } from "./bit_length.ts";

/** Rounding directions: nearest-even, toward zero, toward +inf, toward -inf. */
export type RoundingMode = "rne" | "rz" | "ru" | "rd";

/**
 * What happens to a finite result beyond the largest finite value:
 * - `ieee`: IEEE 754 (nearest goes to infinity; toward-zero to the largest finite value; e4m3, which
 *   has no infinity, gives NaN as OCP's non-saturating conversion does);
 * - `saturate`: clamp to the largest finite value (PTX `.satfinite`);
 * - `infinity`: always infinity (NaN for e4m3), whatever the rounding direction. NVIDIA tensor
 *   cores behave this way for their round-toward-zero fp32 output (Khattak & Mikaitis,
 *   ExceptionalCasesTest case 1; MMA-Sim's output conversion).
 */
export type OverflowRule = "ieee" | "saturate" | "infinity";

/** Options of {@link roundPack}. */
export interface RoundPackOptions {
  /** Rounding direction; default `"rne"`. */
  readonly mode?: RoundingMode;
  /** Flush a result that is subnormal after rounding to a signed zero; default false. */
  readonly ftz?: boolean;
  /** Overflow rule; default `"ieee"`. */
  readonly overflow?: OverflowRule;
}

/** An exact non-negative magnitude `significand * 2^exponent`, plus a sticky flag. */
export interface ExactMagnitude {
  /** Sign of the value (1 = negative). */
  readonly sign: 0 | 1;
  /** Non-negative safe integer. */
  readonly significand: number;
  /** Exponent of the significand's least significant bit. */
  readonly exponent: number;
  /** True when non-zero bits exist strictly below `2^exponent` (the value is slightly larger). */
  readonly sticky?: boolean;
}

/**
 * Encodes a signed zero of a format.
 *
 * @param format target format
 * @param sign 1 for -0
 * @returns the stored pattern
 * @example
 * ```ts
 * import { packZero } from "./round_pack.ts";
 * import { BF16 } from "./format.ts";
 * if (packZero(BF16, 1) !== 0x8000) throw new Error();
 * ```
 */
export function packZero(format: FloatFormat, sign: 0 | 1): number {
  return sign ? 2 ** (format.storageBits - 1) : 0;
}

/**
 * Encodes ±infinity, or NaN for a format without infinities (e4m3).
 *
 * @param format target format
 * @param sign 1 for -infinity
 * @returns the stored pattern
 * @example
 * ```ts
 * import { packInfinity } from "./round_pack.ts";
 * import { FP32 } from "./format.ts";
 * if (packInfinity(FP32, 0) !== 0x7f800000) throw new Error();
 * ```
 */
export function packInfinity(format: FloatFormat, sign: 0 | 1): number {
  if (format.special === "e4m3fn") return packZero(format, sign) + format.canonicalNan;
  return packFields(format, { sign, biased: 2 ** format.expBits - 1, fraction: 0 });
}

/**
 * Assembles sign, biased exponent and fraction fields into a stored pattern.
 *
 * @param format target format
 * @param fields `sign` bit, `biased` exponent field, `fraction` field (without hidden bit)
 * @returns the stored pattern
 * @example
 * ```ts
 * import { packFields } from "./round_pack.ts";
 * import { FP16 } from "./format.ts";
 * if (packFields(FP16, { sign: 0, biased: 15, fraction: 0 }) !== 0x3c00) throw new Error(); // 1.0
 * ```
 */
export function packFields(
  format: FloatFormat,
  fields: { sign: 0 | 1; biased: number; fraction: number },
): number {
  const { sign, biased, fraction } = fields;
  const body = biased * 2 ** format.fracBits + fraction;
  return packZero(format, sign) + body * 2 ** format.containerShift;
}

/**
 * Rounds an exact magnitude to a format and encodes it.
 *
 * Works on integers only: the significand is split at the format's quantum (the larger of the
 * normal quantum and the subnormal quantum `2^(emin - fracBits)`), the discarded part is compared
 * with one half (plus the sticky flag) and the kept part is incremented according to `mode`.
 *
 * @param format target format
 * @param value exact magnitude (safe-integer significand), sign and sticky bit
 * @param options rounding direction, flush-to-zero and overflow rule
 * @returns the stored pattern
 * @throws {RangeError} when the significand is not a non-negative safe integer
 * @example
 * ```ts
 * import { roundPack } from "./round_pack.ts";
 * import { BF16 } from "./format.ts";
 * // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: nearest-even keeps 1.0 (0x3f80).
 * if (roundPack(BF16, { sign: 0, significand: 257, exponent: -8 }) !== 0x3f80) throw new Error();
 * ```
 */
export function roundPack(
  format: FloatFormat,
  value: ExactMagnitude,
  options: RoundPackOptions = {},
): number {
  const { sign, significand: sig, exponent } = value;
  if (!Number.isSafeInteger(sig) || sig < 0) {
    throw new RangeError(
      `Cannot round: significand must be a non-negative safe integer, got ${sig}`,
    );
  }
  const sticky = value.sticky === true;
  const mode = options.mode ?? "rne";
  if (sig === 0 && !sticky) return packZero(format, sign);
  const lead = sig === 0 ? exponent - 1 : exponent + bitLength(sig) - 1;
  const quantum = Math.max(lead - format.fracBits, format.emin - format.fracBits);
  const shift = quantum - exponent;
  let kept: number;
  let cmpHalf: number; // -1 below half, 0 exactly half, 1 above half; NaN when exact
  if (shift <= 0) {
    kept = sig * 2 ** -shift;
    cmpHalf = sticky ? -1 : NaN;
  } else if (shift > 54) {
    kept = 0;
    cmpHalf = -1; // sig < 2^53 <= half a quantum
  } else {
    const unit = 2 ** shift;
    kept = Math.floor(sig / unit);
    const rem = sig - kept * unit;
    const half = unit / 2;
    if (rem === 0 && !sticky) cmpHalf = NaN;
    else cmpHalf = rem < half ? -1 : rem > half ? 1 : sticky ? 1 : 0;
  }
  if (!Number.isNaN(cmpHalf) && _roundsUp(mode, sign, cmpHalf, kept)) kept += 1;
  return _encode(format, sign, kept, quantum, mode, options);
}

function _roundsUp(mode: RoundingMode, sign: 0 | 1, cmpHalf: number, kept: number): boolean {
  switch (mode) {
    case "rne":
      return cmpHalf > 0 || (cmpHalf === 0 && kept % 2 === 1);
    case "rz":
      return false;
    case "ru":
      return sign === 0;
    case "rd":
      return sign === 1;
  }
}

function _encode(
  format: FloatFormat,
  sign: 0 | 1,
  kept: number,
  quantum: number,
  mode: RoundingMode,
  options: RoundPackOptions,
): number {
  if (kept === 0) return packZero(format, sign);
  let sig = kept;
  let q = quantum;
  if (sig >= 2 ** (format.fracBits + 1)) {
    sig /= 2; // carry out of the significand: exact, the low bit is zero
    q += 1;
  }
  const hidden = 2 ** format.fracBits;
  if (sig < hidden) {
    if (options.ftz === true) return packZero(format, sign);
    return packFields(format, { sign, biased: 0, fraction: sig });
  }
  const e = q + format.fracBits;
  if (e > format.emax || (e === format.emax && sig > format.maxSignificand)) {
    return _overflow(format, sign, mode, options.overflow ?? "ieee");
  }
  return packFields(format, { sign, biased: e + format.bias, fraction: sig - hidden });
}

function _overflow(
  format: FloatFormat,
  sign: 0 | 1,
  mode: RoundingMode,
  rule: OverflowRule,
): number {
  const maxFinite = packFields(format, {
    sign,
    biased: format.emax + format.bias,
    fraction: format.maxSignificand - 2 ** format.fracBits,
  });
  if (rule === "saturate") return maxFinite;
  if (rule === "infinity") return packInfinity(format, sign);
  const toInfinity = mode === "rne" || (mode === "ru" && sign === 0) ||
    (mode === "rd" && sign === 1);
  return toInfinity ? packInfinity(format, sign) : maxFinite;
}
