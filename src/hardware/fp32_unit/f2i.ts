/**
 * `f2i`: FP32 to signed 32-bit integer conversion, the PTX `cvt.{rni,rzi,rmi,rpi}.s32.f32`.
 *
 * @module
 */
import type { RoundingMode } from "../../numerics/mod.ts";
import { flushSubnormal } from "./f32_options.ts";

const _f32 = new Float32Array(1);
const _u32 = new Uint32Array(_f32.buffer);

/** Options of {@link f2i}. */
export interface F2iOptions {
  /** Integer rounding: `rne` (`.rni`), `rz` (`.rzi`), `rd` (`.rmi`), `ru` (`.rpi`); default `"rne"`. */
  readonly mode?: RoundingMode;
  /** `.ftz`: a subnormal input is read as zero (it rounds to 0 either way, except for ru/rd). */
  readonly ftz?: boolean;
}

/**
 * Converts an FP32 pattern to an int32, saturating as PTX `cvt` to an integer type does: values
 * beyond the int32 range clamp to -2^31 or 2^31 - 1, NaN gives 0 (PTX ISA, `cvt`: "saturation is
 * the default for float-to-integer conversions; NaN converts to 0").
 *
 * @param bits FP32 pattern
 * @param options integer rounding `mode` and `ftz`
 * @returns the integer, in [-2^31, 2^31 - 1]
 * @example
 * ```ts
 * import { f2i } from "./f2i.ts";
 * if (f2i(0x40200000) !== 2 || f2i(0x40600000) !== 4) throw new Error(); // 2.5 -> 2, 3.5 -> 4
 * if (f2i(0xc0200000, { mode: "rd" }) !== -3 || f2i(0x7fffffff) !== 0) throw new Error();
 * if (f2i(0x4f000000) !== 2147483647) throw new Error(); // 2^31 saturates
 * ```
 */
export function f2i(bits: number, options: F2iOptions = {}): number {
  _u32[0] = options.ftz === true ? flushSubnormal(bits) : bits;
  return f2iValue(_f32[0] as number, options.mode ?? "rne");
}

/**
 * {@link f2i} on an FP32 value held in a number (no `.ftz`), for the libdevice recipes' hot paths.
 *
 * @param x FP32 value
 * @param mode integer rounding
 * @returns the integer
 * @example
 * ```ts
 * import { f2iValue } from "./f2i.ts";
 * if (f2iValue(2.5, "rne") !== 2 || f2iValue(-2.5, "rd") !== -3 || f2iValue(NaN, "rz") !== 0) {
 *   throw new Error();
 * }
 * ```
 */
export function f2iValue(x: number, mode: RoundingMode): number {
  if (x !== x) return 0;
  let r: number;
  if (mode === "rz") r = Math.trunc(x);
  else if (mode === "rd") r = Math.floor(x);
  else if (mode === "ru") r = Math.ceil(x);
  else {
    r = Math.floor(x);
    const d = x - r; // exact: x has 24 significant bits and r shares its leading bits
    if (d > 0.5 || (d === 0.5 && r % 2 !== 0)) r += 1;
  }
  if (r >= 2147483647) return 2147483647;
  if (r <= -2147483648) return -2147483648;
  return r | 0;
}
