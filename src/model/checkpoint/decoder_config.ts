/**
 * The `config.json` of a Hugging Face decoder checkpoint, validated strictly into the description
 * every driver runs from: Qwen3 and Qwen3-MoE, Llama 3.x (`llama`), Qwen2 / Qwen2.5 (`qwen2`) and
 * Mistral (`mistral`). Every field that changes the forward pass is read (shapes, norms, QK-norm,
 * biases, RoPE theta and scaling, tied embeddings, MoE routing), and every feature this emulator
 * does not model (another architecture, another RoPE type, sliding-window attention, another
 * activation or dtype, a field it does not know) is refused by name, never approximated.
 * Transformers 4.5x and 5.x layouts (top-level `rope_theta`, `rope_scaling` and `torch_dtype`, or
 * `rope_parameters` and `dtype`) give the same config; a field given in both layouts with two
 * values is refused. Per-family facts: `_decoder_families.ts`.
 *
 * Codes: `CONFIG_UNSUPPORTED` means "a feature this version does not model", named (no evidence
 * against a record: an audit's NOT_VERIFIED); `CONFIG_FIELD` means "not a well-formed, unambiguous
 * config" (missing, mistyped, out of range or self-contradicting) and `CONFIG_MODEL_TYPE` "not a
 * supported decoder family".
 *
 * MoE layer rule (`Qwen3MoeDecoderLayer`): layer i is sparse iff `i` is not in `mlp_only_layers`,
 * `num_experts > 0` and `(i + 1) % decoder_sparse_step == 0`; otherwise it has a dense MLP of
 * `intermediate_size` (`_moe_config.ts`).
 *
 * @module
 */
import type { RopeScaling } from "../../kernels/mod.ts";
import {
  _bad,
  _bool,
  _given,
  _int,
  type _Json,
  _positive,
  _show,
  _writtenAsFloat,
} from "./_config_values.ts";
import {
  _FAMILIES,
  _family,
  type _FamilyRules,
  type DecoderFamily,
  type LinearBiases,
} from "./_decoder_families.ts";
import { _keptWindow } from "./kept_window.ts";
import { _moe, type MoeConfig } from "./_moe_config.ts";
import { _hiddenAct } from "./_hidden_act.ts";
import { _refuseUnmodelled } from "./_refuse_unmodelled.ts";
import { _rope, type RopeTypeKeys } from "./_rope_config.ts";
import { _isTransformers5 } from "./_transformers_5.ts";

export type { DecoderFamily, LinearBiases, MoeConfig, RopeTypeKeys };

