/**
 * Private helpers of the scalar operations: the NaN policy and IEEE's sign of an exact zero sum.
 *
 * @module
 */
import { decode, type Decoded } from "./decode.ts";
import type { FloatFormat } from "./format.ts";
import type { ScalarOptions } from "./scalar_options.ts";

/** A decoded operand that is not a NaN. */
export type _Operand = Exclude<Decoded, { kind: "nan" }>;

/**
 * Decodes an operation's operands (subnormals read as zeros under `daz`).
 *
 * @param format the operands' format
 * @param patterns the operand patterns
 * @param options `daz`
 * @returns the decoded operands, or undefined when any of them is a NaN
 * @throws {RangeError} when a pattern is not a pattern of `format`
 * @example
 * ```ts
 * import { _operands } from "./_scalar_rules.ts";
 * import { FP32 } from "./format.ts";
 * if (_operands(FP32, [0x3f800000, 0x7fc00000], {}) !== undefined) throw new Error();
 * if (_operands(FP32, [1], { daz: true })?.[0]?.kind !== "zero") throw new Error();
 * ```
 */
export function _operands(
  format: FloatFormat,
  patterns: readonly number[],
  options: ScalarOptions,
): _Operand[] | undefined {
  const daz = { daz: options.daz === true };
  const out: _Operand[] = [];
  for (const bits of patterns) {
    const d = decode(format, bits, daz);
    if (d.kind === "nan") return undefined;
    out.push(d);
  }
  return out;
}

/**
 * The NaN pattern an operation returns under the given options.
 *
 * @param format result format
 * @param options the operation's options (`nan` overrides the canonical NaN)
 * @returns the NaN pattern
 * @example
 * ```ts
 * import { _nanResult } from "./_scalar_rules.ts";
 * import { FP32 } from "./format.ts";
 * if (_nanResult(FP32, {}) !== 0x7fffffff || _nanResult(FP32, { nan: 0x7fc00000 }) !== 0x7fc00000) {
 *   throw new Error();
 * }
 * ```
 */
export function _nanResult(format: FloatFormat, options: ScalarOptions): number {
  return options.nan ?? format.canonicalNan;
}

/**
 * Sign of an exact zero sum `x + y` (IEEE 754-2019 §6.3): the operands' common sign when both
 * are zeros of one sign, otherwise +0, except -0 when rounding toward -infinity.
 *
 * @param signs the signs of the two addends and whether both addends are zeros
 * @param options rounding direction
 * @returns 1 for -0
 * @example
 * ```ts
 * import { _zeroSumSign } from "./_scalar_rules.ts";
 * if (_zeroSumSign({ x: 1, y: 1, bothZero: true }, {}) !== 1) throw new Error(); // -0 + -0
 * if (_zeroSumSign({ x: 0, y: 1, bothZero: false }, { mode: "rd" }) !== 1) throw new Error();
 * ```
 */
export function _zeroSumSign(
  signs: { readonly x: 0 | 1; readonly y: 0 | 1; readonly bothZero: boolean },
  options: ScalarOptions,
): 0 | 1 {
  if (signs.bothZero && signs.x === signs.y) return signs.x;
  return options.mode === "rd" ? 1 : 0;
}
