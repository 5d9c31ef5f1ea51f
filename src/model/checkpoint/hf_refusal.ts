/**
 * Configs HF Transformers cannot build a model of, though the config parses: a record of one on
 * a stack that runs the model through Transformers is no run that stack made.
 *
 * @module
 */
import type { DecoderConfig, RopeTypeKeys } from "./decoder_config.ts";
import { _show } from "./_config_values.ts";
import { _isTransformers5 } from "./_transformers_5.ts";

/**
 * Why HF Transformers refuses to build `config`'s model, or null:
 * - every supported family builds its embedding as `nn.Embedding(vocab_size, hidden_size,
 *   padding_idx=config.pad_token_id)` (`LlamaModel`, `Qwen2Model`, `Qwen3Model`,
 *   `Qwen3MoeModel`, `MistralModel.__init__`, 4.57.6 and 5.17 alike), and PyTorch refuses a
 *   `padding_idx` outside `-num_embeddings .. num_embeddings - 1` ("Padding_idx must be within
 *   num_embeddings": an `assert` in 2.8, an `AssertionError` raised in 2.13), so
 *   `from_pretrained` fails; one given as text, a list or an object
 *   (`DecoderConfig.padTokenIdNotNumber`) fails there too, `nn.Embedding.__init__` comparing it
 *   (`if padding_idx > 0`, a `TypeError` in Python 3);
 * - Transformers 5's typed `Qwen3MoeConfig` (`@strict`: huggingface_hub checks each field's
 *   annotation at construction, `isinstance(value, int)` for an `int`, and casts nothing; 5.18)
 *   refuses a float among `mlp_only_layers` (`list[int] | None`: "Invalid item at index ... in
 *   list 'mlp_only_layers'"), which 4.5x compares with each layer index, and a float
 *   `decoder_sparse_step` (`int`: "Field 'decoder_sparse_step' expected int, got float (value:
 *   1.0)"), with which 4.5x computes `(i + 1) % step`. `AutoConfig.from_pretrained` raises
 *   `StrictDataclassFieldValidationError` for either, so no model is built.
 *
 * - Transformers 4.5x refuses a `rope_scaling` that misses keys its RoPE validation requires
 *   (an empty one, a llama3 one without `original_max_position_embeddings`: `KeyError`, see
 *   `DecoderConfig.ropeTransformers4Missing`), which Transformers 5 reads (the default RoPE;
 *   the length filled in from `max_position_embeddings`): {@link transformers4RopeRefusal}.
 * - Transformers 4.5x builds no RoPE of a type outside its `ROPE_INIT_FUNCTIONS` (default,
 *   linear, dynamic, yarn, longrope, llama3; case counts): `rope_config_validation` only warns
 *   ("Missing validation function mapping"), then each family's `*RotaryEmbedding.__init__`
 *   takes `ROPE_INIT_FUNCTIONS[self.rope_type]`, a `KeyError` (4.57.6 `modeling_rope_utils.py`,
 *   `modeling_llama.py`, `modeling_qwen2.py`, `modeling_qwen3.py`, `modeling_qwen3_moe.py`,
 *   `modeling_mistral.py`), or a null type: the Llama and Qwen config classes copy a `type` key
 *   over `rope_type` (BC), Mistral's embedding takes `rope_type` where the key is present
 *   (`DecoderConfig.ropeTypeKeys`, `_ropeTypeRead`). Transformers 5's reading of such a type is
 *   not derived here.
 *
 * - a `head_dim` of 0 (not Mistral): the attention's `head_dim**-0.5` raises
 *   (`_headDimZeroRefusal`).
 * - Transformers 4.5x builds no activation outside its `ACT2FN`: each family's MLP takes
 *   `ACT2FN[config.hidden_act]` (`KeyError`; 4.57.6): `DecoderConfig.activationTransformers4Missing`.
 *   Transformers 5's table is not derived here.
 *
 * vLLM builds its embedding without a padding index and never reads `pad_token_id`.
 *
 * @param config the parsed config
 * @param o `transformers`: the stack's `transformers` component (undefined: read as 4.5x)
 * @returns the reason, or null
 * @example
 * ```ts
 * import { hfRefusal } from "./hf_refusal.ts";
 * if (hfRefusal({ vocab: 8, padTokenId: 8 }) === null) throw new Error();
 * if (hfRefusal({ vocab: 8, padTokenId: -8 }) !== null) throw new Error();
 * if (hfRefusal({ vocab: 8 }) !== null) throw new Error();
 * const layers = { vocab: 8, mlpOnlyLayersTransformers4Only: true } as const;
 * const step = { vocab: 8, sparseStepTransformers4Only: true } as const;
 * for (const floats of [layers, step]) {
 *   if (hfRefusal(floats, { transformers: "5.x" }) === null) throw new Error();
 *   if (hfRefusal(floats, { transformers: "4.57.x" }) !== null) throw new Error();
 * }
 * const rope = { vocab: 8, ropeTransformers4Missing: ["rope_type"] } as const;
 * if (hfRefusal(rope, { transformers: "4.57.x" }) === null) throw new Error();
 * if (hfRefusal(rope, { transformers: "5.x" }) !== null) throw new Error();
 * const bogus = { vocab: 8, ropeTypeKeys: { rope_type: "yarn", type: "bogus" } } as const;
 * if (!hfRefusal(bogus, { transformers: "4.57.x" })?.includes("KeyError")) throw new Error();
 * if (hfRefusal({ ...bogus, modelType: "mistral" }) !== null) throw new Error();
 * ```
 */
