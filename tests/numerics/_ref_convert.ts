/**
 * Test-only reference conversion between formats, built on the exact reference
 * (`_exact_reference.ts`), plus small helpers shared by the numerics tests.
 *
 * @module
 */
import { refDecode, refPick, refRound, type RefRoundOptions } from "./_exact_reference.ts";
import {
  allOnesNanPattern,
  indexPattern,
  infPattern,
  maxFiniteIndex,
  type RefFormat,
} from "./_ref_formats.ts";

/** Conversion options understood by the reference (same meaning as `ConvertOptions`). */
export interface RefConvertOptions extends RefRoundOptions {
  readonly daz?: boolean;
  readonly nan?: number;
}

/**
 * Converts a pattern between formats: zero keeps its sign, a NaN gives `options.nan` or the
 * target's `canonicalNan` (passed in, since it is a policy, not a property of the grid), an
 * infinity gives infinity (e4m3: NaN, or the largest finite value under `"saturate"`), and a
 * finite value is rounded by the reference. `daz` turns subnormal inputs into signed zeros.
 *
 * @param from source format
 * @param to target format
 * @param bits source pattern
 * @param options rounding options plus `daz`, `nan` and the target's canonical NaN
 * @returns the target pattern
 * @example
 * ```ts
 * import { refConvert } from "./_ref_convert.ts";
 * import { refFormat } from "./_ref_formats.ts";
 * const r = refConvert(refFormat("fp32"), refFormat("bf16"), 0x40490fdb, { canonicalNan: 0x7fff });
 * if (r !== 0x4049) throw new Error();
 * ```
 */
export function refConvert(
  from: RefFormat,
  to: RefFormat,
  bits: number,
  options: RefConvertOptions & { readonly canonicalNan: number },
): number {
  const v = refDecode(from, bits);
  if (v.kind === "nan") return options.nan ?? options.canonicalNan;
  if (v.kind === "inf") {
    if (!to.e4m3fn) return infPattern(to, v.sign);
    return options.overflow === "saturate"
      ? indexPattern(to, v.sign, maxFiniteIndex(to))
      : allOnesNanPattern(to, v.sign);
  }
  if (v.mag.num === 0n || (options.daz === true && v.sub)) return indexPattern(to, v.sign, 0);
  return refRound(to, v.sign, v.mag, options);
}

/** Re-export so tests can pick per mode from one bisection. */
export { refPick };

const _f32 = new Float32Array(1);
const _u32 = new Uint32Array(_f32.buffer);

/**
 * The fp32 pattern of a host number that is exactly representable in fp32.
 *
 * @param x a number representable in binary32 (checked)
 * @returns its 32-bit pattern
 * @throws {RangeError} when `x` is not exactly an fp32 value
 * @example
 * ```ts
 * import { f32Bits } from "./_ref_convert.ts";
 * if (f32Bits(1) !== 0x3f800000) throw new Error();
 * ```
 */
export function f32Bits(x: number): number {
  _f32[0] = x;
  if (_f32[0] !== x && !Number.isNaN(x)) {
    throw new RangeError(`Cannot encode fp32: ${x} is not exactly representable`);
  }
  return _u32[0] as number;
}

/**
 * Formats a pattern as fixed-width hex for failure messages.
 *
 * @param bits pattern
 * @param width storage bits
 * @returns e.g. `0x3f80`
 * @example
 * ```ts
 * import { hex } from "./_ref_convert.ts";
 * if (hex(0x7f, 8) !== "0x7f") throw new Error();
 * ```
 */
export function hex(bits: number, width: number): string {
  return `0x${bits.toString(16).padStart(width / 4, "0")}`;
}
