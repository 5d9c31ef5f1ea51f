/**
 * `cudaSinf`: CUDA's accurate `sinf` (libdevice `__nv_sinf`), bit for bit.
 *
 * @module
 */
import { _quadrant, _trigReduce } from "./trig_reduce.ts";
import { _sinCosPoly } from "./_sincos_poly.ts";
import { bitsFromF32 as _bits } from "../../numerics/mod.ts";

/**
 * sin(x) as `__nv_sinf` in libdevice.10.bc computes it (non-FTZ build, `__CUDA_FTZ` = 0):
 * argument reduction by `trigReduceF32` (Cody-Waite below 105615, Payne-Hanek above), then the
 * shared polynomial with quadrant `_quadrant`. No MUFU is involved; every step is an IEEE FMUL or a
 * single-rounding FFMA (the IR carries no `contract`/`afn` flags). The FTZ build only adds
 * `.ftz` to the same operations. NaN and infinities give the canonical NaN 0x7FFFFFFF.
 *
 * @param bits FP32 pattern of x
 * @returns FP32 pattern of sinf(x)
 * @example
 * ```ts
 * import { cudaSinf } from "./cuda_sinf.ts";
 * if (cudaSinf(0x3f800000) !== 0x3f576aa5) throw new Error(); // sinf(1), as the oracle gives it
 * if (cudaSinf(0x7f800000) !== 0x7fffffff) throw new Error();
 * ```
 */
export function cudaSinf(bits: number): number {
  const t = _trigReduce(bits);
  return _bits(_sinCosPoly(t, _quadrant));
}
