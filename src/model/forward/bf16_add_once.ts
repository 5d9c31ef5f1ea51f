/**
 * BF16 + BF16 rounded once (the exact sum to nearest-even BF16), as CUDA's
 * `atomicAdd(__nv_bfloat16*)` computes it (spec `stack_pytorch_hf.md` §1.7: HF's MoE
 * `index_add_` on BF16). Element-wise adds elsewhere are `bf16(fl32(a + b))`. For two BF16
 * operands both give the same bits: a sum that can round to a BF16 tie has its smaller operand
 * within 16 binades of the larger one, so the exact sum fits FP32 (tested on random pairs). The
 * operation is kept apart because it is what `index_add_` is defined to do.
 *
 * @module
 */
import { bitsFromF32, f32FromBits } from "../../numerics/mod.ts";

/**
 * Adds two BF16 patterns with one rounding.
 *
 * Exactness: the float64 sum of two BF16 values (8-bit significands) is exact whenever their
 * exponents differ by at most 44; beyond that the smaller is under 2^-44 of the larger, so both
 * the float64 sum and the exact sum round to the larger operand in BF16. The float64 value is
 * then rounded to BF16 by scaling to units of the BF16 ulp (a power of two: exact), rounding
 * to nearest-even on an integer-plus-fraction split that is exact in float64, and scaling back.
 *
 * @param a BF16 pattern
 * @param b BF16 pattern
 * @returns BF16 pattern of RNE(a + b) (NaN -> 0x7fc0)
 * @example
 * ```ts
 * import { addBf16Once } from "./bf16_add_once.ts";
 * if (addBf16Once(0x3f80, 0x3f80) !== 0x4000) throw new Error(); // 1 + 1 = 2
 * // 256 + 1 = 257 is a tie between 256 and 258 (BF16 step 2 there): nearest even, 256.
 * if (addBf16Once(0x4380, 0x3f80) !== 0x4380) throw new Error();
 * ```
 */
export function addBf16Once(a: number, b: number): number {
  const x = f32FromBits((a << 16) >>> 0);
  const y = f32FromBits((b << 16) >>> 0);
  const s = x + y;
  if (Number.isNaN(s)) return 0x7fc0;
  if (s === 0) return (bitsFromF32(s) >>> 16) & 0xffff; // keeps IEEE's zero sign (-0 + -0 = -0)
  if (!Number.isFinite(s)) return s > 0 ? 0x7f80 : 0xff80;
  const mag = Math.abs(s);
  const e = Math.max(Math.floor(Math.log2(mag)), -126);
  // Math.log2 may be off by one near powers of two: fix e so that 2^e <= mag < 2^(e+1).
  let ee = e;
  if (ee > -126 && 2 ** ee > mag) ee--;
  else if (2 ** (ee + 1) <= mag) ee++;
  const ulp = 2 ** (Math.max(ee, -126) - 7);
  const q = mag / ulp;
  let n = Math.floor(q);
  const frac = q - n;
  if (frac > 0.5 || (frac === 0.5 && n % 2 === 1)) n++;
  const r = n * ulp;
  if (r >= 2 ** 128) return s > 0 ? 0x7f80 : 0xff80;
  return ((bitsFromF32(s > 0 ? r : -r) >>> 16) & 0xffff);
}
