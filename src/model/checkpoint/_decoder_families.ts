/**
 * What each supported `model_type` means for a decoder layer, as HF Transformers' modeling code
 * builds it (`modeling_qwen3.py`, `modeling_qwen3_moe.py`, `modeling_llama.py`,
 * `modeling_qwen2.py`, `modeling_mistral.py`; 4.5x and 5.x agree on every fact used here but
 * one: Mistral's null `num_key_value_heads`, which 4.5x reads as the heads and 5.17's strict
 * config class refuses):
 *
 * | family    | class                 | QK-norm | q/k/v bias        | o bias         | MLP bias   | head_dim when absent | num_key_value_heads absent / null |
 * |-----------|-----------------------|---------|-------------------|----------------|------------|----------------------|-----------------------------------|
 * | qwen3     | Qwen3ForCausalLM      | yes     | `attention_bias`  | `attention_bias` | none     | 128                  | 32 / heads                        |
 * | qwen3_moe | Qwen3MoeForCausalLM   | yes     | `attention_bias`  | `attention_bias` | none     | hidden // heads      | 4 / (fails to load)               |
 * | llama     | LlamaForCausalLM      | no      | `attention_bias`  | `attention_bias` | `mlp_bias` | hidden // heads    | heads / heads                     |
 * | qwen2     | Qwen2ForCausalLM      | no      | always            | never          | none       | hidden // heads      | 32 / heads                        |
 * | mistral   | MistralForCausalLM    | no      | never             | never          | none       | hidden // heads      | 8 / heads                         |
 *
 * vLLM 0.11 builds Qwen3 and Qwen3-MoE attention with `o_proj` unbiased whatever
 * `attention_bias` says (`qwen3.py:106-112`, `qwen3_moe.py:237-241` at commit c3124680: `bias=False`;
 * q/k/v take `attention_bias`, `qwen3.py:195`, `qwen3_moe.py:316`) and its loaders skip a
 * stored `o_proj.bias` (`qwen2.py:428-430`, which Qwen3 inherits; `qwen3_moe.py:543-546`). Its
 * Qwen2 matches HF (q/k/v biased, o not: `qwen2.py:143`, `:150`), its Llama too
 * (`bias_o_proj = attention_bias`, `llama.py:264-266`), and it runs Mistral as Llama
 * (`registry.py:121`), whose config has no `attention_bias`.
 *
 * `max_position_embeddings` absent takes the config class's default too (4.57: 32768 for
 * qwen3, qwen3_moe and qwen2, 2048 for llama, 4096 * 32 for mistral); HF's default and linear
 * RoPE do not read it, vLLM derives its longest sequence from it (`vllm_max_model_len.ts`).
 *
 * `num_key_value_heads` absent from `config.json` takes the config class's default (the keyword
 * argument's default, `configuration_<family>.py` of 4.57 and 5.18 alike); null ("None") means
 * `num_attention_heads` except for Qwen3-MoE, whose class keeps None and cannot build the model.
 * `head_dim` absent divides with Python's `//` (floor).
 *
 * Sliding windows: Qwen2 and the Qwen3 classes apply one only with `use_sliding_window: true`;
 * Mistral applies `sliding_window` whenever it is set, so there a non-null value is refused.
 * Before the fix of HF issue #38002 (PR #38045) the Qwen2 and Qwen3 config classes kept
 * `sliding_window` while `use_sliding_window` was false (`self.sliding_window = sliding_window  #
 * we check use_sliding_window in the modeling code`, 4.51), and the models' sdpa and eager masks
 * read it all the same; 4.57.6 drops it (`sliding_window if self.use_sliding_window else None`,
 * `configuration_qwen2.py:181`, `configuration_qwen3.py:187`). Qwen3-MoE's class has always
 * dropped it (`sliding_window if use_sliding_window else None`, `configuration_qwen3_moe.py:207`
 * in 4.57.6, and in a stored copy of its 4.51 form). `windowKeptWhenOff` says which
 * (`kept_window.ts`).
 *
 * @module
 */
import { _bad, _bool, type _Json, _show } from "./_config_values.ts";

/** The decoder families this emulator models. */
export type DecoderFamily = "qwen3" | "qwen3_moe" | "llama" | "qwen2" | "mistral";

/** Which linear layers of a decoder layer carry a bias. */
export interface LinearBiases {
  /** q_proj, k_proj and v_proj. */
  readonly qkv: boolean;
  /** o_proj. */
  readonly o: boolean;
  /** gate_proj, up_proj and down_proj (dense MLP and experts). */
  readonly mlp: boolean;
}

/** One family's rules. */
export interface _FamilyRules {
  /** The `architectures` entry its checkpoints name. */
  readonly architecture: string;
  /** Per-head RMSNorm of q and k before RoPE. */
  readonly qkNorm: boolean;
  /** Whether it has MoE layers. */
  readonly moe: boolean;
  /** Its biases, from the config. */
  readonly biases: (c: _Json) => LinearBiases;
  /** `head_dim` when the config gives none. */
  readonly headDim: (o: { hidden: number; heads: number }) => number;
  /**
   * Whether a null `head_dim` means the default: the Llama and Mistral classes (`head_dim or
   * hidden // heads`); the Qwen2 and Qwen3 classes read None and cannot build the model.
   */
  readonly headDimNullIsDefault: boolean;
  /** `num_key_value_heads` when the config does not name it: the class default, or the heads. */
  readonly kvHeadsAbsent: number | "heads";
  /** Whether a null `num_key_value_heads` means the heads (else the class cannot load it). */
  readonly kvHeadsNullIsHeads: boolean;
  /** `max_position_embeddings` when the config does not name it: the config class default. */
  readonly maxPositionsAbsent: number;
  /** Whether vLLM 0.11 builds `o_proj` as HF does (else: never biased). */
  readonly vllmOBias: "as-hf" | "never";
  /**
   * The head dimension vLLM 0.11 builds: the config's, as HF does, or `hidden_size //
   * num_attention_heads` whatever `head_dim` says (`qwen2.py:128`; its weight loaders then narrow
   * larger stored q/k/v/o tensors to it without an error).
   */
  readonly vllmHeadDim: "as-hf" | "hidden-over-heads";
  /**
   * The window a Transformers release before the #38002 fix keeps while `use_sliding_window` is
   * false when the config names none (the class default, 4096 in Qwen2 and Qwen3), or null when
   * the family's class drops the window whenever it is off (Qwen3-MoE) or has no such switch.
   */
  readonly windowKeptWhenOff: number | null;
  /** Fields it reads beyond the common ones. */
  readonly keys: readonly string[];
  /** Fields it ignores (no effect on a forward's numbers). */
  readonly harmless: readonly string[];
}