/** A validated decoder config: the description of the model every driver runs (frozen). */
export interface DecoderConfig {
  /** `model_type`: the family. */
  readonly modelType: DecoderFamily;
  /** `vocab_size`. */
  readonly vocab: number;
  /** `hidden_size` H. */
  readonly hidden: number;
  /** `intermediate_size` (dense MLP width). */
  readonly intermediate: number;
  /** `num_hidden_layers`. */
  readonly layers: number;
  /** `num_attention_heads`. */
  readonly heads: number;
  /** `num_key_value_heads` (absent: the family's config class default; null: the heads). */
  readonly kvHeads: number;
  /** `head_dim` (when absent: the family's default, see `_decoder_families.ts`). */
  readonly headDim: number;
  /** `rms_norm_eps` as the decimal text of the Python float (e.g. `"1e-06"`). */
  readonly rmsNormEps: string;
  /**
   * RoPE theta (`rope_theta`, or `rope_parameters.rope_theta` of Transformers 5) as the decimal
   * text of the Python number.
   */
  readonly ropeTheta: string;
  /** RoPE frequency scaling (`linear`, `llama3`); absent for the default RoPE. */
  readonly ropeScaling?: RopeScaling;
  /**
   * Present (true) when `ropeTheta` / `ropeScaling` come from Transformers 5's `rope_parameters`
   * alone and Transformers 4.5x reads the same file otherwise (it ignores `rope_parameters`: the
   * top-level `rope_theta`, else 10000, and `rope_scaling`). Such a config means that RoPE only
   * to a stack built on Transformers 5.
   */
  readonly ropeTransformers5Only?: true;
  /**
   * The keys Transformers 4.5x finds missing in `rope_scaling` (an empty one: `rope_type`; a
   * llama3 one: `original_max_position_embeddings`), refusing to load the config (`hfRefusal`;
   * vLLM 0.11 reads it through 4.5x: `vllmRefusal`), while Transformers 5 reads the default RoPE
   * or fills the length in from `max_position_embeddings`. Absent when 4.5x loads it.
   */
  readonly ropeTransformers4Missing?: readonly string[];
  /**
   * The type keys of a `rope_scaling` not modelled for its type, as written (`rope_type`, `type`:
   * a type not modelled, a null, or two that differ), present only in a config parsed with
   * `unmodelled: "read"`: each engine resolves them its own way, and a stack that resolves them to
   * a type it builds no RoPE of, or refuses the pair, refuses the config (`hfRefusal` of
   * Transformers 4.5x, `vllmRefusal`); one that builds it ran a RoPE not modelled (`unmodelled`).
   */
  readonly ropeTypeKeys?: RopeTypeKeys;
  /**
   * Present (true) when the experts are counted by `num_local_experts` alone, the name
   * Transformers 5 writes: Transformers 4.5x's config class reads `num_experts` (default 128)
   * and builds another model from the same file.
   */
  readonly expertsTransformers5Only?: true;
  /**
   * Present (true) when `num_key_value_heads` is written as `true`, one KV head to Transformers
   * 4.5x and vLLM (Python computes with it as 1). Transformers 5's typed config (`int`) reads it
   * as one head with huggingface_hub before 1.9 and refuses it from 1.9 (`@strict` rejects a
   * `bool` for an `int`: huggingface/huggingface_hub a37e305c5, #3992): which of the two a stack
   * naming Transformers 5 runs is not known (`configReadingGap`).
   */
  readonly kvHeadsTrue?: true;
  /**
   * Present (true) when `decoder_sparse_step` is written as a float (`1.0`): Transformers 4.5x
   * (and vLLM on it) computes `(i + 1) % step` with it, the integer's result, while Transformers
   * 5's typed config (an `int` field) refuses it (`hfRefusal`): such a config loads only on a
   * stack built on Transformers 4.5x.
   */
  readonly sparseStepTransformers4Only?: true;
  /** Per-head RMSNorm of q and k before RoPE (`q_norm`, `k_norm`: the Qwen3 families). */
  readonly qkNorm: boolean;
  /** Which linear layers carry a bias. */
  readonly bias: LinearBiases;
  /** `tie_word_embeddings`: the LM head is `embed_tokens`. */
  readonly tieWordEmbeddings: boolean;
  /**
   * `max_position_embeddings` as the family's config class reads it (absent: the class default,
   * `_decoder_families.ts`), or null when it is not a positive whole number (null, a fraction,
   * text). HF's default and linear RoPE do not read it (llama3 reads its own
   * `original_max_position_embeddings`); vLLM derives the longest sequence it serves from it
   * (`vllmMaxModelLen`).
   */
  readonly maxPositionEmbeddings: number | null;
  /** MoE section (`qwen3_moe` only). */
  readonly moe?: MoeConfig;
  /**
   * Set when the config names no `architectures` (absent, null or `[]`): HF's `AutoModelForCausalLM`
   * builds the model of `model_type` all the same, vLLM refuses it (`vllmRefusal`).
   */
  readonly noArchitectures?: true;
  /**
   * The sliding window a Transformers release before 4.57 keeps although `use_sliding_window` is
   * off (Qwen2 and Qwen3 only: the file's `sliding_window`, else the class's 4096; 0 for a value
   * that is not a positive number), absent when none is kept (`keptWindowGap`). The forward
   * attends without a window, as fixed releases and vLLM do.
   */
  readonly keptSlidingWindow?: number;
  /**
   * `pad_token_id` when the config names one (an integer): HF builds the embedding with it as
   * `padding_idx`, which changes no forward number but must lie in `-vocab..vocab - 1`
   * (`hfRefusal`); vLLM does not read it.
   */
  readonly padTokenId?: number;
  /**
   * A `pad_token_id` given as text, a list or an object, escaped and clipped, present only in a
   * config parsed with `unmodelled: "read"` (with `unmodelled`): PyTorch's embedding compares it
   * with 0 and raises (`hfRefusal`); vLLM does not read it.
   */
  readonly padTokenIdNotNumber?: string;
  /**
   * Present (true) when `head_dim` is 0: HF Transformers' attention classes other than Mistral's
   * compute `head_dim**-0.5` with it and cannot build the model (`hfRefusal`), and so does vLLM's
   * Llama class, which runs Llama and Mistral (`vllmRefusal`); the other classes build the
   * default head dimension. Comes with `unmodelled`.
   */
  readonly headDimZero?: true;
  /**
   * A `hidden_act` other than silu, escaped and clipped, present only in a config parsed with
   * `unmodelled: "read"` (with `unmodelled`): vLLM 0.11's dense MLP refuses it (`vllmRefusal`);
   * HF Transformers builds it when it names an activation of its `ACT2FN`.
   */
  readonly unmodelledActivation?: string;
  /**
   * Present (true) with `unmodelledActivation` when it is no name in Transformers 4.5x's `ACT2FN`:
   * 4.5x's MLP looks it up and raises (`hfRefusal`).
   */
  readonly activationTransformers4Missing?: true;
  /**
   * Set when the config names neither `torch_dtype` nor `dtype` (absent or null): vLLM's
   * `--dtype auto` then takes the dtype from elsewhere (`vllmDtypeGap`).
   */
  readonly noDtype?: true;
  /**
   * Present (true) when `mlp_only_layers` holds a number written as a float (`1.0`, `1.5`):
   * Transformers 4.5x (and vLLM on it) compares it with each layer index, while Transformers 5's
   * typed config (`list[int]`, huggingface_hub's `strict` type check) refuses it (`hfRefusal`).
   */
  readonly mlpOnlyLayersTransformers4Only?: true;
  /**
   * Why the config is not modelled though HF builds a model of it (values nobody deploys, named:
   * `_moe_config.ts`), or though Transformers 4.5x refuses it as it refuses a modelled one (a
   * `rope_scaling` missing keys it requires: `ropeTransformers4Missing`), or of a RoPE type not
   * modelled (`ropeTypeKeys`, which some stacks refuse), present only in a config
   * parsed with `unmodelled: "read"`. Nothing may be
   * computed from such a config: it serves to ask whether the record's stack loads it at all
   * (`stackLoadRefusal`) and to hold a record to its shapes (layers, widths, heads, which layers
   * are sparse: `splitContradiction`), and is NOT_VERIFIED otherwise.
   */
  readonly unmodelled?: string;
}

