/**
 * The calls of one decoder layer as data: each linear with its N, K and bias, each row reduction
 * (the RMSNorms and the MoE top-k sum) with its rows per activation row and its length, grouped
 * by sublayer, all from the config. The layer (`attentionSublayer`, `denseMlpSublayer`) and the
 * MoE block read their GEMM shapes and norm launches here, block claims plan their kernels from
 * it, and a decode pass's signature lists it: one description, so they cannot drift.
 *
 * A tensor-parallel rank's calls are those of the rank's view of the config (`rankView`: its
 * heads, KV heads and intermediate block), since every rank's GEMM is dispatched by its own
 * shape (spec `parallel_and_vllm.md` §A1).
 *
 * A stack with merged projections (vLLM's `QKVParallelLinear` and `MergedColumnParallelLinear`)
 * runs q/k/v as one `qkv_proj` GEMM (N = (heads + 2 KV heads) x head dim) and gate/up as one
 * `gate_up_proj` GEMM (N = 2 x intermediate); its kernel is dispatched by that shape.
 *
 * @module
 */
import type { DecoderConfig, MoeConfig } from "../checkpoint/mod.ts";
import type { GemmCall, ProjectionName } from "./block_runtime.ts";

/** What one decoder layer's calls depend on: its sizes, QK-norm, biases and MoE section. */
export type LayerConfig = Pick<
  DecoderConfig,
  "hidden" | "intermediate" | "heads" | "kvHeads" | "headDim" | "qkNorm" | "bias" | "moe"
>;

/** How a stack runs q/k/v and gate/up: separate GEMMs (HF) or one merged GEMM each (vLLM). */
export type LayerProjections = "separate" | "merged";

/** One linear of a layer: y [rows, n] = x [rows, k] W^T (+ b), BF16 in and out. */
export interface LayerLinear {
  /** The projection, named as in HF checkpoints (`router` is a MoE block's `mlp.gate`). */
  readonly name: ProjectionName;
  /** Output features N. */
  readonly n: number;
  /** Reduction length K. */
  readonly k: number;
  /** Whether it carries a bias (dispatched as a biased call, added in the epilogue). */
  readonly bias: boolean;
  /**
   * Whether its M is the rows routed to one expert (a MoE expert's GEMMs: set by the data); else
   * M is every row of the layer.
   */
  readonly routed: boolean;
}

/** A row reduction of a layer: an RMSNorm by its module's name, or the MoE top-k sum. */
export type LayerReductionName =
  | "input_layernorm"
  | "q_norm"
  | "k_norm"
  | "post_attention_layernorm"
  | "topk_sum";

/** The RMSNorms of a layer (the reductions the layer itself runs; the top-k sum is the MoE block's). */
export type LayerNormName = Exclude<LayerReductionName, "topk_sum">;

/** One row reduction, whose launch (reduce tree, mean factor) the launch's row count fixes. */
export interface LayerReduction {
  /** Which reduction. */
  readonly name: LayerReductionName;
  /** Reduced rows per activation row: 1, or the (rank's) heads / KV heads of a QK-norm. */
  readonly perRow: number;
  /** Reduced length (the norm's weight has as many values). */
  readonly length: number;
  /** An RMSNorm (mean of squares, with a mean factor) rather than a plain sum. */
  readonly mean: boolean;
}

/** The calls of one sublayer, in the order it runs them. */
export interface SublayerCalls {
  /** Its linears. */
  readonly linears: readonly LayerLinear[];
  /** Its row reductions. */
  readonly reductions: readonly LayerReduction[];
}

/** The calls of a decoder layer by sublayer. */
export interface LayerCalls {
  /** Input RMSNorm, q/k/v, QK-norm (where the family has it), o. */
  readonly attention: SublayerCalls;
  /** The dense MLP: post-attention RMSNorm, gate/up, down. */
  readonly mlp: SublayerCalls;
  /** The sparse MoE block (MoE configs only): see {@link moeCalls}. */
  readonly moe?: SublayerCalls;
}

/**
 * The calls of a decoder layer of a config (or of a rank's view of it).
 *
 * @param config the layer's sizes, QK-norm, biases and MoE section
 * @param projections separate q/k/v and gate/up GEMMs (default) or merged ones
 * @returns the calls by sublayer
 * @example
 * ```ts
 * import { layerCalls, linearOf } from "./layer_calls.ts";
 * const bias = { qkv: true, o: false, mlp: false };
 * const c = { hidden: 64, intermediate: 96, heads: 4, kvHeads: 2, headDim: 16, qkNorm: false, bias };
 * const calls = layerCalls(c);
 * const k = linearOf(calls.attention, "k_proj");
 * if (k.n !== 32 || k.k !== 64 || !k.bias) throw new Error();
 * if (calls.attention.reductions.length !== 1 || calls.moe !== undefined) throw new Error();
 * ```
 */
