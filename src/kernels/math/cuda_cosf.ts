/**
 * `cudaCosf`: CUDA's accurate `cosf` (libdevice `__nv_cosf`), bit for bit.
 *
 * @module
 */
import { _quadrant, _trigReduce } from "./trig_reduce.ts";
import { _sinCosPoly } from "./_sincos_poly.ts";
import { bitsFromF32 as _bits } from "../../numerics/mod.ts";

/**
 * cos(x) as `__nv_cosf` in libdevice.10.bc computes it (non-FTZ build, `__CUDA_FTZ` = 0):
 * argument reduction by `trigReduceF32` (Cody-Waite below 105615, Payne-Hanek above), then the
 * shared polynomial with quadrant `_quadrant + 1`. No MUFU is involved; every step is an IEEE FMUL or a
 * single-rounding FFMA (the IR carries no `contract`/`afn` flags). The FTZ build only adds
 * `.ftz` to the same operations. NaN and infinities give the canonical NaN 0x7FFFFFFF.
 *
 * @param bits FP32 pattern of x
 * @returns FP32 pattern of cosf(x)
 * @example
 * ```ts
 * import { cudaCosf } from "./cuda_cosf.ts";
 * if (cudaCosf(0x3f800000) !== 0x3f0a5140) throw new Error(); // cosf(1)
 * if (cudaCosf(0x7f800000) !== 0x7fffffff) throw new Error();
 * ```
 */
export function cudaCosf(bits: number): number {
  const t = _trigReduce(bits);
  return _bits(_sinCosPoly(t, _quadrant + 1));
}