/** Most decoder layers a config may declare (`num_hidden_layers`), and so a layer chain's height. */
export const MAX_DECODER_LAYERS = 1024;

/**
 * Validates a parsed `config.json`.
 *
 * @param json the parsed document
 * @param options `unmodelled`: what to do with values HF builds a model of that are not modelled
 *   (`_moe_config.ts`): `refuse` (default) throws `CONFIG_UNSUPPORTED` naming them, once every
 *   other field is read; `read` returns the config with the reason in `unmodelled`, for the
 *   stack's refusals alone
 * @returns the config
 * @throws {InputError} `CONFIG_MODEL_TYPE` (not a supported family, or an architecture list naming
 *   another class), `CONFIG_UNSUPPORTED` (a field not modelled, named: a rope_type other than
 *   default, linear or llama3, sliding window, activation other than silu, dtype other than
 *   bfloat16, an unknown field, a value HF builds but nobody deploys), `CONFIG_FIELD` (missing,
 *   mistyped or out-of-range field, or two fields that contradict each other, such as
 *   `rope_theta` and `rope_parameters.rope_theta`)
 * @example
 * ```ts
 * import { parseDecoderConfig } from "./decoder_config.ts";
 * const c = parseDecoderConfig({
 *   model_type: "qwen3", vocab_size: 16, hidden_size: 256, intermediate_size: 768,
 *   num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 128,
 *   rms_norm_eps: 1e-6, rope_parameters: { rope_type: "default", rope_theta: 1000000 },
 *   tie_word_embeddings: true,
 * });
 * if (c.rmsNormEps !== "0.000001" || c.ropeTheta !== "1000000" || !c.qkNorm) throw new Error();
 * let code = "";
 * try { parseDecoderConfig({ model_type: "gpt2" }); } catch (e) { code = (e as { code: string }).code; }
 * if (code !== "CONFIG_MODEL_TYPE") throw new Error();
 * ```
 */
