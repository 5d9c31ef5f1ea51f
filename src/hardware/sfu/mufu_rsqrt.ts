/**
 * `mufuRsqrt`: MUFU.RSQ (`rsqrt.approx.ftz.f32`) under the Tesla lookup-table model.
 *
 * @module
 */
import { FP32 } from "../../numerics/mod.ts";
import { sfuSquare } from "./sfu_square.ts";
import type { SfuTables } from "./sfu_tables.ts";

/**
 * MUFU.RSQ on an FP32 bit pattern, per sfu_tesla_model.md §1 (envytools `sfu_rsqrt`).
 * With u = e_in − 127: index = (u mod 2) ‖ mantissa bits 22..17 (7 bits; rows 64..127 serve
 * x in [2,4)), low part `x` = mantissa bits 16..0;
 * `r = (A·2^14 + B·x + 4·C·sq(x) + 0x7fff) >> 16` is the 24-bit output significand;
 * biased exponent out = 126 − ⌊u/2⌋. An exact power of 4 (even u, zero mantissa) bypasses the
 * table and gives the exact result.
 *
 * Specials (envytools G80 behaviour, **unverified on modern GPUs**, spec §6): subnormal inputs
 * flush to zero; +0 gives +Inf and −0 (or a negative subnormal) gives −Inf; any other negative
 * input, −Inf included, gives 0x7fffffff; +Inf gives +0; NaN gives 0x7fffffff. Outputs are
 * always normal (the widest input range maps into [2^−64, 2^64]), so there is nothing to flush.
 *
 * Exactness: |A·2^14| < 2^40, |B·x| < 2^34, |4·C·sq| < 2^27: the sum is an integer below 2^41,
 * exact in float64, and `Math.floor(sum / 2^16)` is the exact arithmetic shift.
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @param tables decoded ROM tables (uses `tables.rsqrt`)
 * @returns FP32 bit pattern as an unsigned 32-bit number
 * @example
 * ```ts
 * import { mufuRsqrt } from "./mufu_rsqrt.ts";
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * const tables = decodeSfuTables(
 *   Deno.readFileSync(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
 * );
 * // One of the 8 inputs the model puts 2 ulp below the correctly rounded 0x3f7e05b8.
 * if (mufuRsqrt(0x3f820036, tables) !== 0x3f7e05b6) throw new Error();
 * if (mufuRsqrt(0x40800000, tables) !== 0x3f000000) throw new Error(); // 1/sqrt(4) = 0.5
 * ```
 */
export function mufuRsqrt(x: number, tables: SfuTables): number {
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  if (e === 0) return (x & 0x80000000) !== 0 ? 0xff800000 : 0x7f800000;
  if ((x & 0x80000000) !== 0) return FP32.canonicalNan;
  if (e === 255) return m === 0 ? 0 : FP32.canonicalNan;
  const u = e - 127;
  const f = m | ((u & 1) << 23);
  let eo = 126 - (u >> 1);
  if (f === 0) return (eo + 1) << 23;
  const t = tables.rsqrt;
  const row = (f >>> 17) * 3;
  const lo = f & 0x1ffff;
  const sum = (t[row] as number) * 16384 + (t[row + 1] as number) * lo +
    4 * (t[row + 2] as number) * sfuSquare(lo) + 0x7fff;
  let frac = Math.floor(sum / 65536) - 0x800000;
  if (frac >= 0x800000) {
    frac -= 0x800000;
    eo += 1;
  }
  return ((eo << 23) | frac) >>> 0;
}

/**
 * {@link mufuRsqrt} over an array.
 *
 * @param xs FP32 bit patterns
 * @param tables decoded ROM tables
 * @returns a new array of results, same length
 * @example
 * ```ts
 * import { mufuRsqrtBatch } from "./mufu_rsqrt.ts";
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * const tables = decodeSfuTables(
 *   Deno.readFileSync(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
 * );
 * const out = mufuRsqrtBatch(new Uint32Array([0x3f800000, 0xbf800000]), tables);
 * if (out[0] !== 0x3f800000 || out[1] !== 0x7fffffff) throw new Error();
 * ```
 */
export function mufuRsqrtBatch(xs: Uint32Array, tables: SfuTables): Uint32Array {
  const out = new Uint32Array(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = mufuRsqrt(xs[i] as number, tables);
  return out;
}
