/**
 * The attention block of a dense decoder layer (Qwen3) as HF Transformers runs it on CUDA for a
 * prefill of one sequence from position 0 (spec `model.md` §2, `stack_pytorch_hf.md` §1.1-§1.4,
 * §4): input RMSNorm, q/k/v projections, per-head QK-norm, RoPE (rotate-half), causal attention
 * through the stack's backend, the o projection and the residual add. It runs the one decoder
 * layer's attention sublayer (`attentionSublayer`) with a one-launch FA2 core, and returns every
 * intermediate the layer reports, for comparison with a GPU capture.
 *
 * Backends: the two FlashAttention-2 builds are emulated; cuDNN, memory-efficient SDPA and eager
 * attention are reported unsupported here with the registry's reason (`attentionBackend`, driver
 * `block`), never approximated.
 *
 * @module
 */
import type {
  Fa2Build,
  FlashAttentionResult,
  GemmResult,
  RmsNormResult,
} from "../../kernels/mod.ts";
import {
  applyRope,
  fa2NumSplits,
  fa2SfuFunctions,
  flashAttentionForward,
  ropeInvFreq,
  ropeInvFreqGap,
  ropeTables,
} from "../../kernels/mod.ts";
import { type AttentionCore, attentionSublayer, type BlockRuntime } from "../decoder/mod.ts";
import { runBlockSublayer } from "./block_layer.ts";
import {
  _supportOf,
  _Unsupported,
  type BlockPlanBase,
  type BlockSupport,
  planBase,
} from "./block_support.ts";
import { checkDenseLayerShape, type DenseLayerShape } from "./layer_shape.ts";
import { checkSfuUsage, type SfuUse } from "./sfu_usage.ts";

/** Weights of the attention block (BF16 patterns, HF layouts; d = head dim, H = hidden). */
export interface AttentionBlockWeights {
  /** `input_layernorm.weight` [H]. */
  readonly norm: Uint16Array;
  /** `self_attn.q_proj.weight` [heads * d, H]. */
  readonly q: Uint16Array;
  /** `self_attn.k_proj.weight` [kvHeads * d, H]. */
  readonly k: Uint16Array;
  /** `self_attn.v_proj.weight` [kvHeads * d, H]. */
  readonly v: Uint16Array;
  /** `self_attn.o_proj.weight` [H, heads * d]. */
  readonly o: Uint16Array;
  /** `self_attn.q_norm.weight` [d]. */
  readonly qNorm: Uint16Array;
  /** `self_attn.k_norm.weight` [d]. */
  readonly kNorm: Uint16Array;
}

/** RoPE frequencies: the model's recorded `inv_freq` patterns (preferred), or theta. */
export type RopeSource = { readonly invFreq: Uint32Array } | { readonly theta: number };

/** Options of {@link planAttentionBlock}. */
export interface AttentionBlockOptions {
  /** Layer sizes. */
  readonly shape: DenseLayerShape;
  /** How the block ran. */
  readonly runtime: BlockRuntime;
  /** RoPE frequencies. */
  readonly rope: RopeSource;
  /** The device's SM count (`multiProcessorCount`): FA2's split heuristic depends on it. */
  readonly multiProcessorCount: number;
  /** `rms_norm_eps` (also QK-norm), default 1e-6. */
  readonly eps?: number;
}

/** A planned attention block. */
export interface AttentionBlockPlan extends BlockPlanBase {
  /** Layer sizes. */
  readonly shape: DenseLayerShape;
  /** `rms_norm_eps`. */
  readonly eps: number;
  /** The FA2 build that ran. */
  readonly build: Fa2Build;
  /** FA2 KV splits the heuristic chose (1 = the standard kernel; more: split kernel + combine). */
  readonly splits: number;
  /** The device's SM count. */
  readonly multiProcessorCount: number;
  /** `inv_freq`, headDim / 2 FP32 patterns. */
  readonly invFreq: Uint32Array;
  /** SFU functions the block depends on. */
  readonly sfu: readonly SfuUse[];
}