export function hfRefusal(
  config:
    & Pick<
      DecoderConfig,
      | "vocab"
      | "padTokenId"
      | "padTokenIdNotNumber"
      | "mlpOnlyLayersTransformers4Only"
      | "sparseStepTransformers4Only"
      | "ropeTransformers4Missing"
      | "ropeTypeKeys"
      | "headDimZero"
      | "unmodelledActivation"
      | "activationTransformers4Missing"
    >
    & { readonly modelType?: DecoderConfig["modelType"] },
  o: { readonly transformers?: string | undefined } = {},
): string | null {
  const p = config.padTokenId;
  if (p !== undefined && (p < -config.vocab || p >= config.vocab)) {
    return `the config's pad_token_id ${p} lies outside its vocabulary of ${config.vocab} ` +
      "tokens, and HF Transformers builds the embedding with it as padding_idx, which PyTorch " +
      "refuses ('Padding_idx must be within num_embeddings'): the model cannot be loaded";
  }
  if (config.padTokenIdNotNumber !== undefined) {
    return `the config's pad_token_id ${config.padTokenIdNotNumber} is no number, and HF ` +
      "Transformers builds the embedding with it as padding_idx, which PyTorch compares " +
      "(padding_idx > 0: TypeError): the model cannot be loaded";
  }
  const headDim = config.modelType === "mistral" ? null : _headDimZeroRefusal(config);
  if (headDim !== null) return headDim;
  if (!_isTransformers5(o.transformers)) {
    return transformers4RopeRefusal(config) ?? _transformers4RopeTypeRefusal(config) ??
      _transformers4ActivationRefusal(config);
  }
  if (config.mlpOnlyLayersTransformers4Only === true) {
    return "the config writes an mlp_only_layers entry as a float, which Transformers 5's " +
      "typed config refuses (mlp_only_layers: list[int]): the model cannot be loaded";
  }
  if (config.sparseStepTransformers4Only === true) {
    return "the config writes decoder_sparse_step as a float, which Transformers 5's typed " +
      "config refuses (decoder_sparse_step: int): the model cannot be loaded";
  }
  return null;
}

/**
 * Why Transformers 4.5x refuses `config`'s `rope_scaling` (keys its RoPE validation requires are
 * missing: `DecoderConfig.ropeTransformers4Missing`), or null. vLLM 0.11 loads configs through
 * 4.5x (`AutoConfig.from_pretrained`; its `requirements/common.txt` asks `transformers >=
 * 4.55.2`, and it reads no `rope_parameters`), so it refuses them too.
 *
 * @param config the parsed config
 * @returns the reason, naming the missing keys, or null
 * @example
 * ```ts
 * import { transformers4RopeRefusal } from "./hf_refusal.ts";
 * const why = transformers4RopeRefusal({ ropeTransformers4Missing: ["rope_type"] });
 * if (!why?.includes("'rope_type'")) throw new Error();
 * if (transformers4RopeRefusal({}) !== null) throw new Error();
 * ```
 */
export function transformers4RopeRefusal(
  config: Pick<DecoderConfig, "ropeTransformers4Missing">,
): string | null {
  const missing = config.ropeTransformers4Missing;
  if (missing === undefined || missing.length === 0) return null;
  const keys = missing.map((k) => `'${k}'`).join(", ");
  return `the config's rope_scaling lacks ${keys}, which Transformers 4.5x requires ` +
    "(its RoPE validation raises KeyError 'Missing required keys in rope_scaling'): " +
    "the model cannot be loaded";
}

