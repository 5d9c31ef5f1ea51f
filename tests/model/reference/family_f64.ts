/**
 * One decoder description per family, read from a parsed `config.json` the way HF Transformers'
 * config classes and modeling files read it (`configuration_*.py` defaults, `modeling_*.py`
 * layer construction). What differs between the families:
 *
 * | model_type | q/k/v bias | o bias | MLP bias | QK-norm | MLP | head_dim default |
 * |---|---|---|---|---|---|---|
 * | `llama` | `attention_bias` | `attention_bias` | `mlp_bias` | no | gated | hidden / heads |
 * | `mistral` | no | no | no | no | gated | hidden / heads |
 * | `qwen2` | yes (hard-wired) | no | no | no | gated | hidden / heads |
 * | `qwen3` | `attention_bias` | `attention_bias` | no | yes | gated | 128 |
 * | `qwen3_moe` | `attention_bias` | `attention_bias` | no | yes | gated or MoE | hidden / heads |
 *
 * A Qwen3-MoE layer `i` is sparse when `i` is not in `mlp_only_layers`, `num_experts > 0` and
 * `(i + 1) % decoder_sparse_step == 0`. `tie_word_embeddings` only decides where the LM head
 * comes from (no `lm_head.weight` in the checkpoint); the final-norm hidden states ignore it.
 *
 * @module
 */
import { ropeInvFreq, type RopeSpec, ropeSpec } from "./rope_f64.ts";

/** The families the reference models. */
export const FAMILIES = ["llama", "mistral", "qwen2", "qwen3", "qwen3_moe"] as const;

/** A modelled `model_type`. */
export type Family = typeof FAMILIES[number];

/** MoE shape of a Qwen3-MoE model. */
export interface MoeSpec {
  /** `num_experts`. */
  readonly experts: number;
  /** `num_experts_per_tok`. */
  readonly topK: number;
  /** `moe_intermediate_size`. */
  readonly intermediate: number;
  /** `norm_topk_prob` (default false): renormalise the top-k probabilities to sum 1. */
  readonly normTopkProb: boolean;
  /** Per layer: sparse (MoE block) or dense (gated MLP of `intermediate_size`). */
  readonly sparse: readonly boolean[];
}

/** A decoder, normalised from its config. */
export interface FamilySpec {
  /** `model_type`. */
  readonly family: Family;
  /** `vocab_size`. */
  readonly vocab: number;
  /** `hidden_size`. */
  readonly hidden: number;
  /** `num_hidden_layers`. */
  readonly layers: number;
  /** `num_attention_heads`. */
  readonly heads: number;
  /** KV heads; query head `h` reads KV head `floor(h / (heads / kvHeads))` (`repeat_kv`). */
  readonly kvHeads: number;
  /** `head_dim` (default per family, see the module doc). */
  readonly headDim: number;
  /** Dense MLP width (`intermediate_size`). */
  readonly intermediate: number;
  /** `rms_norm_eps` (every RMSNorm, QK-norm included). */
  readonly eps: number;
  /** q/k/v projections have biases. */
  readonly qkvBias: boolean;
  /** `o_proj` has a bias. */
  readonly oBias: boolean;
  /** gate/up/down projections have biases (Llama `mlp_bias`). */
  readonly mlpBias: boolean;
  /** Per-head RMSNorm of q and k before RoPE (`q_norm`, `k_norm`). */
  readonly qkNorm: boolean;
  /** `tie_word_embeddings`: the LM head is the embedding (no `lm_head.weight`). */
  readonly tiedEmbeddings: boolean;
  /** Longest prefill the reference may run: the sliding window if one applies, else Infinity. */
  readonly maxTokens: number;
  /** The RoPE fields, normalised. */
  readonly rope: RopeSpec;
  /** `rope.dim / 2` inverse frequencies (float64). */
  readonly invFreq: Float64Array;
  /** MoE shape (`qwen3_moe` only). */
  readonly moe: MoeSpec | null;
}

