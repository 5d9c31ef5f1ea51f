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
import { type GpuProfile, kWalkReference } from "../../hardware/mod.ts";
import type { Fa2Mufu } from "./_fa2_arith.ts";
import { _fa2Head, _fa2Result, _fa2Runner, _fa2Sinks, _planFa2 } from "./_fa2_plan.ts";
import type { SyncKWalk } from "./_fa2_tile_walk.ts";
import type { Fa2Build } from "./fa2_build.ts";
import type { Fa2SfuFunction } from "./fa2_sfu_functions.ts";

/** Q, K, V as BF16 patterns: Q [total_q, heads, d], K and V [total_k, kvHeads, d], row-major. */
export interface AttentionInputs {
  readonly q: Uint16Array;
  readonly k: Uint16Array;
  readonly v: Uint16Array;
}

/** Options of {@link flashAttentionForward}. */
export interface FlashAttentionOptions {
  /** Query heads (a multiple of `kvHeads`; query head h reads KV head floor(h / (heads/kvHeads))). */
  readonly heads: number;
  /** KV heads. */
  readonly kvHeads: number;
  /** Head dimension; only 128 is modelled. */
  readonly headDim: number;
  /** Causal (bottom-right aligned) mask. */
  readonly causal: boolean;
  /** Softmax scale as passed to FA2 (a float); default `headDim ** -0.5`. */
  readonly softmaxScale?: number;
  /** Which FA2 build ran. */
  readonly build: Fa2Build;
  /** GPU profile: architecture (tile sizes) and the `mma` BF16 -> FP32 datapath. */
  readonly profile: GpuProfile;
  /** MUFU model (EX2, RCP; LG2 for split-KV launches and LSEs, e.g. an `Sfu`). */
  readonly mufu: Fa2Mufu;
  /** cu_seqlens of the queries (batch + 1 offsets); with `cuSeqlensK`, selects `mha_varlen_fwd`. */
  readonly cuSeqlensQ?: ArrayLike<number>;
  /** cu_seqlens of the keys. */
  readonly cuSeqlensK?: ArrayLike<number>;
  /** Device SM count; required by `mha_fwd` and the varlen GQA swap for the split heuristic. */
  readonly multiProcessorCount?: number;
  /** Also return O before its BF16 rounding (diagnostics; FA2's `out_accum` form). */
  readonly returnFp32?: boolean;
  /** Return the LSE (needs MUFU.LG2). */
  readonly returnLse?: boolean;
  /** MUFU.LG2 model overriding `mufu.lg2`; when given, the LSE is returned. */
  readonly lg2?: (x: number) => number;
  /**
   * The K-walk of the S = Q·K^T and O += P·V tile products (e.g. `GemmEngine.kWalkAuto`, the wasm
   * engine); default the plain `kWalkReference`. Every K-walk gives the same bits.
   */
  readonly kWalk?: SyncKWalk;
}

/** Output of {@link flashAttentionForward}. */
export interface FlashAttentionResult {
  /** O [total_q, heads, d], BF16 patterns. */
  readonly out: Uint16Array;
  /** LSE [heads, total_q], FP32 patterns (with `returnLse` or `lg2`). */
  readonly lse?: Uint32Array;
  /** O before the BF16 rounding, FP32 patterns, same layout (only with `returnFp32`). */
  readonly outF32?: Uint32Array;
  /** KV splits the launch ran (1: the standard kernel; more: split kernel + combine). */
  readonly splits: number;
  /** The MUFU functions whose bits reach this result (see {@link fa2SfuFunctions}). */
  readonly sfuFunctionsUsed: readonly Fa2SfuFunction[];
}

/**
 * Runs the FA2 forward as the chosen build computes it.
 *
 * @param inputs Q, K, V (BF16 patterns)
 * @param options shapes, mask, build, profile, MUFU, varlen offsets
 * @returns O (BF16), the split count, the MUFU functions used, and optionally the LSE
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
  const { plan, mufu } = _planFa2(inputs, options);
  const runner = _fa2Runner(plan.build, mufu, options.kWalk ?? kWalkReference);
  const sinks = _fa2Sinks(plan);
  for (let h = 0; h < plan.heads; h++) _fa2Head(plan, runner, inputs, h, sinks);
  return _fa2Result(plan, sinks);
}
