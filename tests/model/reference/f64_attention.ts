/**
 * Float64 attention pieces of the reference forward, from HF `modeling_llama.py` (shared by the
 * Mistral, Qwen2 and Qwen3 files): `apply_rotary_pos_emb` with `rotate_half`, `repeat_kv`, and
 * `eager_attention_forward` with the causal mask and `scaling = head_dim^-0.5`.
 *
 * @module
 */

/** Attention shape. */
export interface AttentionShape {
  /** Query heads. */
  readonly heads: number;
  /** KV heads (`heads` is a multiple). */
  readonly kvHeads: number;
  /** Head dimension (even). */
  readonly headDim: number;
}

/**
 * Rotates each head of each row in place, row `t` at position `t` (prefill from 0), the HF way:
 * `x * cos + rotate_half(x) * sin` with `cos = cat(cos(t f), cos(t f))`, `rotate_half(x) =
 * cat(-x2, x1)`, i.e. the pair `(x[i], x[i + d/2])` turns by `t * invFreq[i]` (halves, not
 * interleaved pairs).
 *
 * @param x rows `[tokens, heads * headDim]`, changed in place
 * @param o `heads`, `headDim` and `invFreq` (`headDim / 2` values)
 * @returns `x`
 * @throws {TypeError} when `invFreq` does not have `headDim / 2` values
 * @example
 * ```ts
 * import { applyRope } from "./f64_attention.ts";
 * const x = applyRope(Float64Array.of(1, 0, 1, 0), { heads: 1, headDim: 2, invFreq: Float64Array.of(Math.PI / 2) });
 * if (Math.abs(x[3]! - 1) > 1e-15 || Math.abs(x[2]!) > 1e-15) throw new Error();
 * ```
 */
export function applyRope(
  x: Float64Array,
  o: { heads: number; headDim: number; invFreq: Float64Array },
): Float64Array {
  const half = o.headDim / 2;
  if (o.invFreq.length !== half) {
    throw new TypeError(
      `Cannot apply RoPE: ${o.invFreq.length} frequencies for head_dim ${o.headDim}`,
    );
  }
  const width = o.heads * o.headDim;
  for (let t = 0; t < x.length / width; t++) {
    for (let i = 0; i < half; i++) {
      const c = Math.cos(t * o.invFreq[i]!);
      const s = Math.sin(t * o.invFreq[i]!);
      for (let h = 0; h < o.heads; h++) {
        const a = t * width + h * o.headDim + i;
        const x1 = x[a]!;
        const x2 = x[a + half]!;
        x[a] = x1 * c - x2 * s;
        x[a + half] = x2 * c + x1 * s;
      }
    }
  }
  return x;
}

/**
 * Causal softmax attention with grouped KV heads: query head `h` reads KV head
 * `floor(h / (heads / kvHeads))` (`repeat_kv` repeats each KV head for consecutive query heads).
 *
 * @param q rows `[tokens, heads * headDim]` (after RoPE)
 * @param o `k`, `v` (rows `[tokens, kvHeads * headDim]`, `k` after RoPE) and the shape
 * @returns rows `[tokens, heads * headDim]` (heads concatenated, as `o_proj` reads them)
 * @throws {TypeError} when `heads` is not a multiple of `kvHeads`
 * @example
 * ```ts
 * import { causalAttention } from "./f64_attention.ts";
 * const y = causalAttention(Float64Array.of(0, 0), {
 *   k: Float64Array.of(0, 0), v: Float64Array.of(2, 4), heads: 1, kvHeads: 1, headDim: 1 });
 * if (y[1] !== 3) throw new Error();
 * ```
 */
export function causalAttention(
  q: Float64Array,
  o: AttentionShape & { k: Float64Array; v: Float64Array },
): Float64Array {
  const { heads, kvHeads, headDim: d } = o;
  if (heads % kvHeads !== 0) {
    throw new TypeError(`Cannot attend: ${heads} heads over ${kvHeads} KV heads`);
  }
  const group = heads / kvHeads;
  const qw = heads * d;
  const kw = kvHeads * d;
  const tokens = q.length / qw;
  const scale = 1 / Math.sqrt(d);
  const out = new Float64Array(q.length);
  const p = new Float64Array(tokens);
  for (let h = 0; h < heads; h++) {
    const kh = Math.floor(h / group);
    for (let t = 0; t < tokens; t++) {
      let max = -Infinity;
      for (let j = 0; j <= t; j++) {
        let s = 0;
        for (let i = 0; i < d; i++) s += q[t * qw + h * d + i]! * o.k[j * kw + kh * d + i]!;
        p[j] = s * scale;
        max = Math.max(max, p[j]!);
      }
      let sum = 0;
      for (let j = 0; j <= t; j++) sum += p[j] = Math.exp(p[j]! - max);
      for (let j = 0; j <= t; j++) {
        const w = p[j]! / sum;
        const at = t * qw + h * d;
        for (let i = 0; i < d; i++) out[at + i] = out[at + i]! + w * o.v[j * kw + kh * d + i]!;
      }
    }
  }
  return out;
}
