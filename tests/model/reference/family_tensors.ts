/**
 * The tensors a family's checkpoint holds, named as HF Transformers names them in
 * `model.safetensors` (the `state_dict` of `*ForCausalLM`), with their shapes (`nn.Linear` weights
 * are `[out_features, in_features]`). Transformers 5 fuses the experts into `gate_up_proj`
 * in memory, but converts from (and saves to) these per-expert names.
 *
 * @module
 */
import type { FamilySpec } from "./family_f64.ts";

/** A tensor's name and shape. */
export interface TensorShape {
  /** HF name, e.g. `model.layers.0.self_attn.q_proj.weight`. */
  readonly name: string;
  /** Dimensions, outermost first. */
  readonly shape: readonly number[];
}

/**
 * Every tensor of a checkpoint of the spec, in a fixed order.
 *
 * @param s the family spec
 * @returns names and shapes; `lm_head.weight` only when the embeddings are not tied
 * @example
 * ```ts
 * import { familySpec } from "./family_f64.ts";
 * import { familyTensorShapes } from "./family_tensors.ts";
 * const s = familySpec({ model_type: "llama", vocab_size: 8, hidden_size: 64, intermediate_size: 128,
 *   num_hidden_layers: 1, num_attention_heads: 4, tie_word_embeddings: true });
 * if (familyTensorShapes(s).some((t) => t.name === "lm_head.weight")) throw new Error();
 * ```
 */
export function familyTensorShapes(s: FamilySpec): TensorShape[] {
  const h = s.hidden;
  const q = s.heads * s.headDim;
  const kv = s.kvHeads * s.headDim;
  const out: TensorShape[] = [{ name: "model.embed_tokens.weight", shape: [s.vocab, h] }];
  const add = (name: string, ...shape: number[]) => out.push({ name, shape });
  for (let i = 0; i < s.layers; i++) {
    const p = `model.layers.${i}.`;
    add(`${p}input_layernorm.weight`, h);
    for (const [proj, n] of [["q", q], ["k", kv], ["v", kv]] as const) {
      add(`${p}self_attn.${proj}_proj.weight`, n, h);
      if (s.qkvBias) add(`${p}self_attn.${proj}_proj.bias`, n);
    }
    add(`${p}self_attn.o_proj.weight`, h, q);
    if (s.oBias) add(`${p}self_attn.o_proj.bias`, h);
    if (s.qkNorm) {
      add(`${p}self_attn.q_norm.weight`, s.headDim);
      add(`${p}self_attn.k_norm.weight`, s.headDim);
    }
    add(`${p}post_attention_layernorm.weight`, h);
    if (s.moe !== null && s.moe.sparse[i] === true) {
      add(`${p}mlp.gate.weight`, s.moe.experts, h);
      for (let e = 0; e < s.moe.experts; e++) {
        _mlp(add, `${p}mlp.experts.${e}.`, h, s.moe.intermediate);
      }
    } else {
      _mlp(add, `${p}mlp.`, h, s.intermediate, s.mlpBias);
    }
  }
  add("model.norm.weight", h);
  if (!s.tiedEmbeddings) add("lm_head.weight", s.vocab, h);
  return out;
}

function _mlp(
  add: (name: string, ...shape: number[]) => void,
  p: string,
  h: number,
  f: number,
  bias = false,
): void {
  add(`${p}gate_proj.weight`, f, h);
  if (bias) add(`${p}gate_proj.bias`, f);
  add(`${p}up_proj.weight`, f, h);
  if (bias) add(`${p}up_proj.bias`, f);
  add(`${p}down_proj.weight`, h, f);
  if (bias) add(`${p}down_proj.bias`, h);
}
