/**
 * Which tensors a checkpoint stores beyond its config's model that vLLM 0.11's loader provably
 * refuses, so that a record of a run that loaded them cannot be true.
 *
 * The families' `load_weights` at commit c3124680 (`vllm/model_executor/models/`): the
 * `*ForCausalLM` builds `AutoWeightsLoader` (`utils.py`), which drops names holding
 * `rotary_emb.inv_freq`, `rotary_emb.cos_cached` or `rotary_emb.sin_cached` (and `lm_head.` when
 * a dense Qwen config ties the head), hands every `model.` name to the inner model's
 * `load_weights` and raises `ValueError` ("There is no module or parameter named ...") for a
 * first component that is no child of the model. `Qwen2Model.load_weights` (which Qwen3 inherits)
 * and `Qwen3MoeModel.load_weights` skip a name holding `rotary_emb.inv_freq`, a `.bias` (Qwen3-MoE:
 * also `_bias` and the `k`/`v`/`weight`/`input` scale suffixes) absent from the model, a kv-scale
 * name `maybe_remap_kv_scale_name` cannot place, a layer of another pipeline stage, and (Qwen3-MoE)
 * a `q`/`k`/`v`/`gate`/`up_proj` shard name it cannot place and an expert name not on this rank;
 * any other name they look up in `params_dict` and raise `KeyError` for. Only names that none of
 * those skips can reach are read as refused here: nothing holding a fused shard's name or
 * `experts`, nothing ending in `bias` or `scale`, no `lm_head` name. Pipeline stages skip a layer
 * only on the stages that do not build it, so the stage that does raises.
 *
 * `LlamaForCausalLM` (which also runs Mistral, `registry.py`) first renames every name as a
 * Mistral-format one (`maybe_remap_mistral`: each module, or pair of modules, found in
 * `mistral_mapping` is replaced throughout the name, `norm` by `model.norm`, `output` by
 * `lm_head` and so on, unless the replacement is already in it), then loads as above
 * (`LlamaModel.load_weights`: the same skips, with the shard names matched with their leading dot,
 * and no lookup spared). A name that the renaming turns into one of the model's tensors is loaded
 * over it (the order of loading decides which runs): never read as refused; any other is read by
 * the rules above after the renaming (names of at most 1,024 characters; a longer one is never
 * read as refused).
 *
 * @module
 */
import type { DecoderConfig } from "./decoder_config.ts";
import { decoderTensorShapes } from "./decoder_tensors.ts";

/** The families whose vLLM 0.11 loader is read here. */
const _FAMILIES: ReadonlySet<string> = new Set(["qwen2", "qwen3", "qwen3_moe", "llama", "mistral"]);

/** The families whose vLLM 0.11 class is `LlamaForCausalLM` (which renames Mistral-format names). */
const _LLAMA_CLASS: ReadonlySet<string> = new Set(["llama", "mistral"]);

/** `LlamaForCausalLM.mistral_mapping` at c3124680 (`llama.py`), in its order. */
const _MISTRAL_MAPPING: ReadonlyMap<string, string> = new Map([
  ["layers", "model.layers"],
  ["attention", "self_attn"],
  ["qscale_act", "input_scale"],
  ["qscale_weight", "weight_scale"],
  ["kv_fake_quantizer.qscale_act", "kv_scale"],
  ["q_fake_quantizer.qscale_act", "attn.q_scale"],
  ["k_fake_quantizer.qscale_act", "k_scale"],
  ["v_fake_quantizer.qscale_act", "v_scale"],
  ["wq", "q_proj"],
  ["wk", "k_proj"],
  ["wv", "v_proj"],
  ["wo", "o_proj"],
  ["attention_norm", "input_layernorm"],
  ["feed_forward", "mlp"],
  ["w1", "gate_proj"],
  ["w2", "down_proj"],
  ["w3", "up_proj"],
  ["ffn_norm", "post_attention_layernorm"],
  ["tok_embeddings", "model.embed_tokens"],
  ["output", "lm_head"],
  ["norm", "model.norm"],
]);

/** Substrings a loader's skips or renames act on (`AutoWeightsLoader`, the inner models). */
const _REACHED = [
  "rotary_emb.inv_freq",
  "rotary_emb.cos_cached",
  "rotary_emb.sin_cached",
  "q_proj",
  "k_proj",
  "v_proj",
  "gate_proj",
  "up_proj",
  "experts",
];

