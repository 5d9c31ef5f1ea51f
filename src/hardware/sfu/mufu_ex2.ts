/**
 * `mufuEx2`: MUFU.EX2 (`ex2.approx.ftz.f32`) under the Tesla lookup-table model.
 *
 * @module
 */
import { PRE_EX2_NAN, preEx2 } from "./pre_ex2.ts";
import { sfuSquare } from "./sfu_square.ts";
import type { SfuTables } from "./sfu_tables.ts";

/**
 * MUFU.EX2 on an FP32 bit pattern: {@link preEx2} (7.23 truncation, hypothesis H1) then the
 * Tesla EX2 interpolator (sfu_tesla_model.md §1, envytools `sfu_ex2`). With n the integer part
 * and f the 23-bit fraction: x ≥ 0 gives 2^n · g(f); x < 0 with f ≠ 0 gives 2^(−n−1) · g(~f)
 * (one's complement, the systematic −2^−23 argument bias); x < 0 with f = 0 gives 2^−n.
 * g uses index = f bits 22..17, low part = bits 16..0 and
 * `r = (A·2^13 + B·x + C·sq(x) + 0x77e2) >> 15`, r·2^−23 ≈ 2^f, r in [2^23, 2^24].
 *
 * Specials (envytools/G80 via RRO, **unverified on modern GPUs**, spec §6): NaN gives
 * 0x7fffffff; +Inf and x ≥ 128 give +Inf; −Inf and x ≤ −128 give +0; ±0 and subnormals give
 * 1.0; results below 2^−126 flush to +0 (FTZ); a carry out of 2^127·(2 − ε) gives +Inf. Volta+
 * thresholds may differ slightly because MUFU.EX2 there reads FP32 directly.
 *
 * Exactness: |A·2^13| < 2^39, |B·x| < 2^32, |C·sq| < 2^25, so the sum is an integer below 2^40,
 * exact in float64, and `Math.floor(sum / 2^15)` is the exact arithmetic shift.
 *
 * @param x FP32 bit pattern (taken modulo 2^32)
 * @param tables decoded ROM tables (uses `tables.ex2`)
 * @returns FP32 bit pattern as an unsigned 32-bit number
 * @example
 * ```ts
 * import { mufuEx2 } from "./mufu_ex2.ts";
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * const tables = decodeSfuTables(
 *   Deno.readFileSync(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
 * );
 * // GB200 spot value (spec §4): ex2(-10.221991) = 0x3A5B7D5C; -0.5 gives ...f2, not ...f3.
 * if (mufuEx2(0xc1238d46, tables) !== 0x3a5b7d5c) throw new Error();
 * if (mufuEx2(0xbf000000, tables) !== 0x3f3504f2) throw new Error();
 * ```
 */
export function mufuEx2(x: number, tables: SfuTables): number {
  const p = preEx2(x);
  if ((p & 0x40000000) !== 0) {
    if ((p & 0x7fffffff) === PRE_EX2_NAN) return 0x7fffffff;
    return (p & 0x80000000) !== 0 ? 0 : 0x7f800000;
  }
  const n = (p >>> 23) & 0x7f;
  let f = p & 0x7fffff;
  let eo: number;
  if ((p & 0x80000000) === 0) eo = n;
  else if (f !== 0) {
    eo = -n - 1;
    f = ~f & 0x7fffff;
  } else eo = -n;
  eo += 127;
  const t = tables.ex2;
  const row = (f >>> 17) * 3;
  const lo = f & 0x1ffff;
  const sum = (t[row] as number) * 8192 + (t[row + 1] as number) * lo +
    (t[row + 2] as number) * sfuSquare(lo) + 0x77e2;
  let frac = Math.floor(sum / 32768) - 0x800000;
  if (frac >= 0x800000) {
    frac -= 0x800000;
    eo += 1;
  }
  if (eo <= 0) return 0;
  if (eo >= 255) return 0x7f800000;
  return ((eo << 23) | frac) >>> 0;
}

/**
 * {@link mufuEx2} over an array.
 *
 * @param xs FP32 bit patterns
 * @param tables decoded ROM tables
 * @returns a new array of results, same length
 * @example
 * ```ts
 * import { mufuEx2Batch } from "./mufu_ex2.ts";
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * const tables = decodeSfuTables(
 *   Deno.readFileSync(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url)),
 * );
 * const out = mufuEx2Batch(new Uint32Array([0x3f800000, 0xff800000]), tables);
 * if (out[0] !== 0x40000000 || out[1] !== 0) throw new Error(); // 2^1 = 2, 2^-inf = 0
 * ```
 */
export function mufuEx2Batch(xs: Uint32Array, tables: SfuTables): Uint32Array {
  const out = new Uint32Array(xs.length);
  for (let i = 0; i < xs.length; i++) out[i] = mufuEx2(xs[i] as number, tables);
  return out;
}