export function parseDecoderConfig(
  json: unknown,
  options: { readonly unmodelled?: "refuse" | "read" } = {},
): DecoderConfig {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw _bad("CONFIG_FIELD", "config.json is not a JSON object");
  }
  const c = json as _Json;
  const { family, rules } = _family(c.model_type);
  _checkArchitectures(c.architectures, rules.architecture);
  const layers = _int(c, "num_hidden_layers", { max: MAX_DECODER_LAYERS });
  _refuseUnmodelled(c, { family, rules, layers });
  const hidden = _int(c, "hidden_size", { max: 1 << 16 });
  const heads = _int(c, "num_attention_heads", { max: 1024 });
  const kvHeads = _kvHeads(c, { heads, rules });
  if (heads % kvHeads !== 0) {
    const absent = c.num_key_value_heads === undefined
      ? ` (absent: the ${family} config class's default)`
      : "";
    throw _bad(
      "CONFIG_FIELD",
      `num_key_value_heads ${kvHeads}${absent} does not divide ${heads} heads`,
    );
  }
  // A null `head_dim` means "hidden // heads" to the Llama and Mistral classes; the Qwen2 and
  // Qwen3 classes fail on it (refused there by `_int`).
  const headDimZero = c.head_dim === 0;
  // HF's Llama, Qwen2, Qwen3 and Qwen3-MoE attention compute `head_dim**-0.5` and cannot be built
  // (`hfRefusal`), HF's Mistral reads `head_dim or hidden // heads`; vLLM's Llama class (which
  // also runs MistralForCausalLM) computes `head_dim**-0.5` (`vllmRefusal`), its Qwen3 classes
  // read `head_dim or hidden // heads` and its Qwen2 class `hidden // heads`: where a model runs,
  // it is not modelled.
  const headDim = headDimZero
    ? 0
    : c.head_dim === undefined || (c.head_dim === null && rules.headDimNullIsDefault)
    ? rules.headDim({ hidden, heads })
    : _int(c, "head_dim", { max: 1024 });
  if (!Number.isInteger(headDim) || headDim % 2 !== 0) {
    throw _bad("CONFIG_FIELD", `head_dim ${headDim} must be an even integer`);
  }
  const rope = _rope(c);
  const kept = _keptWindow(c, rules);
  const pad = _padTokenId(c);
  const padTokenId = typeof pad === "number" ? pad : undefined;
  const moe = rules.moe ? _moe(c) : undefined;
  const act = _hiddenAct(c);
  const eps = _eps(c.rms_norm_eps);
  // Values HF builds a model of (or 4.5x refuses, as it refuses modelled ones) not modelled here.
  const unmodelled = [
    ...(act === undefined ? [] : [`hidden_act ${act.shown} is not modelled (silu)`]),
    ...(typeof pad === "object" ? [pad.notNumber] : []),
    ...(headDimZero ? ["head_dim 0 is not modelled"] : []),
    ...(eps.unmodelled === undefined ? [] : [eps.unmodelled]),
    ...(rope.unmodelled === undefined ? [] : [rope.unmodelled]),
    ...(moe === undefined || moe.unmodelled.length === 0 ? [] : [_unmodelled(moe.unmodelled)]),
  ];
  const config: DecoderConfig = Object.freeze({
    modelType: family,
    vocab: _int(c, "vocab_size", { max: 1 << 22 }),
    hidden,
    intermediate: _int(c, "intermediate_size", { max: 1 << 18 }),
    layers,
    heads,
    kvHeads,
    headDim,
    rmsNormEps: eps.text,
    ropeTheta: rope.theta,
    ...(rope.scaling === undefined ? {} : { ropeScaling: Object.freeze(rope.scaling) }),
    ...(rope.transformers5Only ? { ropeTransformers5Only: true as const } : {}),
    ...(rope.transformers4Missing === undefined
      ? {}
      : { ropeTransformers4Missing: Object.freeze([...rope.transformers4Missing]) }),
    ...(rope.typeKeys === undefined ? {} : { ropeTypeKeys: rope.typeKeys }),
    qkNorm: rules.qkNorm,
    bias: Object.freeze(rules.biases(c)),
    // HF's default: untied in every supported config class.
    tieWordEmbeddings: _bool(c, "tie_word_embeddings", false),
    maxPositionEmbeddings: c.max_position_embeddings === undefined
      ? rules.maxPositionsAbsent
      : _wholePositive(c.max_position_embeddings),
    ...(moe === undefined ? {} : { moe: moe.moe }),
    ...(rules.moe && _given(c, "num_local_experts") && !_given(c, "num_experts")
      ? { expertsTransformers5Only: true as const }
      : {}),
    ...(c.num_key_value_heads === true ? { kvHeadsTrue: true as const } : {}),
    ...(rules.moe && _writtenAsFloat(c, "decoder_sparse_step")
      ? { sparseStepTransformers4Only: true as const }
      : {}),
    ...(_namesNoArchitectures(c.architectures) ? { noArchitectures: true as const } : {}),
    ...(kept === undefined ? {} : { keptSlidingWindow: kept }),
    ...(padTokenId === undefined ? {} : { padTokenId }),
    ...(typeof pad === "object" ? { padTokenIdNotNumber: _show(c.pad_token_id) } : {}),
    ...(headDimZero ? { headDimZero: true as const } : {}),
    ...(act === undefined ? {} : { unmodelledActivation: act.shown }),
    ...(act?.transformers4Missing ? { activationTransformers4Missing: true as const } : {}),
    ...(!_given(c, "torch_dtype") && !_given(c, "dtype") ? { noDtype: true as const } : {}),
    ...(moe?.floatLayerIndex ? { mlpOnlyLayersTransformers4Only: true as const } : {}),
    ...(unmodelled.length === 0 ? {} : { unmodelled: unmodelled.join("; ") }),
  });
  if (config.unmodelled !== undefined && options.unmodelled !== "read") {
    throw _bad("CONFIG_UNSUPPORTED", config.unmodelled);
  }
  return config;
}

