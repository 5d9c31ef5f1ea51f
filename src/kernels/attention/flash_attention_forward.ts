/**
 * FlashAttention-2 forward (prefill, no dropout, no window, no ALiBi/softcap), bit-exact for the
 * Dao fast-math wheel and PyTorch's bundled build. Spec `ops.md` §4.3, `stack_pytorch_hf.md` §4.
 *
 * Entry points modelled: `mha_fwd` (`flash_attn_func`, one sequence; the split-KV heuristic runs
 * and a split count above 1 is refused) and `mha_varlen_fwd` (`flash_attn_varlen_func`, batch as
 * cu_seqlens offsets; never splits except in the S_q = 1 GQA swap, which is refused).
 *
 * ASSUMPTIONS: the softmax scale is a float parameter (`fl32(scale)`), `scale_log2` is
 * `fl32(double(scale) * M_LOG2E)` as FA2's host code computes it; causal masks are bottom-right
 * aligned (`col <= row + S_k - S_q`, FA >= 2.1) and causal is dropped when the longest query is 1
 * (as both C++ entry points do); a CTA whose causal range is empty writes O = 0 and LSE = +inf.
 *
 * @module
 */
import { findDatapath, type GpuProfile } from "../../hardware/mod.ts";
import { bitsFromF32 } from "../../numerics/mod.ts";
import type { Mufu } from "../math/mod.ts";
import { _fa2Arith } from "./_fa2_arith.ts";
import { _fa2Epilogue } from "./_fa2_epilogue.ts";
import { _fa2RowWalk } from "./_fa2_row_walk.ts";
import { _checkNoSplit, _sequences } from "./_fa2_launch.ts";
import type { Fa2Build } from "./fa2_build.ts";
import { fa2Tiles } from "./fa2_tiles.ts";

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
  /** MUFU model (EX2, RCP). */
  readonly mufu: Mufu;
  /** cu_seqlens of the queries (batch + 1 offsets); with `cuSeqlensK`, selects `mha_varlen_fwd`. */
  readonly cuSeqlensQ?: ArrayLike<number>;
  /** cu_seqlens of the keys. */
  readonly cuSeqlensK?: ArrayLike<number>;
  /** Device SM count; required by `mha_fwd` (no cu_seqlens) for the split heuristic. */
  readonly multiProcessorCount?: number;
  /** Also return O before its BF16 rounding (diagnostics; FA2's `out_accum` form). */
  readonly returnFp32?: boolean;
  /** MUFU.LG2 model; when given, the LSE is returned. */
  readonly lg2?: (x: number) => number;
}

/** Output of {@link flashAttentionForward}. */
export interface FlashAttentionResult {
  /** O [total_q, heads, d], BF16 patterns. */
  readonly out: Uint16Array;
  /** LSE [heads, total_q], FP32 patterns (only with `lg2`). */
  readonly lse?: Uint32Array;
  /** O before the BF16 rounding, FP32 patterns, same layout (only with `returnFp32`). */
  readonly outF32?: Uint32Array;
}

/**
 * Runs the FA2 forward kernel as the chosen build computes it.
 *
 * @param inputs Q, K, V (BF16 patterns)
 * @param options shapes, mask, build, profile, MUFU, varlen offsets
 * @returns O (BF16) and optionally the LSE
 * @throws {RangeError} for an unmodelled head dimension, architecture or split-KV launch, or
 *   inconsistent shapes/offsets
 * @throws {TypeError} when the profile lacks an `mma` BF16 -> FP32 datapath
 * @example
 * ```ts
 * import { flashAttentionForward } from "./flash_attention_forward.ts";
 * import { FA2_PYTORCH_BUNDLED } from "./fa2_build.ts";
 * import { createSfu, parseGpuProfile } from "../../hardware/mod.ts";
 * const json = JSON.parse(Deno.readTextFileSync(new URL("../../../profiles/gpu/a100.json", import.meta.url)));
 * const d = 128;
 * const v = new Uint16Array(d).fill(0x4040); // one key: the output is its V row (3.0)
 * const { out } = flashAttentionForward({ q: new Uint16Array(d).fill(0x3f80), k: new Uint16Array(d), v }, {
 *   heads: 1, kvHeads: 1, headDim: d, causal: true, build: FA2_PYTORCH_BUNDLED,
 *   profile: parseGpuProfile(json), mufu: createSfu({ mode: "ieee" }), multiProcessorCount: 108,
 * });
 * if (out[0] !== 0x4040 || out[127] !== 0x4040) throw new Error();
 * ```
 */
