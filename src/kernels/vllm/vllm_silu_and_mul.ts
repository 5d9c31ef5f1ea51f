/**
 * `vllmSiluAndMul`: vLLM's CUDA `silu_and_mul` op (`SiluAndMul.forward_cuda`, and the fused-MoE
 * path's `torch.ops._C.silu_and_mul` whatever the custom-op setting) bit for bit.
 *
 * Source: vllm-project/vllm commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main):
 * `vllm/model_executor/layers/activation.py:72, 84-89` (`forward_cuda` calls
 * `torch.ops._C.silu_and_mul`), `layers/fused_moe/fused_moe.py:1656`, and
 * `csrc/activation_kernels.cu`:
 * - :34-38 `silu_kernel`: `(T)(((float)x) / (1.0f + expf((float)-x)))` with T = c10::BFloat16:
 *   the exact negation, libdevice `expf` (vLLM builds without `--use_fast_math`), IEEE division,
 *   one rounding to BF16 (`__float2bfloat16` on sm_80+);
 * - :12-17 `compute`, act_first: `ACT_FN(x) * y`, c10's BF16 x BF16 (FP32 product, one more
 *   rounding to BF16);
 * - :20-32, :68-89: `input` is [..., 2d]: the gate x is the first d values of a row, y the last d;
 *   the output is [..., d]. Grid and block sizes do not change any arithmetic.
 *
 * That is exactly PyTorch's CUDA SiLU followed by PyTorch's BF16 multiply (`F.silu(gate) * up`,
 * HF's eager MLP), so the existing `siluBf16` and `mulBf16` are reused; a test checks the two
 * paths agree on every gate pattern.
 *
 * Evidence: derived from source only; never compared with a GPU. `expf`'s final `e * scale` may
 * be fused with the `1.0f +` by ptxas; `siluF32` shows why that cannot change the result.
 *
 * @module
 */
import { mulBf16, siluBf16 } from "../activation/mod.ts";
import type { Mufu } from "../math/mod.ts";

/** Options of {@link vllmSiluAndMul}. */
export interface VllmSiluAndMulOptions {
  /** The output width d (the input rows have 2d values: gate then up). */
  readonly d: number;
  /** MUFU model used by `expf` (MUFU.EX2). */
  readonly mufu: Mufu;
}

/**
 * `out[t, i] = bf16(bf16(silu(x[t, i])) * x[t, d + i])` for a BF16 [tokens, 2d] input.
 *
 * @param input BF16 patterns, row-major [tokens, 2d]
 * @param options d and the MUFU model
 * @returns BF16 patterns [tokens, d]
 * @throws {RangeError} when d is not a positive integer or the input is not a whole number of rows
 * @example
 * ```ts
 * import { vllmSiluAndMul } from "./vllm_silu_and_mul.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * // silu(0) = 0, so 0 * 3 = 0; silu(-0) = -0 and -0 * 3 = -0.
 * const out = vllmSiluAndMul(new Uint16Array([0x0000, 0x8000, 0x4040, 0x4040]), {
 *   d: 2, mufu: createSfu({ mode: "ieee", ftz: true }),
 * });
 * if (out[0] !== 0x0000 || out[1] !== 0x8000) throw new Error();
 * ```
 */
export function vllmSiluAndMul(input: Uint16Array, options: VllmSiluAndMulOptions): Uint16Array {
  const { d, mufu } = options;
  if (!Number.isInteger(d) || d < 1 || input.length % (2 * d) !== 0) {
    throw new RangeError(
      `Cannot apply silu_and_mul: ${input.length} values are not rows of 2 x ${d}`,
    );
  }
  const tokens = input.length / (2 * d);
  const gate = new Uint16Array(tokens * d);
  const up = new Uint16Array(tokens * d);
  for (let t = 0; t < tokens; t++) {
    gate.set(input.subarray(2 * d * t, 2 * d * t + d), d * t);
    up.set(input.subarray(2 * d * t + d, 2 * d * (t + 1)), d * t);
  }
  return mulBf16(siluBf16(gate, { mufu }), up);
}