const _NO_MLP_BIAS = (c: _Json) => {
  if (c.mlp_bias !== undefined && c.mlp_bias !== false) {
    throw _bad("CONFIG_UNSUPPORTED", `mlp_bias ${_show(c.mlp_bias)} is not modelled`);
  }
};

/** Attention biases as `attention_bias` sets them (q, k, v and o together). */
const _attentionBias = (c: _Json): LinearBiases => {
  _NO_MLP_BIAS(c);
  const b = _bool(c, "attention_bias", false);
  return { qkv: b, o: b, mlp: false };
};

/** Every family's rules, by `model_type`. */
export const _FAMILIES: Readonly<Record<DecoderFamily, _FamilyRules>> = {
  qwen3: {
    architecture: "Qwen3ForCausalLM",
    qkNorm: true,
    moe: false,
    biases: _attentionBias,
    headDim: () => 128,
    kvHeadsAbsent: 32,
    kvHeadsNullIsHeads: true,
    maxPositionsAbsent: 32768,
    vllmOBias: "never",
    vllmHeadDim: "as-hf",
    headDimNullIsDefault: false,
    windowKeptWhenOff: 4096,
    keys: ["attention_bias", "mlp_bias", "use_sliding_window", "max_window_layers"],
    harmless: [],
  },
  qwen3_moe: {
    architecture: "Qwen3MoeForCausalLM",
    qkNorm: true,
    moe: true,
    biases: _attentionBias,
    headDim: (o) => Math.floor(o.hidden / o.heads),
    kvHeadsAbsent: 4,
    kvHeadsNullIsHeads: false,
    maxPositionsAbsent: 32768,
    vllmOBias: "never",
    vllmHeadDim: "as-hf",
    headDimNullIsDefault: false,
    windowKeptWhenOff: null,
    keys: ["attention_bias", "mlp_bias", "use_sliding_window", "max_window_layers"],
    harmless: [],
  },
  llama: {
    architecture: "LlamaForCausalLM",
    qkNorm: false,
    moe: false,
    biases: (c) => {
      const b = _bool(c, "attention_bias", false);
      return { qkv: b, o: b, mlp: _bool(c, "mlp_bias", false) };
    },
    headDim: (o) => Math.floor(o.hidden / o.heads),
    kvHeadsAbsent: "heads",
    kvHeadsNullIsHeads: true,
    maxPositionsAbsent: 2048,
    vllmOBias: "as-hf",
    vllmHeadDim: "as-hf",
    headDimNullIsDefault: true,
    windowKeptWhenOff: null,
    keys: ["attention_bias", "mlp_bias", "pretraining_tp"],
    harmless: [],
  },
  qwen2: {
    architecture: "Qwen2ForCausalLM",
    qkNorm: false,
    moe: false,
    biases: (c) => {
      _NO_MLP_BIAS(c);
      return { qkv: true, o: false, mlp: false };
    },
    headDim: (o) => Math.floor(o.hidden / o.heads),
    kvHeadsAbsent: 32,
    kvHeadsNullIsHeads: true,
    maxPositionsAbsent: 32768,
    vllmOBias: "as-hf",
    vllmHeadDim: "hidden-over-heads",
    headDimNullIsDefault: false,
    windowKeptWhenOff: 4096,
    keys: ["use_sliding_window", "max_window_layers", "mlp_bias"],
    harmless: [],
  },
  mistral: {
    architecture: "MistralForCausalLM",
    qkNorm: false,
    moe: false,
    biases: (c) => {
      _NO_MLP_BIAS(c);
      return { qkv: false, o: false, mlp: false };
    },
    headDim: (o) => Math.floor(o.hidden / o.heads),
    kvHeadsAbsent: 8,
    kvHeadsNullIsHeads: true,
    maxPositionsAbsent: 4096 * 32,
    vllmOBias: "as-hf",
    vllmHeadDim: "as-hf",
    headDimNullIsDefault: true,
    windowKeptWhenOff: null,
    keys: ["mlp_bias"],
    harmless: [],
  },
};

/**
 * The rules of a `model_type`, or the coded refusal naming the supported ones.
 *
 * @param type the config's `model_type`
 * @returns the family and its rules
 * @throws {InputError} `CONFIG_MODEL_TYPE`
 */
export function _family(type: unknown): { family: DecoderFamily; rules: _FamilyRules } {
  if (typeof type === "string" && Object.hasOwn(_FAMILIES, type)) {
    return { family: type as DecoderFamily, rules: _FAMILIES[type as DecoderFamily] };
  }
  const names = Object.keys(_FAMILIES).map((f) => `'${f}'`).join(", ");
  throw _bad("CONFIG_MODEL_TYPE", `model_type ${_show(type)} is not supported (only ${names})`);
}
