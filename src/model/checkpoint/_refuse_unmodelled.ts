/**
 * What a decoder `config.json` may say besides the shapes: every field is either read by the
 * parser, checked here to hold the one value this emulator models, or known not to change a
 * forward pass's numbers. Anything else (`quantization_config`, `auto_map`,
 * `partial_rotary_factor`, `dual_chunk_attention_config`, a field of a later Transformers) could
 * change them and is refused by name as `CONFIG_UNSUPPORTED`, never ignored.
 *
 * Sliding-window attention: Qwen2 and the Qwen3 classes turn it on only with
 * `use_sliding_window: true` (their config classes set `sliding_window = None` otherwise, and
 * `layer_types` derives from it), so there `sliding_window` and `max_window_layers` are not
 * refused while it is off; Mistral applies any non-null `sliding_window`, which is refused. Qwen2
 * and Qwen3 classes of Transformers before 4.57 keep the window all the same, which a stack on
 * such a release reads (`kept_window.ts`).
 *
 * @module
 */
import { _bad, _given, type _Json, _notBoolean, _show } from "./_config_values.ts";
import type { _FamilyRules, DecoderFamily } from "./_decoder_families.ts";

/** Fields the parser reads or checks, in every family. */
const _CHECKED = [
  "architectures",
  "dtype",
  "head_dim",
  "hidden_act",
  "hidden_size",
  "intermediate_size",
  "layer_types",
  "max_position_embeddings",
  "model_type",
  "num_attention_heads",
  "num_hidden_layers",
  "num_key_value_heads",
  "output_attentions",
  "pad_token_id",
  "rms_norm_eps",
  "rope_parameters",
  "rope_scaling",
  "rope_theta",
  "sliding_window",
  "tie_word_embeddings",
  "torch_dtype",
  "vocab_size",
];

/**
 * Fields without effect on the forward numbers: training only (`attention_dropout` is applied
 * only while training, `initializer_range`), generation and tokenizer ids, run-time output
 * switches that change no computed number (`output_hidden_states`, `return_dict`) and
 * bookkeeping. `pad_token_id` is read (`decoder_config.ts`: HF builds the embedding with it as
 * `padding_idx`, which must lie inside the vocabulary), and so is `output_attentions` (below).
 */
const _HARMLESS = [
  "_attn_implementation_autoset",
  "_name_or_path",
  "attention_dropout",
  "bos_token_id",
  "eos_token_id",
  "initializer_range",
  "output_hidden_states",
  "return_dict",
  "transformers_version",
  "use_cache",
];

/** MoE fields the parser reads (`num_local_experts`: the 5.x `attribute_map` name). */
const _MOE = [
  "decoder_sparse_step",
  "mlp_only_layers",
  "moe_intermediate_size",
  "norm_topk_prob",
  "num_experts",
  "num_experts_per_tok",
  "num_local_experts",
];

/** MoE fields of training losses only. */
const _MOE_HARMLESS = ["output_router_logits", "router_aux_loss_coef"];

/**
 * Refuses a config that asks for something not modelled.
 *
 * @param c the config (model type already checked)
 * @param o the family, its rules and `num_hidden_layers`
 * @throws {InputError} `CONFIG_UNSUPPORTED` naming the field (an unknown field, an MoE field in a
 *   dense config, sliding windows, tensor-parallel pretraining slices, a dtype other than
 *   bfloat16, `output_attentions` set); `CONFIG_FIELD` for a malformed value (a null `hidden_act`
 *   among them) or `torch_dtype` contradicting `dtype`
 */