/** Every intermediate of the attention block. */
export interface AttentionBlockResult {
  /** Input RMSNorm. */
  readonly norm: RmsNormResult;
  /** q_proj [tokens, heads * d]. */
  readonly q: GemmResult;
  /** k_proj [tokens, kvHeads * d]. */
  readonly k: GemmResult;
  /** v_proj [tokens, kvHeads * d]. */
  readonly v: GemmResult;
  /** q_norm per head. */
  readonly qNorm: RmsNormResult;
  /** k_norm per head. */
  readonly kNorm: RmsNormResult;
  /** Q after RoPE [tokens, heads, d] (the attention kernel's input). */
  readonly qRope: Uint16Array;
  /** K after RoPE [tokens, kvHeads, d]. */
  readonly kRope: Uint16Array;
  /** Attention core output [tokens, heads, d] (the o projection's input). */
  readonly core: FlashAttentionResult;
  /** o_proj [tokens, H]. */
  readonly o: GemmResult;
  /** Block output `bf16(x + o)` [tokens, H]. */
  readonly out: Uint16Array;
  /** SFU functions used, with their validation status. */
  readonly sfu: readonly SfuUse[];
}

/**
 * Fixes every kernel of the attention block for a prefill of `tokens`, or says why it cannot be
 * emulated (unmodelled attention backend, uncovered GEMM, SFU policy, theta-derived RoPE
 * frequencies PyTorch would leave to the host's scalar glibc `powf`). The FA2 split heuristic runs here: a split-KV launch (e.g.
 * 129-320 tokens on an H100 for Qwen3-4B) is emulated with the split kernel and its combine, and
 * adds MUFU.LG2 to the SFU functions (its table model is `model-only`, so a stack asking for more
 * makes such a launch NOT_VERIFIED). No tensor is touched.
 *
 * @param tokens sequence length (batch 1, positions 0..tokens-1)
 * @param options shape, runtime, RoPE source, SM count, eps
 * @returns the plan or the reason
 * @throws {RangeError} on an invalid shape, token count or SM count
 * @example
 * ```ts ignore
 * const r = planAttentionBlock(256, { shape: QWEN3_4B_LAYER, runtime, rope: { theta: 1e6 },
 *   multiProcessorCount: 108 });
 * ```
 */
export function planAttentionBlock(
  tokens: number,
  options: AttentionBlockOptions,
): BlockSupport<AttentionBlockPlan> {
  const shape = checkDenseLayerShape(options.shape);
  const { runtime, multiProcessorCount: sms } = options;
  if (!Number.isSafeInteger(sms) || sms < 1) {
    throw new RangeError(`Cannot plan attention: multiProcessorCount must be positive, got ${sms}`);
  }
  return _supportOf(() => {
    const base = planBase(runtime, { tokens, shape, sublayer: "attention" });
    // The registry models only FA2 builds in block claims.
    const build = base.ops.attention?.build ?? null;
    if (build === null) throw new RangeError("unreachable: a block backend is an FA2 build");
    const splits = fa2NumSplits({
      batch: 1,
      heads: shape.heads,
      kvHeads: shape.kvHeads,
      seqlenQ: tokens,
      seqlenK: tokens,
      headDim: shape.headDim,
      multiProcessorCount: sms,
    });
    const invFreq = _invFreq(options.rope, shape.headDim);
    // RMSNorm and QK-norm take libdevice rsqrtf (MUFU.RSQ); FA2 adds ex2, its reciprocal when
    // that is MUFU.RCP, and lg2 for the split kernel's LSE (a split launch).
    const fns = ["rsqrt", ...fa2SfuFunctions(build, { splits })];
    const sfu = checkSfuUsage(runtime.sfu, {
      stack: runtime.stack,
      functions: fns,
      computeCapability: runtime.profile.computeCapability,
    });
    if (!sfu.ok) throw new _Unsupported(sfu.reason);
    return Object.freeze({
      ...base,
      shape,
      eps: options.eps ?? 1e-6,
      build,
      splits,
      multiProcessorCount: sms,
      invFreq,
      sfu: sfu.used,
    });
  });
}

