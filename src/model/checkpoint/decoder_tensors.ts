/**
 * The tensors a decoder checkpoint holds, by their Hugging Face names and shapes (the
 * `*ForCausalLM` state dicts of every supported family, 4.5x ModuleList experts); which of them
 * exist follows from the config (QK-norm, biases, MoE layers, tied embeddings):
 * ```
 * model.embed_tokens.weight                      [vocab, H]
 * model.layers.N.input_layernorm.weight          [H]
 * model.layers.N.self_attn.{q,k,v,o}_proj.weight [heads*d, H] [kv*d, H] [kv*d, H] [H, heads*d]
 * model.layers.N.self_attn.{q,k,v}_proj.bias     [heads*d] [kv*d] [kv*d]       (q/k/v biases)
 * model.layers.N.self_attn.o_proj.bias           [H]                           (o bias)
 * model.layers.N.self_attn.{q,k}_norm.weight     [d]                           (QK-norm)
 * model.layers.N.post_attention_layernorm.weight [H]
 * model.layers.N.mlp.{gate,up,down}_proj.weight  [I, H] [I, H] [H, I]          (dense layers)
 * model.layers.N.mlp.{gate,up,down}_proj.bias    [I] [I] [H]                   (MLP biases)
 * model.layers.N.mlp.gate.weight                 [E, H]                        (MoE router)
 * model.layers.N.mlp.experts.E.{gate,up,down}_proj.weight [Im, H] [Im, H] [H, Im]
 * model.norm.weight                              [H]
 * lm_head.weight                                 [vocab, H]  (absent or ignored when tied)
 * ```
 *
 * @module
 */
import { type DecoderConfig, isMoeLayer } from "./decoder_config.ts";

/**
 * Name prefix of decoder layer `layer`.
 *
 * @param layer layer index
 * @returns e.g. `model.layers.3.`
 * @example
 * ```ts
 * import { layerPrefix } from "./decoder_tensors.ts";
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
 * import { decoderTensorShapes } from "./decoder_tensors.ts";
 * import { parseDecoderConfig } from "./decoder_config.ts";
 * const c = parseDecoderConfig({ model_type: "qwen3", vocab_size: 8, hidden_size: 256,
 *   intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1,
 *   head_dim: 128, tie_word_embeddings: true });
 * const s = decoderTensorShapes(c);
 * if (s.size !== 13 || s.get("model.layers.0.self_attn.k_proj.weight")!.join() !== "128,256") {
 *   throw new Error();
 * }
 * ```
 */
export function decoderTensorShapes(config: DecoderConfig): Map<string, readonly number[]> {
  return new Map(decoderTensorEntries(config));
}

/**
 * The tensors of {@link decoderTensorShapes} one at a time, a layer's at once: a reader that
 * compares them with a checkpoint's files stops at the first one missing, so a config that names
 * millions of tensors costs no more than the files hold.
 *
 * @param config the config
 * @returns name and shape of each required tensor, in the order of `decoderTensorShapes`
 * @example
 * ```ts ignore
 * for (const [name, shape] of decoderTensorEntries(config)) if (!has(name)) break;
 * ```
 */
export function* decoderTensorEntries(
  config: DecoderConfig,
): Generator<[string, readonly number[]]> {
  const { vocab, hidden: h } = config;
  yield ["model.embed_tokens.weight", [vocab, h]];
  for (let i = 0; i < config.layers; i++) yield* layerTensorShapes(config, i);
  yield ["model.norm.weight", [h]];
  if (!config.tieWordEmbeddings) yield ["lm_head.weight", [vocab, h]];
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
  config: DecoderConfig,
  layer: number,
): Map<string, readonly number[]> {
  const { hidden: h, heads, kvHeads, headDim: d, bias } = config;
  const p = layerPrefix(layer);
  const a = `${p}self_attn.`;
  const out = new Map<string, readonly number[]>([
    [`${p}input_layernorm.weight`, [h]],
    [`${a}q_proj.weight`, [heads * d, h]],
    [`${a}k_proj.weight`, [kvHeads * d, h]],
    [`${a}v_proj.weight`, [kvHeads * d, h]],
    [`${a}o_proj.weight`, [h, heads * d]],
  ]);
  if (bias.qkv) {
    out.set(`${a}q_proj.bias`, [heads * d]);
    out.set(`${a}k_proj.bias`, [kvHeads * d]);
    out.set(`${a}v_proj.bias`, [kvHeads * d]);
  }
  if (bias.o) out.set(`${a}o_proj.bias`, [h]);
  if (config.qkNorm) {
    out.set(`${a}q_norm.weight`, [d]);
    out.set(`${a}k_norm.weight`, [d]);
  }
  out.set(`${p}post_attention_layernorm.weight`, [h]);
  const moe = config.moe;
  if (moe !== undefined && isMoeLayer(config, layer)) {
    out.set(`${p}mlp.gate.weight`, [moe.experts, h]);
    for (let e = 0; e < moe.experts; e++) {
      _mlp(out, { prefix: `${p}mlp.experts.${e}.`, h, f: moe.intermediate, bias: bias.mlp });
    }
  } else {
    _mlp(out, { prefix: `${p}mlp.`, h, f: config.intermediate, bias: bias.mlp });
  }
  return out;
}

function _mlp(
  out: Map<string, readonly number[]>,
  o: { prefix: string; h: number; f: number; bias: boolean },
): void {
  const { prefix, h, f } = o;
  out.set(`${prefix}gate_proj.weight`, [f, h]);
  out.set(`${prefix}up_proj.weight`, [f, h]);
  out.set(`${prefix}down_proj.weight`, [h, f]);
  if (!o.bias) return;
  out.set(`${prefix}gate_proj.bias`, [f]);
  out.set(`${prefix}up_proj.bias`, [f]);
  out.set(`${prefix}down_proj.bias`, [h]);
}
