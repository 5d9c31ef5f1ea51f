/**
 * RoPE inverse frequencies as HF computes them on the host at model load (spec
 * `stack_pytorch_hf.md` §1.2; HF `_compute_default_rope_parameters`): `t = float32(2i) / d` (one
 * IEEE float32 division), `p = base ** t` on the CPU in float32, `inv = 1 / p` (`reciprocal()`,
 * an IEEE division, then an exact `* 1.0`).
 *
 * Host assumption: x86-64 PyTorch whose CPU dispatch is AVX2 or AVX-512. `float ** tensor` runs
 * `pow_tensor_tensor_kernel` (`aten/src/ATen/native/cpu/PowKernel.cpp`) through `cpu_kernel_vec`,
 * whose `vectorized_loop` (`Loops.h`) takes the elements in blocks of two vectors (16 lanes under
 * AVX2, 32 under AVX-512) with `Vectorized<float>::pow` = SLEEF `Sleef_powf8_u10` /
 * `Sleef_powf16_u10`, which is not correctly rounded; `p` is {@link sleefPowfU10}, checked bit for
 * bit against the SLEEF library's own output (3.5.1 and 3.6, both builds; not measured on a GPU).
 * The elements after the last full block of 32 take the scalar `std::pow`, i.e. the host glibc
 * `powf` (under AVX-512, and under AVX2 past the last block of 16), which is not correctly rounded
 * either (glibc 2.36: 901 of 1,313,280 RoPE exponents of 10 bases and every even d up to 1024
 * differ from the correctly rounded value) and is not emulated: a head dimension that leaves such an element (other than
 * `theta^0 = 1`, exact in every libm) is refused, not guessed. Every head dimension that is a
 * multiple of 64 (the supported families' 64, 128, 256) is fully vectorised. A DEFAULT-capability
 * or aarch64 PyTorch build runs other code; pass the model's recorded `inv_freq` patterns to
 * `ropeTables` whenever they are available.
 *
 * @module
 */
import { bitsFromF32 } from "../../numerics/mod.ts";
import { divF32 } from "../../hardware/mod.ts";
import { sleefPowfU10 } from "../math/mod.ts";

/** Elements per `vectorized_loop` step under AVX-512 (two 16-lane vectors); AVX2's 16 divides it. */
const BLOCK = 32;

/**
 * Computes `inv_freq` for a head dimension.
 *
 * @param headDim head dimension d (even)
 * @param options `theta`: RoPE base (e.g. 1,000,000 for Qwen3)
 * @returns d/2 fp32 patterns
 * @throws {RangeError} for an odd or non-positive d, or a d whose entries past the last 32-element
 *   block PyTorch computes with the scalar glibc `powf`, which is not emulated
 * @example
 * ```ts
 * import { ropeInvFreq } from "./rope_inv_freq.ts";
 * const f = ropeInvFreq(128, { theta: 1_000_000 });
 * if (f.length !== 64 || f[0] !== 0x3f800000) throw new Error(); // theta^0 = 1
 * if (f[37] !== 0x39b229fb) throw new Error(); // 1 / SLEEF powf (correctly rounded powf: 0x39b229fa)
 * ```
 */
export function ropeInvFreq(headDim: number, options: { theta: number }): Uint32Array {
  if (!Number.isInteger(headDim) || headDim < 2 || headDim % 2 !== 0) {
    throw new RangeError(
      `Cannot compute inv_freq: head dimension ${headDim} is not a positive even integer`,
    );
  }
  const gap = ropeInvFreqGap(headDim);
  if (gap !== null) throw new RangeError(`Cannot compute inv_freq: ${gap}`);
  const n = headDim / 2;
  const theta = bitsFromF32(options.theta); // the Python number meets a float32 tensor: one rounding
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const t = Math.fround(Math.fround(2 * i) / headDim); // float32 division (innocuous in float64)
    out[i] = divF32(0x3f800000, sleefPowfU10(theta, bitsFromF32(t)));
  }
  return out;
}

/**
 * Why {@link ropeInvFreq} does not emulate a head dimension's frequencies, or null: PyTorch
 * leaves the entries past its last vectorised block of 32 (other than `theta^0 = 1`) to the
 * host's scalar glibc `powf`. Callers that report such a dimension as unmodelled ask this first
 * rather than reading `ropeInvFreq`'s error. A dimension that is not a positive even integer gives
 * null (`ropeInvFreq` refuses it as malformed).
 *
 * @param headDim head dimension d
 * @returns the reason, or null
 * @example
 * ```ts
 * import { ropeInvFreqGap } from "./rope_inv_freq.ts";
 * if (ropeInvFreqGap(128) !== null || ropeInvFreqGap(2) !== null) throw new Error();
 * if (!/entries 32\.\.47 .*scalar glibc powf/.test(ropeInvFreqGap(96) ?? "")) throw new Error();
 * ```
 */
export function ropeInvFreqGap(headDim: number): string | null {
  if (!Number.isInteger(headDim) || headDim < 2 || headDim % 2 !== 0) return null;
  const n = headDim / 2;
  const vectorised = n - (n % BLOCK);
  if (n === 1 || vectorised === n) return null;
  return `PyTorch computes entries ${Math.max(vectorised, 1)}..${n - 1} of head dimension ` +
    `${headDim} with the host's scalar glibc powf (past its last vectorised block of ${BLOCK}), ` +
    "which is not emulated";
}
