/**
 * An independent float64 forward pass of a Llama / Mistral / Qwen2 / Qwen3 / Qwen3-MoE decoder,
 * written from HF Transformers' model definitions (`modeling_llama.py`, `modeling_mistral.py`,
 * `modeling_qwen2.py`, `modeling_qwen3.py`, `modeling_qwen3_moe.py`, `modeling_rope_utils.py`)
 * and nothing of bitaudit's `src/`. Weights are the checkpoint's BF16 values decoded exactly;
 * every activation stays in float64. It exists to catch wrong wiring in the bit-exact emulator
 * (RoPE variant and theta, head mapping, norm placement, biases, routing), which agreement of
 * the emulator with itself cannot.
 *
 * Per decoder layer (HF `*DecoderLayer.forward`):
 * `x += o_proj(attn(rope(qk_norm(q_proj(n))), rope(qk_norm(k_proj(n))), v_proj(n)))` with
 * `n = input_layernorm(x)`, then `x += mlp(post_attention_layernorm(x))`; the output is
 * `model.norm(x)`.
 *
 * @module
 */
import { applyRope, causalAttention } from "./f64_attention.ts";
import { type FamilySpec, familySpec } from "./family_f64.ts";
import { gatedMlp, type GatedMlpWeights, linearRows, rmsNormRows } from "./f64_ops.ts";
import { moeBlock, type Route } from "./f64_moe.ts";

/** Reads a tensor by HF name, decoded to float64 (e.g. `bf16ToF64` of the checkpoint's bits). */
export type TensorReader = (name: string) => Float64Array;

/** Diagnostics of {@link referenceForward}. */
export interface ReferenceForwardOptions {
  /** Called with each MoE routing decision (layer, token position, route). */
  readonly onRoute?: (layer: number, token: number, route: Route) => void;
  /**
   * Edits the decoder description read from the config before the run: tests inject wiring
   * mistakes a config cannot express with it (e.g. `qkNorm: false` on a Qwen3-MoE).
   */
  readonly adjust?: (spec: FamilySpec) => FamilySpec;
}

/**
 * Runs the float64 forward of one sequence, prefilled from position 0.
 *
 * @param config the parsed `config.json` (`model_type` llama, mistral, qwen2, qwen3, qwen3_moe)
 * @param tensor reads a tensor by HF name as float64 (weights `[out, in]`)
 * @param tokens token ids of the sequence
 * @param options diagnostics ({@link ReferenceForwardOptions})
 * @returns the final-norm hidden states, float64 `[tokens, hidden]`
 * @throws {TypeError} on a tensor of the wrong size or a bad config
 * @throws {RangeError} on an unmodelled config, an empty sequence, a token id outside the
 *   vocabulary, or a sequence longer than a sliding window the config applies
 * @example
 * ```ts
 * import { referenceForward } from "./f64_forward.ts";
 * import { synthFamilyWeights, tensorReader } from "./synth_weights.ts";
 * const config = { model_type: "llama", vocab_size: 16, hidden_size: 64, intermediate_size: 96,
 *   num_hidden_layers: 1, num_attention_heads: 4, num_key_value_heads: 2 };
 * const h = referenceForward(config, tensorReader(synthFamilyWeights(config, { seed: "doc" })), [1, 2]);
 * if (h.length !== 2 * 64) throw new Error();
 * ```
 */
