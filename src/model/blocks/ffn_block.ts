/**
 * The FFN block of a dense decoder layer as HF Transformers runs it on CUDA (spec `model.md` §2,
 * `stack_pytorch_hf.md` §1.1, §1.6): post-attention RMSNorm, gate and up projections, SiLU of the
 * gate, the BF16 gate product, the down projection and the residual add. It runs the one decoder
 * layer's MLP sublayer (`denseMlpSublayer`) and returns every intermediate the layer reports, for
 * comparison with a GPU capture.
 *
 * @module
 */
import type { GemmResult, RmsNormResult } from "../../kernels/mod.ts";
import { type BlockRuntime, denseMlpSublayer } from "../decoder/mod.ts";
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

/** Weights of the FFN block (BF16 patterns, HF layouts). */
export interface FfnBlockWeights {
  /** `post_attention_layernorm.weight` [hidden]. */
  readonly norm: Uint16Array;
  /** `mlp.gate_proj.weight` [intermediate, hidden]. */
  readonly gate: Uint16Array;
  /** `mlp.up_proj.weight` [intermediate, hidden]. */
  readonly up: Uint16Array;
  /** `mlp.down_proj.weight` [hidden, intermediate]. */
  readonly down: Uint16Array;
}

/** A planned FFN block: every kernel fixed and the SFU functions accepted. */
export interface FfnBlockPlan extends BlockPlanBase {
  /** Layer sizes. */
  readonly shape: DenseLayerShape;
  /** `rms_norm_eps` as the Python float. */
  readonly eps: number;
  /** SFU functions the block depends on (RMSNorm rsqrt, SiLU's expf ex2). */
  readonly sfu: readonly SfuUse[];
}

/** Every intermediate of the FFN block. */
export interface FfnBlockResult {
  /** RMSNorm output and its FP32 per-row stages. */
  readonly norm: RmsNormResult;
  /** gate_proj [tokens, intermediate]. */
  readonly gate: GemmResult;
  /** up_proj [tokens, intermediate]. */
  readonly up: GemmResult;
  /** `bf16(silu(gate))`. */
  readonly act: Uint16Array;
  /** `bf16(act * up)`: the down projection's input. */
  readonly downInput: Uint16Array;
  /** down_proj [tokens, hidden]. */
  readonly down: GemmResult;
  /** Block output `bf16(x + down)` [tokens, hidden]. */
  readonly out: Uint16Array;
  /** SFU functions used, with their validation status. */
  readonly sfu: readonly SfuUse[];
}

/**
 * Fixes every kernel of the FFN block for a token count, or says why it cannot be emulated
 * (stack without an operators section, uncovered GEMM shape, SFU mode or status the stack does
 * not accept). Cheap: no tensor is touched.
 *
 * @param tokens rows of the block input
 * @param options layer shape, runtime, eps (default 1e-6)
 * @returns the plan or the reason
 * @throws {RangeError} on an invalid shape or token count
 * @example
 * ```ts ignore
 * const r = planFfnBlock(256, { shape: QWEN3_4B_LAYER, runtime });
 * if (!r.supported) console.log("NOT_VERIFIED:", r.reason);
 * ```
 */
export function planFfnBlock(
  tokens: number,
  options: {
    readonly shape: DenseLayerShape;
    readonly runtime: BlockRuntime;
    readonly eps?: number;
  },
): BlockSupport<FfnBlockPlan> {
  const shape = checkDenseLayerShape(options.shape);
  const { runtime } = options;
  return _supportOf(() => {
    const base = planBase(runtime, { tokens, shape, sublayer: "mlp" });
    // RMSNorm's rsqrtf, SiLU's expf (MUFU.EX2).
    const sfu = checkSfuUsage(runtime.sfu, {
      stack: runtime.stack,
      functions: ["rsqrt", "ex2"],
      computeCapability: runtime.profile.computeCapability,
    });
    if (!sfu.ok) throw new _Unsupported(sfu.reason);
    return Object.freeze({ ...base, shape, eps: options.eps ?? 1e-6, sfu: sfu.used });
  });
}

/**
 * Runs a planned FFN block on BF16 input x [tokens, hidden].
 *
 * @param x block input (the residual stream), BF16 patterns
 * @param options the plan, the runtime it was made with, the weights
 * @returns every intermediate and the block output
 * @throws {TypeError} when x or a weight has the wrong length
 * @example
 * ```ts ignore
 * const r = await runFfnBlock(x, { plan, runtime, weights });
 * sha256(r.out);
 * ```
 */
export async function runFfnBlock(
  x: Uint16Array,
  options: {
    readonly plan: FfnBlockPlan;
    readonly runtime: BlockRuntime;
    readonly weights: FfnBlockWeights;
  },
): Promise<FfnBlockResult> {
  const { plan, weights: w } = options;
  const { out, seen } = await runBlockSublayer(x, {
    ...options,
    sublayer: "mlp",
    tensors: [
      ["norm", "post_attention_layernorm.weight", w.norm],
      ["gate", "mlp.gate_proj.weight", w.gate],
      ["up", "mlp.up_proj.weight", w.up],
      ["down", "mlp.down_proj.weight", w.down],
    ],
    run: (ctx, t) => denseMlpSublayer(x, { ctx, t }),
  });
  return {
    norm: seen.norm("post_attention_layernorm"),
    gate: seen.linear("gate_proj"),
    up: seen.linear("up_proj"),
    act: seen.tensor("act"),
    downInput: seen.tensor("down_input"),
    down: seen.linear("down_proj"),
    out,
    sfu: plan.sfu,
  };
}