/** The reason for a config's unmodelled values. */
function _unmodelled(values: readonly string[]): string {
  return `${values.join(", ")} ${values.length > 1 ? "are" : "is"} not modelled for qwen3_moe`;
}

/**
 * Tells whether decoder layer `layer` of a config has a sparse MoE block.
 *
 * @param config the config
 * @param layer layer index
 * @returns true for a MoE layer
 * @example
 * ```ts
 * import { isMoeLayer } from "./decoder_config.ts";
 * const moe = { experts: 4, topK: 2, intermediate: 8, normTopkProb: true, decoderSparseStep: 2, mlpOnlyLayers: [3] };
 * const c = { moe } as unknown as Parameters<typeof isMoeLayer>[0];
 * if (isMoeLayer(c, 0) || !isMoeLayer(c, 1) || isMoeLayer(c, 3)) throw new Error();
 * ```
 */
export function isMoeLayer(config: Pick<DecoderConfig, "moe">, layer: number): boolean {
  const m = config.moe;
  // JavaScript's remainder is 0 exactly where Python's is, for a negative step too.
  return m !== undefined && m.experts > 0 && !m.mlpOnlyLayers.includes(layer) &&
    (layer + 1) % m.decoderSparseStep === 0;
}

/** `num_key_value_heads` as the family's config class reads it (`_decoder_families.ts`). */
function _kvHeads(c: _Json, o: { heads: number; rules: _FamilyRules }): number {
  const v = c.num_key_value_heads;
  if (v === undefined) return o.rules.kvHeadsAbsent === "heads" ? o.heads : o.rules.kvHeadsAbsent;
  if (v === null) {
    if (o.rules.kvHeadsNullIsHeads) return o.heads;
    throw _bad("CONFIG_FIELD", "num_key_value_heads is null, which this config class cannot load");
  }
  // HF and vLLM only divide and multiply by it: `False` divides by zero as 0 does (HF's
  // `num_attention_heads // num_key_value_heads`), `True` is one head.
  return _int(c, "num_key_value_heads", { max: 1024, booleans: "integer" });
}