export function flashAttentionForward(
  inputs: AttentionInputs,
  options: FlashAttentionOptions,
): FlashAttentionResult {
  const { heads, kvHeads, headDim: d, build } = options;
  const dp = findDatapath(options.profile, { family: "mma", input: "bf16", output: "fp32" });
  if (dp === undefined) {
    throw new TypeError("Cannot run FA2: the profile has no 'mma' bf16 -> fp32 datapath");
  }
  const seq = _sequences(inputs, options);
  const maxQ = Math.max(...seq.map((s) => s.sq));
  const causal = options.causal && maxQ > 1;
  const { blockM, blockN } = fa2Tiles(options.profile.architecture, { headDim: d, causal });
  _checkNoSplit(options, seq, maxQ);
  const scale = Math.fround(options.softmaxScale ?? d ** -0.5);
  const scaleLog2 = bitsFromF32(scale * Math.LOG2E);
  const arith = _fa2Arith(build, options.mufu);
  const totalQ = inputs.q.length / (heads * d);
  const out = new Uint16Array(inputs.q.length);
  const outF32 = options.returnFp32 === true ? new Uint32Array(inputs.q.length) : undefined;
  const lse = options.lg2 === undefined ? undefined : new Uint32Array(heads * totalQ);
  const group = heads / kvHeads;
  for (const { q0, k0, sq, sk } of seq) {
    for (let h = 0; h < heads; h++) {
      const kvh = Math.floor(h / group);
      const row = (a: Uint16Array, base: number, hh: number, nh: number) =>
        a.subarray((base * nh + hh) * d, (base * nh + hh + 1) * d);
      for (let i = 0; i < sq; i++) {
        const mb = Math.floor(i / blockM);
        let nMax = Math.trunc((sk + blockN - 1) / blockN);
        // C++ ceil_div truncates toward zero, so an empty causal range gives <= 0.
        if (causal) {
          nMax = Math.min(nMax, Math.trunc(((mb + 1) * blockM + sk - sq + blockN - 1) / blockN));
        }
        const o = out.subarray(((q0 + i) * heads + h) * d, ((q0 + i) * heads + h + 1) * d);
        if (nMax <= 0) {
          if (lse) lse[h * totalQ + q0 + i] = 0x7f800000;
          continue; // output stays +0
        }
        const blocks = Array.from({ length: nMax }, (_, j) => j);
        if (build.kvWalk === "descending") blocks.reverse();
        const state = _fa2RowWalk({
          dp,
          arith,
          q: row(inputs.q, q0 + i, h, heads),
          key: (j) => row(inputs.k, k0 + j, kvh, kvHeads),
          value: (j) => row(inputs.v, k0 + j, kvh, kvHeads),
          visible: causal ? Math.min(sk, i + 1 + sk - sq) : sk,
          blockN,
          blocks,
          scaleLog2,
        });
        const r = _fa2Epilogue(state, {
          arith,
          softmaxScale: bitsFromF32(scale),
          lg2: options.lg2,
        });
        o.set(r.out);
        outF32?.set(r.outF32, ((q0 + i) * heads + h) * d);
        if (lse && r.lse !== undefined) lse[h * totalQ + q0 + i] = r.lse;
      }
    }
  }
  return {
    out,
    ...(lse === undefined ? {} : { lse }),
    ...(outF32 === undefined ? {} : { outF32 }),
  };
}
