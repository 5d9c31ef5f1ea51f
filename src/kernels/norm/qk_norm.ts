/**
 * Qwen3 QK-norm (`q_norm` / `k_norm`): RMSNorm of every head vector (ops.md §2).
 *
 * @module
 */
import { rmsNorm, type RmsNormOptions, type RmsNormResult } from "./rms_norm.ts";

/** Options of {@link qkNorm}: {@link RmsNormOptions} with the tensor given as tokens x heads. */
export interface QkNormOptions extends Omit<RmsNormOptions, "rows" | "hidden" | "launchRows"> {
  /** Tokens (batch x sequence positions). */
  readonly tokens: number;
  /** Heads (32 query or 8 key-value heads for Qwen3-4B). */
  readonly heads: number;
  /** Head dimension (128 for Qwen3); `weight` has this many BF16 values. */
  readonly headDim?: number;
  /** Tokens of the whole tensor on the GPU when `x` holds only some (default `tokens`). */
  readonly launchTokens?: number;
}

/**
 * Normalises a BF16 [tokens, heads, headDim] tensor per head vector with one shared weight.
 *
 * The HF module reduces the contiguous `[B, S, heads, 128]` view row-wise, so the reduce kernel
 * sees `num_outputs = tokens * heads` rows of 128 (stack_pytorch_hf.md §1.1), which fixes the
 * block shape (width 32 for every token count with the recent stack; the reference emulator's
 * `num_outputs = tokens` was wrong for fewer than 16 rows, gaps.md B.3), and the mean factor is
 * `float(tokens * heads) / numel` = 1/128 exactly.
 *
 * @param x BF16 patterns, [tokens, heads, headDim] row-major
 * @param options tokens, heads, headDim (default 128), weight, SFU, stack, eps (default 1e-6)
 * @returns the {@link RmsNormResult} with one row per (token, head)
 * @throws {TypeError} when `x` or `weight` have the wrong length
 * @throws {RangeError} on bad sizes
 * @example
 * ```ts
 * import { qkNorm } from "./qk_norm.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * import { REDUCE_STACK_CUDA_RECENT as stack } from "../reduce/mod.ts";
 * const x = new Uint16Array(2 * 8 * 128).fill(0x3f80); // ones
 * const weight = new Uint16Array(128).fill(0x3f80);
 * const r = qkNorm(x, { tokens: 2, heads: 8, weight, sfu: createSfu({ mode: "ieee" }), stack });
 * if (r.sumsq.length !== 16 || r.sumsq[5] !== 0x43000000 || r.factor !== 0x3c000000) {
 *   throw new Error();
 * }
 * ```
 */
export function qkNorm(x: Uint16Array, options: QkNormOptions): RmsNormResult {
  const { tokens, heads, headDim = 128, launchTokens = tokens, ...rest } = options;
  for (const [k, v] of [["tokens", tokens], ["heads", heads], ["headDim", headDim]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) {
      throw new RangeError(`Cannot apply QK-norm: '${k}' must be a positive integer, got ${v}`);
    }
  }
  return rmsNorm(x, {
    ...rest,
    rows: tokens * heads,
    hidden: headDim,
    launchRows: launchTokens * heads,
  });
}
