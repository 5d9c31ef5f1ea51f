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
 * only on the stages that do not build it, so the stage that does raises. Llama and Mistral
 * (whose loader first renames Mistral-format names) are not read here.
 *
 * @module
 */
import type { DecoderConfig } from "./decoder_config.ts";

/** The families whose vLLM 0.11 loader is read here. */
const _FAMILIES: ReadonlySet<string> = new Set(["qwen2", "qwen3", "qwen3_moe"]);

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
 * if (vllmRefusedTensor({ modelType: "llama" } as never, ["model.extra"]) !== null) {
 *   throw new Error();
 * }
 * ```
 */
export function vllmRefusedTensor(
  config: Pick<DecoderConfig, "modelType">,
  names: readonly string[],
): string | null {
  if (!_FAMILIES.has(config.modelType)) return null;
  return names.find(_refused) ?? null;
}

function _refused(name: string): boolean {
  if (name.startsWith("lm_head") || name.endsWith("bias") || name.endsWith("scale")) return false;
  return !_REACHED.some((s) => name.includes(s));
}