/**
 * `architectures` other than the family's causal-LM class: HF's `AutoModelForCausalLM` builds the
 * model of `model_type` whatever the list names, vLLM builds the class the list names, so which
 * model ran is not known here: not modelled (NOT_VERIFIED), never read as evidence against a
 * record (the list's other contents are no model HF would refuse to build).
 */
function _checkArchitectures(v: unknown, expected: string): void {
  if (_namesNoArchitectures(v)) return;
  if (!Array.isArray(v) || v.length !== 1 || v[0] !== expected) {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `architectures ${_show(v)} is not ['${expected}']: which class ran it (HF's ` +
        "AutoModelForCausalLM reads model_type, vLLM the architectures) is not modelled",
    );
  }
}

/**
 * Whether `architectures` names no class: absent, null or an empty list. vLLM refuses all three
 * alike (`ModelRegistry.inspect_model_cls`, `vllm/model_executor/models/registry.py` at commit
 * c3124680: `if not architectures: raise ValueError("No model architectures are specified")`,
 * the model config's list being `getattr(hf_config, "architectures", [])`), and HF's
 * `AutoModelForCausalLM` reads `model_type` whatever the list holds.
 */
function _namesNoArchitectures(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.length === 0);
}

/**
 * Why a stack built on the given Transformers version would read the config as another model
 * than `config` describes (a RoPE or an expert count given in a form only Transformers 5 reads;
 * on Transformers 5, a `true` KV head count that its huggingface_hub release may refuse), or
 * null when it reads this one. A config Transformers 5 refuses to load at all (a float where
 * its typed config wants an int), or 4.5x (a `rope_scaling` missing keys it requires), is no
 * other reading but no model: `hfRefusal`.
 *
 * @param config the parsed config
 * @param transformers the stack's `transformers` component, or undefined (read as 4.5x)
 * @returns the reason, or null
 * @example
 * ```ts
 * import { configReadingGap, parseDecoderConfig } from "./decoder_config.ts";
 * const c = parseDecoderConfig({ model_type: "qwen3", vocab_size: 8, hidden_size: 256,
 *   intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1,
 *   head_dim: 128, rope_parameters: { rope_type: "default", rope_theta: 5e5 } });
 * if (configReadingGap(c, "4.5x") === null || configReadingGap(c, "5.x") !== null) throw new Error();
 * ```
 */
export function configReadingGap(
  config: DecoderConfig,
  transformers: string | undefined,
): string | null {
  // Transformers 5 reads the RoPE and experts as `config` describes; a `true` KV head count it
  // reads as one head or refuses, by its huggingface_hub release.
  if (_isTransformers5(transformers)) {
    return config.kvHeadsTrue === true
      ? "the config writes num_key_value_heads as true, which Transformers 5's typed config " +
        "reads as one head with huggingface_hub before 1.9 and refuses from 1.9 (@strict " +
        "rejects a bool for an int)"
      : null;
  }
  // 4.5x (and a stack naming none) reads these otherwise. A rope_scaling 4.5x refuses to load
  // (keys missing) is no other reading but no model: `hfRefusal`.
  if (config.ropeTransformers5Only === true && config.ropeTransformers4Missing === undefined) {
    return `the config gives its RoPE (theta ${config.ropeTheta}) in a form only Transformers 5 ` +
      "reads (rope_parameters alone, which 4.5x ignores)";
  }
  if (config.expertsTransformers5Only === true) {
    return "the config counts its experts by num_local_experts alone, which only Transformers 5 " +
      "reads (4.5x reads num_experts, default 128)";
  }
  return null;
}

/**
 * `pad_token_id`: null or absent (none), or an integer, which HF passes to `nn.Embedding` as
 * `padding_idx` (its range is `hfRefusal`'s). Another value (a float, text, a list, a boolean,
 * which Python reads as 0 or 1) is a reading not modelled.
 */
