/**
 * `vllmRotaryEmbedding`: vLLM's CUDA `rotary_embedding` op (`RotaryEmbedding.forward_cuda`,
 * in place on BF16 q or k with the BF16 cache) bit for bit.
 *
 * Source: vllm-project/vllm commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main):
 * `vllm/model_executor/layers/rotary_embedding/base.py:113-133` (`forward_cuda` casts the cache to
 * q's dtype, a no-op for the BF16 cache, and calls `ops.rotary_embedding(positions, q, k,
 * head_size, cos_sin_cache, is_neox)`), and `csrc/pos_encoding_kernels.cu`:
 * - :76-100 `rotary_embedding_kernel`: one block per token, cache row `cos_sin_cache + pos *
 *   rot_dim`, cos at `[0, rot_dim/2)`, sin at `[rot_dim/2, rot_dim)` (:49-51);
 * - :53-73: every head and every `rot_offset < rot_dim/2` of q (then k) once;
 * - :10-34 `apply_token_rotary_embedding`: neox pairs `(rot_offset, rot_dim/2 + rot_offset)`,
 *   GPT-J pairs `(2 rot_offset, 2 rot_offset + 1)`, both with cos/sin entry `rot_offset`;
 *   `arr[x] = x * cos - y * sin; arr[y] = y * cos + x * sin` with `scalar_t` = c10::BFloat16: each
 *   product is a BF16 (FP32 product, rounded: c10's operators return BFloat16), the difference or
 *   sum an FP32 add of two BF16 values rounded once more. Elements from `rot_dim` to `head_size`
 *   are left as they are.
 * - :104-181 launch: `rot_dim = cos_sin_cache.size(1)`, one block per token; the block size only
 *   spreads independent pairs over threads.
 *
 * For neox with `rot_dim == head_size` this is HF's rotate-half `q * cos + rotate_half(q) * sin`
 * with BF16 products (`applyRope`): `bf16(x c) - bf16(y s)` equals `bf16(x c) + bf16((-y) s)` bit
 * for bit, and HF's second-half cos/sin repeat the first half; a test checks the two agree.
 *
 * Evidence: derived from source only; never compared with a GPU.
 *
 * @module
 */
import { F32_RN } from "../../hardware/mod.ts";
import { fp32ToBf16 } from "../../numerics/mod.ts";
import type { VllmCosSinCache } from "./vllm_rope_cache.ts";

/** Options of {@link vllmRotaryEmbedding}. */
export interface VllmRotaryEmbeddingOptions {
  /** The cache (`vllmCosSinCache`). */
  readonly cache: VllmCosSinCache;
  /** Heads per token (q: `num_heads`, k: `num_kv_heads`). */
  readonly heads: number;
  /** `head_size` (at least the cache's `rotaryDim`). */
  readonly headSize: number;
  /** The cache row of each token (default: token t uses row t). */
  readonly rows?: readonly number[];
  /** GPT-NeoX pairing (Qwen3, Llama; default true) or GPT-J interleaved pairs (false). */
  readonly neox?: boolean;
}

/**
 * Rotates BF16 [tokens, heads, headSize] activations as the CUDA kernel does (returning a new
 * array instead of writing in place).
 *
 * @param x BF16 patterns, row-major [tokens, heads, headSize]
 * @param options cache, heads, head size, row per token, pairing style
 * @returns the rotated BF16 patterns (same layout)
 * @throws {RangeError} when the shapes disagree or a row index is outside the cache
 * @example
 * ```ts
 * import { vllmRotaryEmbedding } from "./vllm_rotary_embedding.ts";
 * import { vllmCosSinCache } from "./vllm_rope_cache.ts";
 * const cache = vllmCosSinCache(new Uint32Array([0x3f800000]), [0]); // position 0: identity
 * const y = vllmRotaryEmbedding(new Uint16Array([0x3fc0, 0xc000]), { cache, heads: 1, headSize: 2 });
 * if (y[0] !== 0x3fc0 || y[1] !== 0xc000) throw new Error();
 * ```
 */
export function vllmRotaryEmbedding(
  x: Uint16Array,
  options: VllmRotaryEmbeddingOptions,
): Uint16Array {
  const { cache, heads, headSize } = options;
  const rotDim = cache.rotaryDim;
  const embed = rotDim / 2;
  const cacheRows = cache.data.length / rotDim;
  if (!Number.isInteger(heads) || heads < 1 || !Number.isInteger(headSize) || headSize < rotDim) {
    throw new RangeError(
      `Cannot apply RoPE: ${heads} heads of size ${headSize} for rotary_dim ${rotDim}`,
    );
  }
  if (x.length % (heads * headSize) !== 0) {
    throw new RangeError(
      `Cannot apply RoPE: ${x.length} values are not rows of ${heads} x ${headSize}`,
    );
  }
  const tokens = x.length / (heads * headSize);
  const rows = options.rows ?? Array.from({ length: tokens }, (_, t) => t);
  if (rows.length !== tokens) {
    throw new RangeError(`Cannot apply RoPE: ${rows.length} cache rows for ${tokens} tokens`);
  }
  const neox = options.neox ?? true;
  const out = x.slice();
  for (let t = 0; t < tokens; t++) {
    const row = rows[t]!;
    if (!Number.isInteger(row) || row < 0 || row >= cacheRows) {
      throw new RangeError(`Cannot apply RoPE: cache row ${row} outside 0..${cacheRows - 1}`);
    }
    const c0 = row * rotDim;
    for (let h = 0; h < heads; h++) {
      const base = (t * heads + h) * headSize;
      for (let r = 0; r < embed; r++) {
        const xi = base + (neox ? r : 2 * r);
        const yi = base + (neox ? embed + r : 2 * r + 1);
        const cos = cache.data[c0 + r]!;
        const sin = cache.data[c0 + embed + r]!;
        const xv = x[xi]!;
        const yv = x[yi]!;
        out[xi] = _sub(_mul(xv, cos), _mul(yv, sin));
        out[yi] = _add(_mul(yv, cos), _mul(xv, sin));
      }
    }
  }
  return out;
}

/** c10 `BFloat16 * BFloat16`: the FP32 product (exact unless it underflows), rounded to BF16. */
function _mul(a: number, b: number): number {
  return fp32ToBf16(F32_RN.mul((a << 16) >>> 0, (b << 16) >>> 0));
}

/** c10 `BFloat16 + BFloat16`: FP32 sum, rounded to BF16. */
function _add(a: number, b: number): number {
  return fp32ToBf16(F32_RN.add((a << 16) >>> 0, (b << 16) >>> 0));
}

/** c10 `BFloat16 - BFloat16`: FP32 difference (`add` of the negated operand), rounded to BF16. */
function _sub(a: number, b: number): number {
  return fp32ToBf16(F32_RN.add((a << 16) >>> 0, ((b ^ 0x8000) << 16) >>> 0));
}
