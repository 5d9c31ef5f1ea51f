/**
 * The tensors a Qwen3 / Qwen3-MoE checkpoint holds, by their Hugging Face names and shapes (HF
 * `Qwen3ForCausalLM` / `Qwen3MoeForCausalLM` state dicts, 4.5x ModuleList experts):
 * ```
 * model.embed_tokens.weight                      [vocab, H]
 * model.layers.N.input_layernorm.weight          [H]
 * model.layers.N.self_attn.{q,k,v,o}_proj.weight [heads*d, H] [kv*d, H] [kv*d, H] [H, heads*d]
 * model.layers.N.self_attn.{q,k}_norm.weight     [d]
 * model.layers.N.post_attention_layernorm.weight [H]
 * model.layers.N.mlp.{gate,up,down}_proj.weight  [I, H] [I, H] [H, I]          (dense layers)
 * model.layers.N.mlp.gate.weight                 [E, H]                        (MoE router)
 * model.layers.N.mlp.experts.E.{gate,up,down}_proj.weight [Im, H] [Im, H] [H, Im]
 * model.norm.weight                              [H]
 * lm_head.weight                                 [vocab, H]  (absent or ignored when tied)
 * ```
 *
 * @module
 */
import { isMoeLayer, type Qwen3Config } from "./qwen3_config.ts";

/**
 * Name prefix of decoder layer `layer`.
 *
 * @param layer layer index
 * @returns e.g. `model.layers.3.`
 * @example
 * ```ts
 * import { layerPrefix } from "./qwen3_tensors.ts";
 * if (layerPrefix(3) !== "model.layers.3.") throw new Error();
 * ```
 */
export function layerPrefix(layer: number): string {
  return `model.layers.${layer}.`;
}

/**
 * Every tensor the config requires, name -> shape, in a stable order (embedding, layers in order,
 * final norm, LM head unless tied).
 *
 * @param config the config
 * @returns the required tensors
 * @example
 * ```ts
 * import { qwen3TensorShapes } from "./qwen3_tensors.ts";
 * import { parseQwen3Config } from "./qwen3_config.ts";
 * const c = parseQwen3Config({ model_type: "qwen3", vocab_size: 8, hidden_size: 256,
 *   intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1,
 *   head_dim: 128, tie_word_embeddings: true });
 * const s = qwen3TensorShapes(c);
 * if (s.size !== 13 || s.get("model.layers.0.self_attn.k_proj.weight")!.join() !== "128,256") {
 *   throw new Error();
 * }
 * ```
 */
export function qwen3TensorShapes(config: Qwen3Config): Map<string, readonly number[]> {
  const { vocab, hidden: h } = config;
  const out = new Map<string, readonly number[]>();
  out.set("model.embed_tokens.weight", [vocab, h]);
  for (let i = 0; i < config.layers; i++) {
    for (const [name, shape] of layerTensorShapes(config, i)) out.set(name, shape);
  }
  out.set("model.norm.weight", [h]);
  if (!config.tieWordEmbeddings) out.set("lm_head.weight", [vocab, h]);
  return out;
}

/**
 * The tensors of one decoder layer, name -> shape.
 *
 * @param config the config
 * @param layer layer index
 * @returns the layer's tensors
 * @example
 * ```ts ignore
 * const shapes = layerTensorShapes(config, 0);
 * ```
 */
export function layerTensorShapes(
  config: Qwen3Config,
  layer: number,
): Map<string, readonly number[]> {
  const { hidden: h, heads, kvHeads, headDim: d } = config;
  const p = layerPrefix(layer);
  const out = new Map<string, readonly number[]>([
    [`${p}input_layernorm.weight`, [h]],
    [`${p}self_attn.q_proj.weight`, [heads * d, h]],
    [`${p}self_attn.k_proj.weight`, [kvHeads * d, h]],
    [`${p}self_attn.v_proj.weight`, [kvHeads * d, h]],
    [`${p}self_attn.o_proj.weight`, [h, heads * d]],
    [`${p}self_attn.q_norm.weight`, [d]],
    [`${p}self_attn.k_norm.weight`, [d]],
    [`${p}post_attention_layernorm.weight`, [h]],
  ]);
  const moe = config.moe;
  if (moe !== undefined && isMoeLayer(config, layer)) {
    out.set(`${p}mlp.gate.weight`, [moe.experts, h]);
    for (let e = 0; e < moe.experts; e++) {
      const q = `${p}mlp.experts.${e}.`;
      out.set(`${q}gate_proj.weight`, [moe.intermediate, h]);
      out.set(`${q}up_proj.weight`, [moe.intermediate, h]);
      out.set(`${q}down_proj.weight`, [h, moe.intermediate]);
    }
  } else {
    const f = config.intermediate;
    out.set(`${p}mlp.gate_proj.weight`, [f, h]);
    out.set(`${p}mlp.up_proj.weight`, [f, h]);
    out.set(`${p}mlp.down_proj.weight`, [h, f]);
  }
  return out;
}
