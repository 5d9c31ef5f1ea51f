/**
 * `vllmMoeSum`: vLLM's CUDA `moe_sum` op, the combine of the fused-MoE path: each token's
 * output is the sum of its top-k experts' (already weighted) BF16 outputs.
 *
 * Source: vllm-project/vllm commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main),
 * `csrc/moe/moe_align_sum_kernels.cu:116-129, 283-324`: for top-k 2, 3 and 4, `moe_sum_kernel`
 * does `scalar_t x = 0.0; x += input[token][k][i]` for k in slot order, in `c10::BFloat16`
 * (each add an FP32 sum rounded to BF16: the first add turns a -0 into +0); any other k runs
 * `at::sum_out(output, input, 1)`, PyTorch's reduce kernel over the strided top-k dimension,
 * which is not modelled here. Evidence: derived from source only.
 *
 * @module
 */
import { addBf16 } from "../activation/mod.ts";

/**
 * Sums each token's top-k slot outputs as `moe_sum` does for top-k 2 to 4.
 *
 * @param input BF16 patterns [tokens, k, hidden] (slot order = the router's selection order)
 * @param o `k` and `hidden`
 * @returns BF16 patterns [tokens, hidden]
 * @throws {RangeError} for k outside 2..4 (PyTorch's `sum_out` is not modelled) or a length
 *   that is not whole tokens
 * @example
 * ```ts
 * import { vllmMoeSum } from "./vllm_moe_sum.ts";
 * // -0 + -0 from a +0 start is +0; 1 + 2^-8 rounds to 1 (ties to even), then + 2^-8 again.
 * const out = vllmMoeSum(new Uint16Array([0x8000, 0x8000, 0x3f80, 0x3b80]), { k: 2, hidden: 2 });
 * if (out[0] !== 0x0000 || out[1] !== 0x3f80) throw new Error();
 * ```
 */
export function vllmMoeSum(
  input: Uint16Array,
  o: { readonly k: number; readonly hidden: number },
): Uint16Array {
  const { k, hidden: h } = o;
  if (!Number.isInteger(k) || k < 2 || k > 4) {
    throw new RangeError(
      `Cannot combine experts: moe_sum with top-${k} runs PyTorch's sum_out over the top-k ` +
        "dimension, which is not modelled (top-k 2 to 4 are)",
    );
  }
  if (!Number.isInteger(h) || h < 1 || input.length % (k * h) !== 0) {
    throw new RangeError(
      `Cannot combine experts: ${input.length} values are not [tokens, ${k}, ${h}]`,
    );
  }
  const tokens = input.length / (k * h);
  let acc: Uint16Array = new Uint16Array(tokens * h); // +0
  for (let s = 0; s < k; s++) {
    const slot = new Uint16Array(tokens * h);
    for (let t = 0; t < tokens; t++) {
      slot.set(input.subarray((t * k + s) * h, (t * k + s + 1) * h), t * h);
    }
    acc = addBf16(acc, slot);
  }
  return acc;
}
