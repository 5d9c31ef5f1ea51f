/**
 * `cudaExpf`: CUDA's accurate `expf` (libdevice `__nv_expf`), bit for bit given a MUFU model.
 *
 * @module
 */
import { divF32, f32Arith, fmaRnValue, isNanF32 } from "../../hardware/mod.ts";
import type { Mufu } from "./mufu.ts";
import { bitsFromF32 as _bits, f32FromBits as _value, FP32 } from "../../numerics/mod.ts";

/** `fma.rm.f32` (no `.ftz`), bound once. */
const _RM = f32Arith({ mode: "rd" });
const L2E_BITS = 0x3fb8aa3b; // log2(e) rounded to FP32
const L2E = _value(L2E_BITS);
const L2E_LO = _value(0x32a57060); // log2(e) - L2E
/** `fdiv float L2E, 252.0`: IEEE division (the IR has no `afn`/`arcp`). */
const L2E_OVER_252 = _value(divF32(L2E_BITS, 0x437c0000));
/** 0x4B400000 = 1.5 * 2^23 (12582912): `fl(fl(-126 + S) + 127)` and `fl(S + 127)`. */
const SHIFT_LO = 12582913;
const SHIFT_HI = 12583039;

/**
 * e^x as `__internal_accurate_expf` computes it: `t = sat(fma(x, L2E/252, 0.5))`,
 * `j = fma.rm(t, 252, 12582913)` (round toward -inf), `k = fl(j - 12583039)`,
 * `y = fma(x, L2E_LO, fma(x, L2E, -k))`, `scale = bits(j) << 23` (= 2^(n - 126) with
 * n = j - 12582912), result `fl(ex2.approx.ftz(y) * scale)`. Note `ex2.approx.ftz` is called
 * directly, without an `__nvvm_reflect` branch, so the FTZ build differs only in the FMAs' and
 * saturate's `.ftz`.
 *
 * @param bits FP32 pattern of x
 * @param mufu the MUFU model (`ex2` is used)
 * @returns FP32 pattern of expf(x); NaN results are 0x7FFFFFFF
 * @example
 * ```ts
 * import { cudaExpf } from "./cuda_expf.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * const ieee = createSfu({ mode: "ieee", ftz: true });
 * if (cudaExpf(0x00000000, ieee) !== 0x3f800000) throw new Error(); // e^0
 * if (cudaExpf(0xff800000, ieee) !== 0x00000000) throw new Error(); // e^-inf
 * ```
 */
export function cudaExpf(bits: number, mufu: Mufu): number {
  const { e, scale } = expfParts(bits, mufu);
  const r = _bits(Math.fround(_value(e) * _value(scale)));
  return isNanF32(r) ? FP32.canonicalNan : r;
}

/**
 * The two factors of libdevice `expf` before its final multiply: `e = EX2(d)` (MUFU) and the
 * power-of-two `scale`. Callers that add to `e * scale` may see the multiply fused into an FFMA
 * by ptxas (SiLU's `1 + expf(-x)`), so they need both.
 *
 * @param bits fp32 argument pattern
 * @param mufu MUFU implementation
 * @returns fp32 patterns of `e` and `scale`
 * @example
 * ```ts
 * import { expfParts } from "./cuda_expf.ts";
 * const mufu = { ex2: (x: number) => x === 0 ? 0x3f800000 : x, rcp: (x: number) => x, rsqrt: (x: number) => x };
 * const { scale } = expfParts(0, mufu);
 * if (scale !== 0x3f800000) throw new Error(scale.toString(16)); // exp(0): scale 2^0
 * ```
 */
export function expfParts(bits: number, mufu: Mufu): { e: number; scale: number } {
  const a = _value(bits);
  const u = fmaRnValue(a, L2E_OVER_252, 0.5);
  const t = u > 1 ? 1 : u > 0 ? u : 0; // saturate: NaN and values <= 0 give +0
  const j = _RM.fma(_bits(t), 0x437c0000, 0x4b400001); // SHIFT_LO = 12582913
  const k = Math.fround(_value(j) - SHIFT_HI);
  const y = fmaRnValue(a, L2E_LO, fmaRnValue(a, L2E, -k));
  return { e: mufu.ex2(_bits(y)), scale: (j << 23) >>> 0 };
}

/** Exposed for tests: the constants derived at load. */
export const _EXPF_CONSTANTS = Object.freeze({ L2E_OVER_252, SHIFT_LO, SHIFT_HI });
