/**
 * The row maximum of the block softmax kernels (private to the softmax folder).
 *
 * @module
 */
import { f32FromBits } from "../../numerics/mod.ts";
import { cudaExpf, type Mufu } from "../math/mod.ts";

/** `-FLT_MAX`, the identity the kernels start from (`numeric_limits<float>::lowest()`). */
const LOWEST = 0xff7fffff;

/**
 * The maximum as the kernels compute it: threads fold with `fmaxf` (NaN operands dropped) from
 * -FLT_MAX, the block tree keeps `a < b ? b : a`; on non-NaN values both are exact, so only the
 * value set matters, not the order. A row of NaN and -inf gives -FLT_MAX (then every output is
 * NaN, as on the GPU: the sum is 0).
 *
 * One thing does depend on the order: the sign of a zero maximum when the row holds both +0 and
 * -0 (`fmaxf` and the ternary treat the zeros as equal). It reaches the output only through
 * `expf(-0 - (+0))` versus `expf(-0 - (-0))`, so such a row is refused only when `mufu` gives
 * `expf(-0) != expf(+0)`.
 *
 * @param row fp32 patterns of one row
 * @param mufu the MUFU model of `expf`
 * @param kernel kernel name for the error message
 * @returns the fp32 pattern of the maximum
 * @throws {RangeError} when the sign of a zero maximum is unpinned and matters
 */
export function _rowMax(row: Uint32Array, mufu: Mufu, kernel: string): number {
  let m = f32FromBits(LOWEST);
  let bits = LOWEST;
  let posZero = false;
  let negZero = false;
  for (let i = 0; i < row.length; i++) {
    const v = f32FromBits(row[i]!);
    if (v !== v) continue;
    if (v === 0) {
      if (row[i] === 0) posZero = true;
      else negZero = true;
    }
    if (v > m) {
      m = v;
      bits = row[i]!;
    }
  }
  if (m !== 0) return bits;
  if (posZero && negZero && cudaExpf(0x80000000, mufu) !== cudaExpf(0, mufu)) {
    throw new RangeError(
      `Cannot run ${kernel}: the row's maximum is a zero of unpinned sign and expf(-0) != expf(+0)`,
    );
  }
  return posZero ? 0 : 0x80000000;
}
