/**
 * `vllmMoeSum`: vLLM's CUDA `moe_sum` op, the combine of the fused-MoE path: each token's
 * output is the sum of its top-k experts' (already weighted) BF16 outputs.
 *
 * Source: vllm-project/vllm commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main),
 * `csrc/moe/moe_align_sum_kernels.cu:116-129, 283-324`: for top-k 2, 3 and 4, `moe_sum_kernel`
 * does `scalar_t x = 0.0; x += input[token][k][i]` for k in slot order, in `c10::BFloat16`
 * (each add an FP32 sum rounded to BF16: the first add turns a -0 into +0); any other k runs
 * `at::sum_out(output, input, 1)`, PyTorch's reduce kernel over the top-k dimension, which is
 * not the fastest-moving one: `gpu_reduce_kernel` then maps lanes to outputs
 * (`output_mult[0] = split_output(block_width)`), and with fewer than 16 values per output each
 * thread reduces one output alone (`values_per_thread < block_height * 16`: no split over warps
 * or CTAs); `thread_reduce` keeps `vt0` = 4 FP32 accumulators from 0, value i going to
 * accumulator i mod 4 in order, then folds accumulators 1, 2, 3 into 0 in turn, and the result
 * is rounded to BF16 once. That path is modelled for 5 to 15 slots (Qwen3-30B-A3B's top-8:
 * `((x0+x4) + (x1+x5)) + (x2+x6)) + (x3+x7)`), from the Reduce.cuh structure whose strided
 * thread loop and accumulator fold are the same in the releases read [the PyTorch 2.8 text itself
 * was not re-read: inferred]. Evidence: derived from source only.
 *
 * @module
 */
import { bitsFromF32, f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import { addBf16 } from "../activation/mod.ts";

const bf16Value = (b: number) => f32FromBits((b << 16) >>> 0);

/**
 * Sums each token's top-k slot outputs as `moe_sum` does: its own kernel for top-k 2 to 4,
 * PyTorch's strided `sum_out` for 5 to 15.
 *
 * @param input BF16 patterns [tokens, k, hidden] (slot order = the router's selection order)
 * @param o `k`, `hidden`, and `vt0` (PyTorch's accumulators per thread, default 4)
 * @returns BF16 patterns [tokens, hidden]
 * @throws {RangeError} for k outside 2..15 or a length that is not whole tokens
 * @example
 * ```ts
 * import { vllmMoeSum } from "./vllm_moe_sum.ts";
 * // [token, slot, hidden]: slot 0 holds -0 and 1, slot 1 holds -0 and 2^-8. From a +0 start,
 * // -0 + -0 gives +0; 1 + 2^-8 is a tie in BF16 and rounds to the even 1.
 * const out = vllmMoeSum(new Uint16Array([0x8000, 0x3f80, 0x8000, 0x3b80]), { k: 2, hidden: 2 });
 * if (out[0] !== 0x0000 || out[1] !== 0x3f80) throw new Error();
 * ```
 */
export function vllmMoeSum(
  input: Uint16Array,
  o: { readonly k: number; readonly hidden: number; readonly vt0?: number },
): Uint16Array {
  const { k, hidden: h } = o;
  if (!Number.isInteger(k) || k < 2 || k > 15) {
    throw new RangeError(
      `Cannot combine experts: moe_sum with top-${k} is not modelled (top-k 2 to 4 run its ` +
        "kernel, 5 to 15 PyTorch's one-thread-per-output sum_out)",
    );
  }
  if (!Number.isInteger(h) || h < 1 || input.length % (k * h) !== 0) {
    throw new RangeError(
      `Cannot combine experts: ${input.length} values are not [tokens, ${k}, ${h}]`,
    );
  }
  const tokens = input.length / (k * h);
  if (k > 4) return _sumOut(input, { tokens, k, h, vt0: o.vt0 ?? 4 });
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

/** PyTorch's one-thread-per-output strided sum over the slots (FP32, `vt0` accumulators). */
function _sumOut(
  input: Uint16Array,
  o: { readonly tokens: number; readonly k: number; readonly h: number; readonly vt0: number },
): Uint16Array {
  const { tokens, k, h, vt0 } = o;
  const out = new Uint16Array(tokens * h);
  const acc = new Float32Array(vt0);
  for (let t = 0; t < tokens; t++) {
    for (let j = 0; j < h; j++) {
      acc.fill(0);
      for (let s = 0; s < k; s++) {
        acc[s % vt0] = acc[s % vt0]! + bf16Value(input[(t * k + s) * h + j]!);
      }
      let v = acc[0]!;
      for (let i = 1; i < vt0; i++) v = Math.fround(v + acc[i]!);
      out[t * h + j] = fp32ToBf16(bitsFromF32(v));
    }
  }
  return out;
}