/**
 * Reads a config.
 *
 * @param config the parsed `config.json`
 * @returns the decoder description
 * @throws {TypeError} on a config that is not an object
 * @throws {RangeError} on an unmodelled `model_type`, `hidden_act` or RoPE, or a bad field
 * @example
 * ```ts
 * import { familySpec } from "./family_f64.ts";
 * const s = familySpec({ model_type: "qwen2", vocab_size: 8, hidden_size: 64,
 *   intermediate_size: 128, num_hidden_layers: 1, num_attention_heads: 4, num_key_value_heads: 2 });
 * if (!s.qkvBias || s.oBias || s.headDim !== 16) throw new Error();
 * ```
 */
export function familySpec(config: unknown): FamilySpec {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    throw new TypeError("Cannot read config: not a JSON object");
  }
  const c = config as Readonly<Record<string, unknown>>;
  const family = c.model_type as Family;
  if (!FAMILIES.includes(family)) {
    throw new RangeError(
      `Cannot read config: model_type ${JSON.stringify(c.model_type)} is not modelled`,
    );
  }
  if ((c.hidden_act ?? "silu") !== "silu") {
    throw new RangeError(
      `Cannot read config: hidden_act ${JSON.stringify(c.hidden_act)} is not silu`,
    );
  }
  const hidden = _int(c, "hidden_size");
  const heads = _int(c, "num_attention_heads");
  const kvHeads = c.num_key_value_heads == null ? heads : _int(c, "num_key_value_heads");
  if (heads % kvHeads !== 0) {
    throw new RangeError(`Cannot read config: ${heads} heads are not a multiple of ${kvHeads}`);
  }
  const headDim = c.head_dim == null
    ? (family === "qwen3" ? 128 : Math.floor(hidden / heads))
    : _int(c, "head_dim");
  const layers = _int(c, "num_hidden_layers");
  const attentionBias = c.attention_bias === true;
  const rope = ropeSpec(c, headDim);
  return {
    family,
    vocab: _int(c, "vocab_size"),
    hidden,
    layers,
    heads,
    kvHeads,
    headDim,
    intermediate: _int(c, "intermediate_size"),
    eps: typeof c.rms_norm_eps === "number" ? c.rms_norm_eps : 1e-6,
    qkvBias: family === "qwen2" || (family !== "mistral" && attentionBias),
    oBias: family !== "qwen2" && family !== "mistral" && attentionBias,
    mlpBias: family === "llama" && c.mlp_bias === true,
    qkNorm: family === "qwen3" || family === "qwen3_moe",
    tiedEmbeddings: c.tie_word_embeddings === true,
    maxTokens: _window(c, family),
    rope,
    invFreq: ropeInvFreq(rope),
    moe: family === "qwen3_moe" ? _moe(c, layers) : null,
  };
}

/** HF: Mistral's `sliding_window` (default 4096) always applies; Qwen's only with the flag. */
function _window(c: Readonly<Record<string, unknown>>, family: Family): number {
  if (family === "llama") return Infinity;
  if (family !== "mistral" && c.use_sliding_window !== true) return Infinity;
  const w = c.sliding_window === undefined && family === "mistral" ? 4096 : c.sliding_window;
  return w == null ? Infinity : _int({ sliding_window: w }, "sliding_window");
}

function _moe(c: Readonly<Record<string, unknown>>, layers: number): MoeSpec {
  const experts = _int(c, "num_experts");
  const step = c.decoder_sparse_step == null ? 1 : _int(c, "decoder_sparse_step");
  const only = c.mlp_only_layers ?? [];
  if (!Array.isArray(only)) {
    throw new RangeError("Cannot read config: mlp_only_layers is not a list");
  }
  const sparse = Array.from(
    { length: layers },
    (_, i) => !only.includes(i) && experts > 0 && (i + 1) % step === 0,
  );
  return {
    experts,
    topK: _int(c, "num_experts_per_tok"),
    intermediate: _int(c, "moe_intermediate_size"),
    normTopkProb: c.norm_topk_prob === true,
    sparse,
  };
}

function _int(c: Readonly<Record<string, unknown>>, field: string): number {
  const v = c[field];
  if (typeof v !== "number" || !Number.isInteger(v) || v <= 0) {
    throw new RangeError(
      `Cannot read config: ${field} is ${JSON.stringify(v)}, not a positive integer`,
    );
  }
  return v;
}
