/**
 * `mufuRcp`: MUFU.RCP (`rcp.approx.ftz.f32`) under the Tesla lookup-table model.
 *
 * @module
 */
import { FP32 } from "../../numerics/mod.ts";
import { sfuSquare } from "./sfu_square.ts";
import type { SfuTables } from "./sfu_tables.ts";

/**
 * MUFU.RCP on an FP32 bit pattern, per sfu_tesla_model.md §1 (envytools `sfu_rcp`):
 * index = mantissa bits 22..16 (7 bits), low part `x` = bits 15..0;
 * `r = (A·2^13 + B·x + C·sq(2x) + 0x47e7) >> 15` is the 24-bit output significand in
 * [2^23, 2^24] (2^24 carries into the exponent); biased exponent out = 253 − e_in; sign kept.
 *
 * Specials (envytools G80 behaviour, **unverified on modern GPUs**, spec §6): subnormal inputs
 * flush to zero, so ±0 and ±subnormal give ±Inf; ±Inf gives ±0; NaN gives 0x7fffffff; a result
 * below 2^−126 after the carry flushes to a zero of the input's sign.
 *
 * Exactness: |A·2^13| < 2^39, |B·x| < 2^33, |C·sq| < 2^25, so the sum is an integer below 2^40,
 * exact in float64; `Math.floor(sum / 2^15)` divides by a power of two (exact) and floors (exact),
 * which equals the arithmetic shift.
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @param tables decoded ROM tables (uses `tables.rcp`)
 * @returns FP32 bit pattern as an unsigned 32-bit number
 * @example
 * ```ts
 * import { mufuRcp } from "./mufu_rcp.ts";
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * const tables = decodeSfuTables(
 *   Deno.readFileSync(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
 * );
 * // Probe from mufu_probes.json: model 0x3f10ee4d (correctly rounded is ...4c).
 * if (mufuRcp(0x3fe21812, tables) !== 0x3f10ee4d) throw new Error();
 * if (mufuRcp(0x3f800000, tables) !== 0x3f800000) throw new Error(); // 1/1 = 1
 * ```
 */
export function mufuRcp(x: number, tables: SfuTables): number {
  const sign = x & 0x80000000;
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e === 0) return (sign | 0x7f800000) >>> 0;
  if (e === 255) return m === 0 ? sign >>> 0 : FP32.canonicalNan;
  const t = tables.rcp;
  const row = (m >>> 16) * 3;
  const lo = m & 0xffff;
  const sum = (t[row] as number) * 8192 + (t[row + 1] as number) * lo +
    (t[row + 2] as number) * sfuSquare(lo << 1) + 0x47e7;
  const r = Math.floor(sum / 32768);
  let eo = 253 - e;
  let frac = r - 0x800000;
  if (frac >= 0x800000) {
    frac -= 0x800000;
    eo += 1;
  }
  if (eo <= 0) return sign >>> 0;
  return (sign | (eo << 23) | frac) >>> 0;
}

/**
 * {@link mufuRcp} over an array.
 *
 * @param xs FP32 bit patterns
 * @param tables decoded ROM tables
 * @returns a new array of results, same length
 * @example
 * ```ts
 * import { mufuRcpBatch } from "./mufu_rcp.ts";
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * const tables = decodeSfuTables(
 *   Deno.readFileSync(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
 * );
 * const out = mufuRcpBatch(new Uint32Array([0x40000000, 0x7f800000]), tables);
 * if (out[0] !== 0x3f000000 || out[1] !== 0) throw new Error();
 * ```
 */
export function mufuRcpBatch(xs: Uint32Array, tables: SfuTables): Uint32Array {
  const out = new Uint32Array(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = mufuRcp(xs[i] as number, tables);
  return out;
}