export function layerCalls(
  config: LayerConfig,
  projections: LayerProjections = "separate",
): LayerCalls {
  const { hidden: h, headDim: d, intermediate: f, bias } = config;
  const q = config.heads * d, kv = config.kvHeads * d;
  const lin = (name: ProjectionName, n: number, k: number, b: boolean): LayerLinear =>
    Object.freeze({ name, n, k, bias: b, routed: false });
  const merged = projections === "merged";
  const attention: SublayerCalls = Object.freeze({
    linears: Object.freeze([
      ...(merged ? [lin("qkv_proj", q + 2 * kv, h, bias.qkv)] : [
        lin("q_proj", q, h, bias.qkv),
        lin("k_proj", kv, h, bias.qkv),
        lin("v_proj", kv, h, bias.qkv),
      ]),
      lin("o_proj", h, q, bias.o),
    ]),
    reductions: Object.freeze([
      _rms("input_layernorm", 1, h),
      ...(config.qkNorm
        ? [_rms("q_norm", config.heads, d), _rms("k_norm", config.kvHeads, d)]
        : []),
    ]),
  });
  const mlp: SublayerCalls = Object.freeze({
    linears: Object.freeze([
      ...(merged
        ? [lin("gate_up_proj", 2 * f, h, bias.mlp)]
        : [lin("gate_proj", f, h, bias.mlp), lin("up_proj", f, h, bias.mlp)]),
      lin("down_proj", h, f, bias.mlp),
    ]),
    reductions: Object.freeze([_rms("post_attention_layernorm", 1, h)]),
  });
  const moe = config.moe;
  return Object.freeze({
    attention,
    mlp,
    ...(moe === undefined ? {} : { moe: moeCalls({ hidden: h, moe }) }),
  });
}

/**
 * The calls of a sparse MoE block (HF 4.5x `Qwen3MoeSparseMoeBlock`): the post-attention RMSNorm,
 * the router GEMM over every row, the top-k sum when `norm_topk_prob` renormalises, and each
 * expert's gate/up and down GEMMs over the rows routed to it. Neither the router nor the experts
 * carry a bias (`qwen3_moe` refuses `mlp_bias`).
 *
 * @param o the hidden size and the MoE section (a rank's view: its block of the expert width)
 * @returns the calls
 * @example
 * ```ts
 * import { moeCalls } from "./layer_calls.ts";
 * const moe = { experts: 8, topK: 2, intermediate: 32, normTopkProb: true, decoderSparseStep: 1, mlpOnlyLayers: [] };
 * const c = moeCalls({ hidden: 64, moe });
 * if (c.linears.map((l) => l.routed).join() !== "false,true,true,true") throw new Error();
 * if (c.reductions[1]?.name !== "topk_sum" || c.reductions[1].length !== 2) throw new Error();
 * ```
 */
export function moeCalls(o: { readonly hidden: number; readonly moe: MoeConfig }): SublayerCalls {
  const { hidden: h, moe } = o;
  const f = moe.intermediate;
  const expert = (name: ProjectionName, n: number, k: number): LayerLinear =>
    Object.freeze({ name, n, k, bias: false, routed: true });
  return Object.freeze({
    linears: Object.freeze([
      Object.freeze({ name: "router", n: moe.experts, k: h, bias: false, routed: false } as const),
      expert("gate_proj", f, h),
      expert("up_proj", f, h),
      expert("down_proj", h, f),
    ]),
    reductions: Object.freeze([
      _rms("post_attention_layernorm", 1, h),
      ...(moe.normTopkProb
        ? [Object.freeze({ name: "topk_sum", perRow: 1, length: moe.topK, mean: false } as const)]
        : []),
    ]),
  });
}

/**
 * A sublayer's linear by name.
 *
 * @param calls the sublayer's calls
 * @param name the projection
 * @returns the linear
 * @throws {RangeError} when the sublayer has no such linear
 * @example
 * ```ts
 * import { layerCalls, linearOf } from "./layer_calls.ts";
 * const bias = { qkv: false, o: false, mlp: false };
 * const c = layerCalls({ hidden: 8, intermediate: 16, heads: 1, kvHeads: 1, headDim: 8, qkNorm: true, bias });
 * if (linearOf(c.mlp, "down_proj").k !== 16) throw new Error();
 * ```
 */
export function linearOf(calls: SublayerCalls, name: ProjectionName): LayerLinear {
  const l = calls.linears.find((l) => l.name === name);
  if (l === undefined) throw new RangeError(`Cannot find linear '${name}' in the sublayer's calls`);
  return l;
}

/**
 * A sublayer's row reduction by name, if it runs one.
 *
 * @param calls the sublayer's calls
 * @param name the reduction
 * @returns the reduction, or undefined (a family without QK-norm has no `q_norm`)
 * @example
 * ```ts
 * import { layerCalls, reductionOf } from "./layer_calls.ts";
 * const bias = { qkv: false, o: false, mlp: false };
 * const c = layerCalls({ hidden: 8, intermediate: 16, heads: 2, kvHeads: 1, headDim: 8, qkNorm: true, bias });
 * if (reductionOf(c.attention, "q_norm")?.perRow !== 2) throw new Error();
 * ```
 */
export function reductionOf<N extends LayerReductionName>(
  calls: SublayerCalls,
  name: N,
): (LayerReduction & { readonly name: N }) | undefined {
  return calls.reductions.find((r): r is LayerReduction & { readonly name: N } => r.name === name);
}

/**
 * The GEMM call of a linear at M rows (a biased linear is a biased call).
 *
 * @param linear the linear
 * @param m rows of the launch
 * @returns the call a dispatch decides the kernel of
 * @example
 * ```ts
 * import { gemmCallOf } from "./layer_calls.ts";
 * const c = gemmCallOf({ name: "o_proj", n: 8, k: 4, bias: false, routed: false }, 3);
 * if (c.m !== 3 || "bias" in c) throw new Error();
 * ```
 */
export function gemmCallOf(linear: LayerLinear, m: number): GemmCall {
  const { name, n, k } = linear;
  return linear.bias ? { name, m, n, k, bias: true } : { name, m, n, k };
}

function _rms(name: LayerReductionName, perRow: number, length: number): LayerReduction {
  return Object.freeze({ name, perRow, length, mean: true });
}
