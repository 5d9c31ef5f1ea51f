/**
 * `mufuLg2`: MUFU.LG2 (`lg2.approx.ftz.f32`) under the Tesla lookup-table model.
 *
 * @module
 */
import { FP32 } from "../../numerics/mod.ts";
import { sfuSquare } from "./sfu_square.ts";
import type { SfuTables } from "./sfu_tables.ts";

/**
 * MUFU.LG2 on an FP32 bit pattern, per the G80 algorithm envytools documents (`nvhw/sfu.c`,
 * `sfu_lg2`, MIT): with e the biased exponent and f the 23-bit fraction, index = f bits 22..17,
 * low part `x` = f bits 16..0, `res = (A·2^12 + B·x + 2·C·sq(x) + 0x3345) >> 2` (arithmetic
 * shift) is log2 of the mantissa in units of 2^−36; then `res += (e − 127)·2^36`. A negative
 * `res` becomes sign 1 and its one's complement `−res − 1`; the magnitude is normalised until
 * bit 42 is set (starting from biased exponent 133) and its top 24 bits are kept by
 * **truncation**. The input 1.0 bypasses the table (`res = 0`, giving +0).
 *
 * Not measured on any modern GPU (status `model-only`, see `sfu_tesla_v1.ts`): envytools carries
 * another revision of `sfu_lg2` that rounds the kept bits to nearest instead of truncating;
 * which one, if either, a current GPU implements is unknown.
 *
 * Specials (envytools/G80): a zero or subnormal input (either sign) gives −Inf 0xff800000; any
 * other negative input, −Inf included, and NaN give 0x7fffffff; +Inf gives +Inf.
 *
 * Exactness: |A·2^12| < 2^38, |B·x| < 2^33, |2·C·sq| < 2^26, so the table sum is an integer below
 * 2^39; adding (e − 127)·2^36 keeps it below 2^43 in magnitude. Every step is an integer below
 * 2^53, exact in float64, and `Math.floor(v / 2^k)` is the exact arithmetic shift.
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @param tables decoded ROM tables (uses `tables.lg2`)
 * @returns FP32 bit pattern as an unsigned 32-bit number
 * @example
 * ```ts
 * import { mufuLg2 } from "./mufu_lg2.ts";
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * const tables = decodeSfuTables(
 *   Deno.readFileSync(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
 * );
 * if (mufuLg2(0x40000000, tables) !== 0x3f800000) throw new Error(); // log2(2) = 1
 * // log2(0.5): the one's complement makes it 2 ulp short of -1 (0xbf800000).
 * if (mufuLg2(0x3f000000, tables) !== 0xbf7ffffe) throw new Error();
 * if (mufuLg2(0x3f800000, tables) !== 0) throw new Error(); // log2(1) = +0
 * ```
 */
export function mufuLg2(x: number, tables: SfuTables): number {
  const e = (x >>> 23) & 0xff;
  const f = x & 0x7fffff;
  if (e === 0) return 0xff800000;
  if ((x & 0x80000000) !== 0) return FP32.canonicalNan;
  if (e === 255) return f === 0 ? 0x7f800000 : FP32.canonicalNan;
  let res = 0;
  if (f !== 0 || e !== 127) {
    const t = tables.lg2;
    const row = (f >>> 17) * 3;
    const lo = f & 0x1ffff;
    const sum = (t[row] as number) * 4096 + (t[row + 1] as number) * lo +
      2 * (t[row + 2] as number) * sfuSquare(lo) + 0x3345;
    res = Math.floor(sum / 4);
  }
  res += (e - 127) * 2 ** 36;
  let sign = 0;
  if (res < 0) {
    sign = 0x80000000;
    res = -res - 1; // one's complement of a two's complement integer
  }
  if (res === 0) return sign >>> 0;
  let exp = 127 + 6;
  while (res < 2 ** 42) {
    res *= 2;
    exp--;
  }
  const frac = Math.floor(res / 2 ** 19) - 0x800000;
  return (sign | (exp << 23) | frac) >>> 0;
}
