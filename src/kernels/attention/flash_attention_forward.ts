/**
 * FlashAttention-2 forward (prefill and decode, no dropout, no window, no ALiBi/softcap),
 * bit-exact for the Dao fast-math wheel and PyTorch's bundled build. Spec `ops.md` §4.3,
 * `stack_pytorch_hf.md` §4.
 *
 * Entry points modelled: `mha_fwd` (`flash_attn_func`, one sequence; the split-KV heuristic runs
 * and picks the standard kernel or the split kernel + combine; S_q = 1 with GQA is the decode
 * swap) and `mha_varlen_fwd` (`flash_attn_varlen_func`, batch as cu_seqlens offsets; splits only
 * in the S_q = 1 GQA swap). Not modelled: `mha_fwd_kvcache`, whose forced split kernel with one
 * split (`Split = false`) writes BF16 directly, and paged KV.
 *
 * The S_q = 1 GQA swap views Q [1, heads, d] as [kvHeads, group, d]: the kernel sees S_q = group
 * rows per KV head. That changes the split heuristic (computed by `fa2NumSplits` on the
 * swapped shape) and the row blocks, which only matter for causal masks, and causal is dropped
 * for S_q = 1; so each row is computed here as itself, with the swapped launch's split count.
 *
 * ASSUMPTIONS: the softmax scale is a float parameter (`fl32(scale)`), `scale_log2` is
 * `fl32(double(scale) * M_LOG2E)` as FA2's host code computes it; causal masks are bottom-right
 * aligned (`col <= row + S_k - S_q`, FA >= 2.1) and causal is dropped when the longest query is 1
 * (as both C++ entry points do); a CTA whose causal range is empty writes O = 0 and LSE = +inf.
 *
 * @module
 */
import { kWalkReference } from "../../hardware/mod.ts";
import type {
  AttentionInputs,
  FlashAttentionOptions,
  FlashAttentionResult,
} from "./fa2_options.ts";
import { fa2KvGroup, fa2Result, fa2Runner, fa2Sinks, planFa2 } from "./fa2_plan.ts";

/**
 * Runs the FA2 forward as the chosen build computes it.
 *
 * @param inputs Q, K, V (BF16 patterns)
 * @param options shapes, mask, build, profile, MUFU, varlen offsets
 * @returns O (BF16), the split count, the MUFU functions used, and optionally the LSE
 *   (see {@link FlashAttentionResult})
 * @throws {RangeError} for an unmodelled head dimension or architecture, inconsistent
 *   shapes/offsets, a missing SM count, or a split-KV launch or LSE without MUFU.LG2
 * @throws {TypeError} when the profile lacks an `mma` BF16 -> FP32 datapath
 * @example
 * ```ts
 * import { flashAttentionForward } from "./flash_attention_forward.ts";
 * import { FA2_PYTORCH_BUNDLED } from "./fa2_build.ts";
 * import { createSfu, parseGpuProfile } from "../../hardware/mod.ts";
 * const json = JSON.parse(Deno.readTextFileSync(new URL("../../../profiles/gpu/a100.json", import.meta.url)));
 * const d = 128;
 * const v = new Uint16Array(d).fill(0x4040); // one key: the output is its V row (3.0)
 * const r = flashAttentionForward({ q: new Uint16Array(d).fill(0x3f80), k: new Uint16Array(d), v }, {
 *   heads: 1, kvHeads: 1, headDim: d, causal: true, build: FA2_PYTORCH_BUNDLED,
 *   profile: parseGpuProfile(json), mufu: createSfu({ mode: "ieee" }), multiProcessorCount: 108,
 * });
 * if (r.out[0] !== 0x4040 || r.out[127] !== 0x4040 || r.splits !== 1) throw new Error();
 * if (r.sfuFunctionsUsed.join() !== "ex2") throw new Error();
 * ```
 */
export function flashAttentionForward(
  inputs: AttentionInputs,
  options: FlashAttentionOptions,
): FlashAttentionResult {
  const { plan, mufu } = planFa2(inputs, options);
  const runner = fa2Runner(plan.build, {
    mufu,
    kWalk: options.kWalk ?? kWalkReference,
    tileSoftmax: options.tileSoftmax,
    kept: options.kvCache?.tiles,
  });
  const sinks = fa2Sinks(plan);
  for (let kvh = 0; kvh < plan.kvHeads; kvh++) fa2KvGroup(plan, { runner, inputs, kvh, sinks });
  return fa2Result(plan, sinks);
}
