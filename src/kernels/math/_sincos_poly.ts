/**
 * Private helper: the polynomial tail of libdevice's `__internal_accurate_sinf` (shared by sinf
 * and cosf, which passes quadrant + 1).
 *
 * @module
 */
import { fmaRnValue } from "../../hardware/mod.ts";

/** Coefficients as FP32 values (IR hex doubles; FP32 patterns in comments). */
const COS_C2 = 2.4279579520225525e-5; // 0x37CBAC00
const COS_C1 = -0.0013887860113754869; // 0xBAB607ED
const SIN_C2 = -0.00019574658654164523; // 0xB94D4153
const COS_C0 = 0.041666727513074875; // 0x3D2AAABB
const SIN_C1 = 0.00833270326256752; // 0x3C0885E4
const COS_CM = -0.4999999701976776; // 0xBEFFFFFF
const SIN_C0 = -0.16666662693023682; // 0xBE2AAAA8

/**
 * Evaluates the sin or cos polynomial on the reduced argument, in the IR's operation order:
 * `t2 = fl(t*t)`; `u = odd ? 1 : t`; `v = fma(t2, u, 0)`; `p = odd ? fma(COS_C2, t2, COS_C1) :
 * SIN_C2`; `p = fma(p, t2, odd ? COS_C0 : SIN_C1)`; `p = fma(p, t2, odd ? COS_CM : SIN_C0)`;
 * `z = fma(p, v, u)`; if `i & 2`, `z = fma(z, -1, 0)`.
 *
 * @param t reduced argument, an FP32 value
 * @param i quadrant (sinf) or quadrant + 1 (cosf), an int32
 * @returns the FP32 value
 */
export function _sinCosPoly(t: number, i: number): number {
  const t2 = Math.fround(t * t); // mul.rn.f32: the float64 product is exact
  const odd = (i & 1) !== 0;
  const u = odd ? 1 : t;
  const v = fmaRnValue(t2, u, 0);
  let p = odd ? fmaRnValue(COS_C2, t2, COS_C1) : SIN_C2;
  p = fmaRnValue(p, t2, odd ? COS_C0 : SIN_C1);
  p = fmaRnValue(p, t2, odd ? COS_CM : SIN_C0);
  const z = fmaRnValue(p, v, u);
  return (i & 2) !== 0 ? fmaRnValue(z, -1, 0) : z;
}
