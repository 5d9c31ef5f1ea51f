/**
 * Options shared by the format-generic scalar operations (`floatAdd`, `floatMul`, `floatFma`,
 * `floatDiv`, `floatSqrt`): rounding, subnormal flushing and NaN policy as parameters, never
 * hidden globals.
 *
 * @module
 */
import type { RoundPackOptions } from "./round_pack.ts";

/**
 * Options of the scalar operations: `roundPack`'s rounding direction, result flushing (`ftz`)
 * and overflow rule, plus the input side and the NaN policy.
 */
export interface ScalarOptions extends RoundPackOptions {
  /** Read subnormal operands as zeros of the same sign ("denormals are zero"); default false. */
  readonly daz?: boolean;
  /**
   * Pattern returned for every NaN result (NaN operand or invalid operation); default the
   * format's canonical NaN (NVIDIA's, e.g. 0x7FFFFFFF for fp32): payloads are not propagated.
   */
  readonly nan?: number;
}