/** The RoPE types Transformers 4.5x builds (`ROPE_INIT_FUNCTIONS`, 4.57.6). */
const _TRANSFORMERS4_ROPE_TYPES: ReadonlySet<string> = new Set([
  "default",
  "linear",
  "dynamic",
  "yarn",
  "longrope",
  "llama3",
]);

/**
 * Why Transformers 4.5x builds no RoPE of the type it reads in the config's `rope_scaling`
 * (`DecoderConfig.ropeTypeKeys`, read by `_ropeTypeRead`: a type outside `ROPE_INIT_FUNCTIONS`,
 * or None), or null.
 */
function _transformers4RopeTypeRefusal(
  config: Pick<DecoderConfig, "ropeTypeKeys"> & { readonly modelType?: DecoderConfig["modelType"] },
): string | null {
  const keys = config.ropeTypeKeys;
  if (keys === undefined) return null;
  const type = _ropeTypeRead(keys, config.modelType);
  if (type !== null && _TRANSFORMERS4_ROPE_TYPES.has(type)) return null;
  return `the config's rope_scaling type ${_show(type)} is none Transformers 4.5x builds ` +
    `(${[..._TRANSFORMERS4_ROPE_TYPES].join(", ")}): its rotary embedding looks the type up in ` +
    "ROPE_INIT_FUNCTIONS, a KeyError, so the model cannot be loaded";
}

/**
 * The RoPE type Transformers 4.5x reads from a `rope_scaling`'s type keys as written (null:
 * Python's None). The Llama, Qwen2, Qwen3 and Qwen3-MoE config classes copy a `type` key over
 * `rope_type` ("BC: if there is a 'type' field, copy it it to 'rope_type'", `__init__`, 4.57.6),
 * so `type` wins there; Mistral's config class copies nothing, and its rotary embedding takes
 * `rope_scaling.get("rope_type", rope_scaling.get("type"))`, so `rope_type` wins where the key is
 * present, a null one included. vLLM 0.11 loads the config through these classes, so its
 * `patch_rope_scaling_dict` sees the copy too.
 *
 * @param keys the type keys as written
 * @param family the config's family (undefined: read as Llama)
 * @returns the type read
 * @example
 * ```ts
 * import { _ropeTypeRead } from "./hf_refusal.ts";
 * const keys = { rope_type: null, type: "bogus" };
 * if (_ropeTypeRead(keys, "qwen3") !== "bogus") throw new Error();
 * if (_ropeTypeRead(keys, "mistral") !== null) throw new Error();
 * if (_ropeTypeRead({ type: "yarn" }, "mistral") !== "yarn") throw new Error();
 * ```
 */
export function _ropeTypeRead(
  keys: RopeTypeKeys,
  family: DecoderConfig["modelType"] | undefined,
): string | null {
  const first = family === "mistral" ? "rope_type" : "type";
  const other = first === "type" ? "rope_type" : "type";
  for (const k of [first, other] as const) if (Object.hasOwn(keys, k)) return keys[k] ?? null;
  return null;
}

/**
 * Why HF Transformers cannot build the attention of a config whose `head_dim` is 0
 * (`DecoderConfig.headDimZero`), or null: `LlamaAttention`, `Qwen2Attention`, `Qwen3Attention`
 * and `Qwen3MoeAttention.__init__` take `getattr(config, "head_dim", hidden // heads)`, 0 as
 * given (their config classes keep it), and compute `self.scaling = self.head_dim**-0.5`, which
 * Python refuses ("0.0 cannot be raised to a negative power", `ZeroDivisionError`; 4.57 and 5.x
 * alike), so no model is built. Mistral's reads `head_dim or hidden // heads` (the caller skips it).
 */
function _headDimZeroRefusal(config: Pick<DecoderConfig, "headDimZero">): string | null {
  if (config.headDimZero !== true) return null;
  return "the config's head_dim is 0, and HF Transformers' attention computes its scaling as " +
    "head_dim**-0.5, which Python refuses (ZeroDivisionError): the model cannot be loaded";
}

/**
 * Why Transformers 4.5x builds no MLP activation of the config's `hidden_act`
 * (`DecoderConfig.activationTransformers4Missing`: no name in its `ACT2FN`), or null.
 */
function _transformers4ActivationRefusal(
  config: Pick<DecoderConfig, "unmodelledActivation" | "activationTransformers4Missing">,
): string | null {
  if (config.activationTransformers4Missing !== true) return null;
  return `the config's hidden_act ${config.unmodelledActivation} is not in Transformers 4.5x's ` +
    "ACT2FN, which its MLP looks the activation up in (KeyError): the model cannot be loaded";
}