function _padTokenId(c: _Json): number | { readonly notNumber: string } | undefined {
  if (!_given(c, "pad_token_id")) return undefined;
  const v = c.pad_token_id;
  const notNumber = typeof v === "string" || (typeof v === "object" && v !== null);
  if (!notNumber && Number.isSafeInteger(v) && !_writtenAsFloat(c, "pad_token_id")) {
    return v as number;
  }
  const why = `pad_token_id ${_show(v)} is not an integer: how HF Transformers builds the ` +
    "embedding with it is not modelled";
  // Text, a list or an object: PyTorch's embedding compares it with 0 (`hfRefusal`).
  if (notNumber) return { notNumber: why };
  throw _bad("CONFIG_UNSUPPORTED", why);
}

/** A positive whole number as JavaScript holds it (`4096` and `4096.0` alike), else null. */
function _wholePositive(v: unknown): number | null {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1 ? v : null;
}

/**
 * Why vLLM 0.11 builds another model than `config` describes, or null (`_decoder_families.ts`):
 * Qwen3 and Qwen3-MoE with `attention_bias` true, whose `o_proj` vLLM builds without the bias HF
 * adds; a Qwen2 whose `head_dim` is not `hidden_size // num_attention_heads`, which vLLM builds at
 * the latter (narrowing larger stored q/k/v/o weights to it; smaller ones do not load). The one
 * decoder layer reads the config as HF does; vLLM's readings are not modelled.
 *
 * @param config the parsed config
 * @returns the reason, or null
 * @example
 * ```ts
 * import { vllmReadingGap } from "./decoder_config.ts";
 * const c = { bias: { qkv: true, o: true, mlp: false }, hidden: 256, heads: 4, headDim: 64 };
 * if (vllmReadingGap({ ...c, modelType: "qwen3" }) === null) throw new Error();
 * if (vllmReadingGap({ ...c, modelType: "llama" }) !== null) throw new Error();
 * if (vllmReadingGap({ ...c, modelType: "qwen2", headDim: 128 }) === null) throw new Error();
 * ```
 */
export function vllmReadingGap(
  config: Pick<DecoderConfig, "modelType" | "bias" | "hidden" | "heads" | "headDim">,
): string | null {
  const family = _FAMILIES[config.modelType];
  if (family.vllmOBias === "never" && config.bias.o) {
    return `'${config.modelType}' with attention_bias true: vLLM 0.11 builds o_proj without ` +
      "the bias HF adds (it skips the stored o_proj.bias; q/k/v keep theirs)";
  }
  const built = Math.floor(config.hidden / config.heads);
  if (family.vllmHeadDim === "hidden-over-heads" && config.headDim !== built) {
    return `'${config.modelType}' with head_dim ${config.headDim}: vLLM 0.11 builds heads of ` +
      `hidden_size / num_attention_heads = ${built} whatever head_dim says (qwen2.py:128)`;
  }
  return null;
}

/**
 * `rms_norm_eps` as decimal text. Absent: the config classes' 1e-6; an explicit null is None to
 * HF, which fails at run time (malformed). Zero or below, HF Transformers 4.5x builds the model
 * (no validation) and a row of zeros then normalises through rsqrt(0): a model that runs but is
 * not modelled here, so NOT_VERIFIED rather than a FAIL of an honest record (`_positive`). So does
 * a NaN or an infinity (Python's `json` reads `NaN`, `Infinity` and `1e400`): neither HF
 * (`Qwen3RMSNorm` and its siblings keep `variance_epsilon = eps` and add it under the rsqrt) nor
 * vLLM (`RMSNorm.__init__`, `vllm/model_executor/layers/layernorm.py` at commit c3124680)
 * validates it, and the model runs. Such a value is kept in `unmodelled` (not thrown), so that a
 * stack that refuses the config for another reason still FAILs it (`stackLoadRefusal`).
 */
function _eps(v: unknown): { readonly text: string; readonly unmodelled?: string } {
  const eps = v === undefined ? 1e-6 : v;
  if (typeof eps === "number" && !Number.isFinite(eps)) {
    return {
      text: String(eps),
      unmodelled: `rms_norm_eps ${_show(eps)} is not finite: HF and vLLM compute with it ` +
        "(neither validates it), which is not modelled",
    };
  }
  if (typeof eps === "number" && eps <= 0) {
    return {
      text: String(eps),
      unmodelled: `rms_norm_eps ${_show(eps)} is not positive: HF computes with it, which is ` +
        "not modelled",
    };
  }
  return { text: String(_positive(eps, "rms_norm_eps")) };
}