function _invFreq(rope: RopeSource, d: number): Uint32Array {
  if ("invFreq" in rope) {
    if (!(rope.invFreq instanceof Uint32Array) || rope.invFreq.length !== d / 2) {
      throw new TypeError(`Cannot plan attention: 'rope.invFreq' must hold ${d / 2} FP32 patterns`);
    }
    return rope.invFreq.slice();
  }
  const gap = ropeInvFreqGap(d);
  if (gap !== null) {
    throw new _Unsupported(
      `Cannot compute inv_freq: ${gap}; record the model's inv_freq patterns instead`,
    );
  }
  return ropeInvFreq(d, { theta: rope.theta });
}

/**
 * Runs a planned attention block on BF16 input x [tokens, hidden].
 *
 * @param x block input (the residual stream), BF16 patterns
 * @param options the plan, the runtime it was made with, the weights
 * @returns every intermediate and the block output
 * @throws {TypeError} when x or a weight has the wrong length
 * @example
 * ```ts ignore
 * const r = await runAttentionBlock(x, { plan, runtime, weights });
 * ```
 */
export async function runAttentionBlock(
  x: Uint16Array,
  options: {
    readonly plan: AttentionBlockPlan;
    readonly runtime: BlockRuntime;
    readonly weights: AttentionBlockWeights;
  },
): Promise<AttentionBlockResult> {
  const { plan, runtime, weights: w } = options;
  let core: FlashAttentionResult | undefined;
  const fa2 = _fa2Core(plan, runtime, (r) => core = r);
  const tables = ropeTables(plan.invFreq, Array.from({ length: plan.tokens }, (_, i) => i));
  const rope = (q: Uint16Array, heads: number) => applyRope(q, { tables, heads });
  const { out, seen } = await runBlockSublayer(x, {
    ...options,
    sublayer: "attention",
    tensors: [
      ["norm", "input_layernorm.weight", w.norm],
      ["q", "self_attn.q_proj.weight", w.q],
      ["k", "self_attn.k_proj.weight", w.k],
      ["v", "self_attn.v_proj.weight", w.v],
      ["o", "self_attn.o_proj.weight", w.o],
      ["qNorm", "self_attn.q_norm.weight", w.qNorm],
      ["kNorm", "self_attn.k_norm.weight", w.kNorm],
    ],
    run: async (ctx, t) => (await attentionSublayer(x, { ctx, t, rope, core: fa2 })).out,
  });
  return {
    norm: seen.norm("input_layernorm"),
    q: seen.linear("q_proj"),
    k: seen.linear("k_proj"),
    v: seen.linear("v_proj"),
    qNorm: seen.norm("q_norm"),
    kNorm: seen.norm("k_norm"),
    qRope: seen.tensor("q_rope"),
    kRope: seen.tensor("k_rope"),
    core: core!,
    o: seen.linear("o_proj"),
    out,
    sfu: plan.sfu,
  };
}

/**
 * The block's attention core: one causal FA2 launch of the plan's build over every head of one
 * sequence, with the split count the plan fixed; `keep` receives the whole result.
 */
function _fa2Core(
  plan: AttentionBlockPlan,
  runtime: BlockRuntime,
  keep: (r: FlashAttentionResult) => void,
): AttentionCore {
  const forward = runtime.attention ?? flashAttentionForward;
  return async (q, k, v) => {
    const r = await forward({ q, k, v }, {
      heads: plan.shape.heads,
      kvHeads: plan.shape.kvHeads,
      headDim: plan.shape.headDim,
      causal: true,
      build: plan.build,
      profile: runtime.profile,
      mufu: runtime.sfu,
      multiProcessorCount: plan.multiProcessorCount,
    });
    if (r.splits !== plan.splits) {
      throw new Error(`FA2 ran ${r.splits} KV splits, the plan fixed ${plan.splits}`);
    }
    keep(r);
    return { core: r.out, splits: r.splits };
  };
}