/**
 * The first of `names` (tensors the config's model does not have) that vLLM 0.11's loader for the
 * config's family refuses to load, by the rules of the module, or null (none is provably refused,
 * or the family's loader is not read here).
 *
 * @param config the checkpoint's config (its `modelType`)
 * @param names the stored tensors the config's model does not have
 * @returns the name, or null
 * @example
 * ```ts
 * import { vllmRefusedTensor } from "./vllm_unexpected_tensor.ts";
 * const qwen3 = { modelType: "qwen3" } as never;
 * if (vllmRefusedTensor(qwen3, ["model.extra"]) !== "model.extra") throw new Error();
 * if (vllmRefusedTensor(qwen3, ["model.layers.0.mlp.extra.bias"]) !== null) throw new Error();
 * if (vllmRefusedTensor({ modelType: "gemma" } as never, ["model.extra"]) !== null) {
 *   throw new Error();
 * }
 * ```
 */
export function vllmRefusedTensor(
  config: DecoderConfig,
  names: readonly string[],
): string | null {
  if (!_FAMILIES.has(config.modelType)) return null;
  if (!_LLAMA_CLASS.has(config.modelType)) return names.find(_refused) ?? null;
  const model = decoderTensorShapes(config);
  return names.find((name) => {
    if (name.length > _MAX_RENAMED) return false;
    const renamed = _remapMistral(name);
    return !model.has(renamed) && _refused(renamed);
  }) ?? null;
}

/**
 * The model's tensors that vLLM 0.11's Llama class (Llama, Mistral) loads from other stored names
 * through its Mistral-format renaming (`maybe_remap_mistral`: `norm.weight` onto
 * `model.norm.weight`, `layers.0.attention.wo.weight` onto its `o_proj`), so that a model tensor
 * stored under such a name only is not missing to it; empty for the other families. Names longer
 * than the renaming is read for are left out.
 *
 * @param config the checkpoint's config
 * @param names the stored tensors the config's model does not have
 * @returns the model tensor names some of `names` are renamed onto
 * @example
 * ```ts
 * import { vllmRenamedOnto } from "./vllm_unexpected_tensor.ts";
 * if (vllmRenamedOnto({ modelType: "qwen3" } as never, ["norm.weight"]).size !== 0) {
 *   throw new Error();
 * }
 * ```
 */
export function vllmRenamedOnto(config: DecoderConfig, names: readonly string[]): Set<string> {
  const onto = new Set<string>();
  if (!_LLAMA_CLASS.has(config.modelType) || names.length === 0) return onto;
  const model = decoderTensorShapes(config);
  for (const name of names) {
    if (name.length > _MAX_RENAMED) continue;
    const renamed = _remapMistral(name);
    if (model.has(renamed)) onto.add(renamed);
  }
  return onto;
}

/**
 * The longest name the renaming is read for: its cost grows with the square of the name's
 * length (each module replaced throughout the name), and no tensor name of a real checkpoint
 * comes near it; a longer one is never read as refused.
 */
const _MAX_RENAMED = 1024;

/**
 * `maybe_remap_mistral`'s renaming: for each module of the name as given, the pair it starts
 * replaced throughout the name where the pair is a mapping key, else the module where it is one
 * and its replacement is not yet in the name (Python's `str.replace`: every occurrence, left to
 * right).
 */
function _remapMistral(name: string): string {
  const modules = name.split(".");
  for (let i = 0; i < modules.length; i++) {
    const item = modules[i]!;
    const pair = i + 1 < modules.length ? `${item}.${modules[i + 1]}` : undefined;
    const byPair = pair === undefined ? undefined : _MISTRAL_MAPPING.get(pair);
    const byItem = _MISTRAL_MAPPING.get(item);
    if (byPair !== undefined) name = name.split(pair!).join(byPair);
    else if (byItem !== undefined && !name.includes(byItem)) name = name.split(item).join(byItem);
  }
  return name;
}

function _refused(name: string): boolean {
  if (name.startsWith("lm_head") || name.endsWith("bias") || name.endsWith("scale")) return false;
  return !_REACHED.some((s) => name.includes(s));
}