export function _refuseUnmodelled(
  c: _Json,
  o: { family: DecoderFamily; rules: _FamilyRules; layers: number },
): void {
  const known = new Set([
    ..._CHECKED,
    ..._HARMLESS,
    ...o.rules.keys,
    ...o.rules.harmless,
    ...(o.rules.moe ? [..._MOE, ..._MOE_HARMLESS] : []),
  ]);
  for (const key of Object.keys(c)) {
    if (!known.has(key)) {
      // The name once quoted (`_show` would quote a string's JSON, quotes and all).
      const name = _show(key).replace(/^'"(.*)"'$/, "'$1'");
      throw _bad("CONFIG_UNSUPPORTED", `field ${name} is not modelled for '${o.family}'`);
    }
  }
  if (o.rules.keys.includes("use_sliding_window")) {
    _off(c, "use_sliding_window");
    // Without `use_sliding_window` the config classes drop the window (`sliding_window if
    // use_sliding_window else None`) and with it `max_window_layers`: whatever they hold is
    // read and ignored (vLLM reads the config class's None).
  } else if (_given(c, "sliding_window")) {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `sliding_window ${_show(c.sliding_window)} is not modelled for '${o.family}'`,
    );
  } else if (o.family === "mistral" && c.sliding_window === undefined) {
    // `MistralConfig` defaults to a 4096-token window when the file names none.
    throw _bad(
      "CONFIG_UNSUPPORTED",
      "sliding_window absent: Mistral's default window of 4096 is not modelled (give null)",
    );
  }
  if (_given(c, "pretraining_tp") && c.pretraining_tp !== 1) {
    throw _bad("CONFIG_UNSUPPORTED", `pretraining_tp ${_show(c.pretraining_tp)} is not modelled`);
  }
  _outputAttentions(c.output_attentions);
  _layerTypes(c, o.layers);
  if (c.hidden_act === null) {
    // HF keeps None and fails on it when the model is built (`ACT2FN[None]`).
    throw _bad("CONFIG_FIELD", "hidden_act is null, which HF Transformers cannot run (give silu)");
  }
  // Another activation is not modelled: the caller names it once the shapes are read
  // (`_hidden_act.ts`), some stacks refusing it.
  _dtype(c);
}

/** A feature switch that must be off: false or absent. */
function _off(c: _Json, key: string): void {
  const v = c[key];
  if (v === undefined || v === false) return;
  if (v === true) throw _bad("CONFIG_UNSUPPORTED", `${key} true is not modelled`);
  throw _notBoolean(key, v);
}

/**
 * `output_attentions` off: false, null or absent. The model's forward takes the config's value
 * when the caller passes none, and a true one changes the path: Transformers 4.48 to 4.53 run
 * eager attention in place of sdpa (`LlamaAttention.forward`, which Qwen2 and Qwen3 copy: "Falling
 * back to eager attention"), 4.57 wraps the layers to record their weights
 * (`check_model_inputs`); a value other than a boolean is read by truthiness. None of it is
 * modelled.
 */
function _outputAttentions(v: unknown): void {
  if (v === undefined || v === null || v === false) return;
  throw _bad(
    "CONFIG_UNSUPPORTED",
    `output_attentions ${_show(v)} is not modelled (HF Transformers 4.48-4.53 then run eager ` +
      "attention in place of sdpa): only false, null or absent is",
  );
}

function _layerTypes(c: _Json, layers: number): void {
  if (!_given(c, "layer_types")) return;
  const t = c.layer_types;
  if (!Array.isArray(t) || t.length !== layers || t.some((x) => typeof x !== "string")) {
    // Some config classes refuse it, Llama's never reads it: not modelled, not malformed.
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `layer_types that do not list ${layers} layer type names are not modelled`,
    );
  }
  const i = t.findIndex((x) => x !== "full_attention");
  if (i >= 0) {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `layer_types[${i}] ${_show(t[i])} is not modelled (full_attention only)`,
    );
  }
}

/** `torch_dtype` (4.5x) or `dtype` (5.x): bfloat16 when given; both given must agree. */
function _dtype(c: _Json): void {
  const named = ["torch_dtype", "dtype"].filter((k) => _given(c, k));
  if (named.length === 2 && c.torch_dtype !== c.dtype) {
    throw _bad(
      "CONFIG_FIELD",
      `torch_dtype ${_show(c.torch_dtype)} contradicts dtype ${_show(c.dtype)}`,
    );
  }
  for (const k of named) {
    if (c[k] !== "bfloat16") {
      throw _bad("CONFIG_UNSUPPORTED", `${k} ${_show(c[k])} is not modelled (bfloat16 only)`);
    }
  }
}
