/**
 * `cudaTanhf`: CUDA's `tanhf` (libdevice `__nv_tanhf`), bit for bit given a MUFU model.
 *
 * @module
 */
import { fmaRnValue, isNanF32 } from "../../hardware/mod.ts";
import type { Mufu } from "./mufu.ts";
import { bitsFromF32 as _bits, f32FromBits as _value, FP32 } from "../../numerics/mod.ts";

const TWO_L2E = 2.885390043258667; // 0x4038AA3B, 2 * log2(e)
const SATURATE_FROM = 9.010913848876953; // 0x41102CB4: tanh rounds to 1 above
const POLY_BELOW = 0.6000000238418579; // 0x3F19999A
const Q = [
  0.01573968306183815, // 0x3C80F082
  -0.05230396240949631, // 0xBD563CAE
  0.13315297663211823, // 0x3E085941
  -0.33332768082618713, // 0xBEAAA9ED
] as const;

/**
 * tanh(x) as `__nv_tanhf` computes it. For |x| >= 0.6: `e = ex2.approx.ftz(fl(|x| * 2*log2 e))`,
 * `r = rcp.approx.ftz(fl(1 + e))` (inline asm in the IR), `s = fma(r, -2, 1)`, 1 when
 * |x| >= 9.0109, with the sign of x copied on. Below 0.6: `x2 = fl(x*x)`, a Horner chain
 * `fma(fma(fma(fma(Q0, x2, Q1), x2, Q2), x2, Q3), x2, 0)` then `fma(p, x, x)`. The FTZ build only
 * adds `.ftz` to the FMAs and `fabs`; both MUFU calls are `.ftz` in either build.
 *
 * @param bits FP32 pattern of x
 * @param mufu the MUFU model (`ex2` and `rcp` are used)
 * @returns FP32 pattern of tanhf(x); NaN results are 0x7FFFFFFF
 * @example
 * ```ts
 * import { cudaTanhf } from "./cuda_tanhf.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * const ieee = createSfu({ mode: "ieee", ftz: true });
 * if (cudaTanhf(0x41200000, ieee) !== 0x3f800000 || cudaTanhf(0x80000000, ieee) !== 0x80000000) {
 *   throw new Error(); // tanh(10) = 1, tanh(-0) = -0
 * }
 * ```
 */
export function cudaTanhf(bits: number, mufu: Mufu): number {
  const a = _value(bits);
  const abs = Math.abs(a);
  let r: number;
  if (abs >= POLY_BELOW) {
    const e = _value(mufu.ex2(_bits(Math.fround(abs * TWO_L2E))));
    const rcp = _value(mufu.rcp(_bits(Math.fround(1 + e))));
    const s = abs >= SATURATE_FROM ? 1 : fmaRnValue(rcp, -2, 1);
    r = (bits & 0x80000000) !== 0 ? -Math.abs(s) : Math.abs(s); // llvm.copysign
  } else {
    const x2 = Math.fround(a * a);
    let p = fmaRnValue(Q[0], x2, Q[1]);
    p = fmaRnValue(p, x2, Q[2]);
    p = fmaRnValue(p, x2, Q[3]);
    p = fmaRnValue(p, x2, 0);
    r = fmaRnValue(p, a, a);
  }
  const out = _bits(r);
  return isNanF32(out) ? FP32.canonicalNan : out;
}
