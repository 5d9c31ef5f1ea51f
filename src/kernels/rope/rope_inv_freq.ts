/**
 * RoPE inverse frequencies as HF computes them on the host at model load (spec
 * `stack_pytorch_hf.md` §1.2): `t = float32(2i) / d` (exact), `p = powf(theta, t)` on the CPU in
 * float32, `inv = 1 / p` with an IEEE reciprocal.
 *
 * Host math assumed: `powf` returns the correctly rounded float32 of theta^t. The value is
 * computed in float64 (`Math.pow`, error below 1 ulp of float64) and rounded once to float32;
 * that equals the correctly rounded result unless theta^t lies within 2^-40 (relative) of a
 * float32 rounding boundary, which is checked: such an entry is refused, not guessed. Vectorised
 * Sleef or glibc `powf` builds may differ in the last bit from the correctly rounded value, which
 * is why the spec recommends recording the model's 64 `inv_freq` patterns; pass those to
 * `ropeTables` whenever they are available.
 *
 * @module
 */
import { bitsFromF32 } from "../../numerics/mod.ts";
import { divF32 } from "../../hardware/mod.ts";

/**
 * Computes `inv_freq` for a head dimension.
 *
 * @param headDim head dimension d (even)
 * @param options `theta`: RoPE base (e.g. 1,000,000 for Qwen3)
 * @returns d/2 fp32 patterns
 * @throws {RangeError} for an odd or non-positive d, or when an entry is too close to a float32
 *   rounding boundary for the correctly-rounded-powf assumption to decide it
 * @example
 * ```ts
 * import { ropeInvFreq } from "./rope_inv_freq.ts";
 * const f = ropeInvFreq(128, { theta: 1_000_000 });
 * if (f.length !== 64 || f[0] !== 0x3f800000) throw new Error(); // theta^0 = 1
 * ```
 */
export function ropeInvFreq(headDim: number, options: { theta: number }): Uint32Array {
  if (!Number.isInteger(headDim) || headDim < 2 || headDim % 2 !== 0) {
    throw new RangeError(
      `Cannot compute inv_freq: head dimension ${headDim} is not a positive even integer`,
    );
  }
  const theta = Math.fround(options.theta);
  const out = new Uint32Array(headDim / 2);
  for (let i = 0; i < out.length; i++) {
    const t = Math.fround(Math.fround(2 * i) / headDim); // exact: d is a power of two in practice
    const exact = Math.pow(theta, t);
    const p = Math.fround(exact);
    const ulp = _ulp32(p);
    const distance = Math.abs(Math.abs(exact - p) - ulp / 2); // distance to the rounding midpoint
    if (distance < Math.abs(exact) * 2 ** -40) {
      throw new RangeError(
        `Cannot compute inv_freq[${i}]: theta^t lies on a float32 rounding boundary`,
      );
    }
    out[i] = divF32(0x3f800000, bitsFromF32(p));
  }
  return out;
}

function _ulp32(x: number): number {
  const e = Math.floor(Math.log2(Math.abs(x)));
  return 2 ** (Math.max(e, -126) - 23);
}