export function referenceForward(
  config: unknown,
  tensor: TensorReader,
  tokens: readonly number[],
  options: ReferenceForwardOptions = {},
): Float64Array {
  const described = familySpec(config);
  const s = options.adjust?.(described) ?? described;
  if (tokens.length === 0) throw new RangeError("Cannot run the reference: no tokens");
  if (tokens.length > s.maxTokens) {
    throw new RangeError(
      `Cannot run the reference: ${tokens.length} tokens exceed the sliding window ${s.maxTokens}`,
    );
  }
  const read = _checkedReader(tensor);
  const h = s.hidden;
  const embed = read("model.embed_tokens.weight", s.vocab * h);
  const x = new Float64Array(tokens.length * h);
  tokens.forEach((id, t) => {
    if (!Number.isInteger(id) || id < 0 || id >= s.vocab) {
      throw new RangeError(`Cannot run the reference: token id ${id} is outside 0..${s.vocab - 1}`);
    }
    x.set(embed.subarray(id * h, (id + 1) * h), t * h);
  });
  for (let l = 0; l < s.layers; l++) {
    const p = `model.layers.${l}.`;
    const attn = _attention(s, read, p, rmsNormRows(x, _norm(s, read, `${p}input_layernorm`)));
    for (let i = 0; i < x.length; i++) x[i] = x[i]! + attn[i]!;
    const n = rmsNormRows(x, _norm(s, read, `${p}post_attention_layernorm`));
    const mlp = s.moe !== null && s.moe.sparse[l] === true
      ? moeBlock(n, {
        hidden: h,
        gate: read(`${p}mlp.gate.weight`, s.moe.experts * h),
        expert: (e) =>
          _mlpWeights(read, `${p}mlp.experts.${e}.`, h * s.moe!.intermediate, false, h),
        topK: s.moe.topK,
        normTopkProb: s.moe.normTopkProb,
        onRoute: (t, r) => options.onRoute?.(l, t, r),
      })
      : gatedMlp(n, {
        w: _mlpWeights(read, `${p}mlp.`, h * s.intermediate, s.mlpBias, h),
        hidden: h,
      });
    for (let i = 0; i < x.length; i++) x[i] = x[i]! + mlp[i]!;
  }
  return rmsNormRows(x, _norm(s, read, "model.norm"));
}

type _Read = (name: string, length: number) => Float64Array;

function _checkedReader(tensor: TensorReader): _Read {
  return (name, length) => {
    const a = tensor(name);
    if (!(a instanceof Float64Array) || a.length !== length) {
      throw new TypeError(
        `Cannot run the reference: tensor "${name}" has ${a?.length} values, expected ${length}`,
      );
    }
    return a;
  };
}

function _norm(s: FamilySpec, read: _Read, prefix: string): { w: Float64Array; eps: number } {
  return { w: read(`${prefix}.weight`, s.hidden), eps: s.eps };
}

/** HF `*Attention.forward` (prefill, causal, no cache). */
function _attention(s: FamilySpec, read: _Read, p: string, n: Float64Array): Float64Array {
  const h = s.hidden;
  const d = s.headDim;
  const proj = (name: string, heads: number) =>
    linearRows(n, {
      w: read(`${p}self_attn.${name}_proj.weight`, heads * d * h),
      out: heads * d,
      b: s.qkvBias ? read(`${p}self_attn.${name}_proj.bias`, heads * d) : undefined,
    });
  let q = proj("q", s.heads);
  let k = proj("k", s.kvHeads);
  const v = proj("v", s.kvHeads);
  if (s.qkNorm) {
    // Qwen3: RMSNorm over each head's head_dim values, before RoPE.
    q = rmsNormRows(q, { w: read(`${p}self_attn.q_norm.weight`, d), eps: s.eps });
    k = rmsNormRows(k, { w: read(`${p}self_attn.k_norm.weight`, d), eps: s.eps });
  }
  applyRope(q, { heads: s.heads, headDim: d, invFreq: s.invFreq });
  applyRope(k, { heads: s.kvHeads, headDim: d, invFreq: s.invFreq });
  const a = causalAttention(q, { k, v, heads: s.heads, kvHeads: s.kvHeads, headDim: d });
  return linearRows(a, {
    w: read(`${p}self_attn.o_proj.weight`, h * s.heads * d),
    out: h,
    b: s.oBias ? read(`${p}self_attn.o_proj.bias`, h) : undefined,
  });
}

function _mlpWeights(
  read: _Read,
  p: string,
  fh: number,
  bias: boolean,
  h: number,
): GatedMlpWeights {
  const f = fh / h;
  return {
    gate: read(`${p}gate_proj.weight`, fh),
    up: read(`${p}up_proj.weight`, fh),
    down: read(`${p}down_proj.weight`, fh),
    gateBias: bias ? read(`${p}gate_proj.bias`, f) : undefined,
    upBias: bias ? read(`${p}up_proj.bias`, f) : undefined,
    downBias: bias ? read(`${p}down_proj.bias`, h) : undefined,
  };
}
