/**
 * The shape of one dense decoder layer (Qwen3-style: RMSNorm, GQA attention with QK-norm and
 * RoPE, gated SiLU FFN, no biases), the Qwen3-4B values (spec `model.md` §1), and the layer
 * description the one decoder layer runs from.
 *
 * @module
 */
import type { LayerConfig } from "../decoder/mod.ts";

/** Sizes of a dense decoder layer. */
export interface DenseLayerShape {
  /** Hidden size H (residual stream width). */
  readonly hidden: number;
  /** FFN intermediate size (gate/up output width, down input width). */
  readonly intermediate: number;
  /** Query heads. */
  readonly heads: number;
  /** Key-value heads (a divisor of `heads`). */
  readonly kvHeads: number;
  /** Head dimension (the attention kernel models 128). */
  readonly headDim: number;
}

/** Qwen3-4B: H 2560, FFN 9728, 32 query heads, 8 KV heads, head dim 128 (`model.md` §1). */
export const QWEN3_4B_LAYER: DenseLayerShape = Object.freeze({
  hidden: 2560,
  intermediate: 9728,
  heads: 32,
  kvHeads: 8,
  headDim: 128,
});

/**
 * Validates a layer shape.
 *
 * @param shape the sizes
 * @returns the same shape, frozen
 * @throws {RangeError} naming the bad field
 * @example
 * ```ts
 * import { checkDenseLayerShape, QWEN3_4B_LAYER } from "./layer_shape.ts";
 * checkDenseLayerShape(QWEN3_4B_LAYER);
 * let msg = "";
 * try { checkDenseLayerShape({ ...QWEN3_4B_LAYER, kvHeads: 5 }); } catch (e) { msg = String(e); }
 * if (!msg.includes("kvHeads")) throw new Error(msg);
 * ```
 */
export function checkDenseLayerShape(shape: DenseLayerShape): DenseLayerShape {
  for (const key of ["hidden", "intermediate", "heads", "kvHeads", "headDim"] as const) {
    const v = shape?.[key];
    if (!Number.isSafeInteger(v) || v < 1 || v > 1 << 20) {
      throw new RangeError(
        `Cannot use layer shape: '${key}' must be an integer in 1..2^20, got ${v}`,
      );
    }
  }
  if (shape.heads % shape.kvHeads !== 0) {
    throw new RangeError(
      `Cannot use layer shape: 'kvHeads' ${shape.kvHeads} does not divide heads ${shape.heads}`,
    );
  }
  if (shape.headDim % 2 !== 0) {
    throw new RangeError(`Cannot use layer shape: 'headDim' ${shape.headDim} is odd (RoPE halves)`);
  }
  return Object.freeze({ ...shape });
}

/** The biases of a Qwen3 layer: none (`attention_bias` false, no MLP bias). */
const _NO_BIAS = Object.freeze({ qkv: false, o: false, mlp: false });

/**
 * The one decoder layer's description of a dense Qwen3 layer of these sizes: QK-norm, no
 * biases, a dense MLP.
 *
 * @param shape the sizes (validated)
 * @returns the layer config
 * @example
 * ```ts
 * import { denseLayerConfig, QWEN3_4B_LAYER } from "./layer_shape.ts";
 * const c = denseLayerConfig(QWEN3_4B_LAYER);
 * if (!c.qkNorm || c.bias.qkv || c.moe !== undefined) throw new Error();
 * ```
 */
export function denseLayerConfig(shape: DenseLayerShape): LayerConfig {
  const { hidden, intermediate, heads, kvHeads, headDim } = shape;
  return Object.freeze({
    hidden,
    intermediate,
    heads,
    kvHeads,
    headDim,
    qkNorm: true,
    bias: _NO_BIAS,
  });
}
