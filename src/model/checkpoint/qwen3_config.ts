/**
 * The `config.json` of a Hugging Face Qwen3 checkpoint (`model_type` `qwen3` or `qwen3_moe`),
 * validated strictly: every field that changes the forward pass is read, and every feature this
 * emulator does not model (another architecture, RoPE scaling, attention biases, sliding-window
 * attention, another activation or dtype) is refused by name, never approximated.
 *
 * Field meanings follow HF Transformers' `Qwen3Config` / `Qwen3MoeConfig` (modeling code read at
 * the commits listed in spec `stack_pytorch_hf.md` §0). MoE layer rule (`Qwen3MoeDecoderLayer`):
 * layer i is sparse iff `i` is not in `mlp_only_layers`, `num_experts > 0` and
 * `(i + 1) % decoder_sparse_step == 0`; otherwise it has a dense MLP of `intermediate_size`.
 *
 * @module
 */
import { InputError, type ModelCode } from "../../errors.ts";

/** MoE facts of a `qwen3_moe` config. */
export interface Qwen3MoeConfig {
  /** `num_experts` E. */
  readonly experts: number;
  /** `num_experts_per_tok` (top-k). */
  readonly topK: number;
  /** `moe_intermediate_size` (each expert's gate/up width). */
  readonly intermediate: number;
  /** `norm_topk_prob`: renormalise the top-k weights to sum 1. */
  readonly normTopkProb: boolean;
  /** `decoder_sparse_step`. */
  readonly decoderSparseStep: number;
  /** `mlp_only_layers` (dense layers by index). */
  readonly mlpOnlyLayers: readonly number[];
}

/** A validated Qwen3 config (frozen). */
export interface Qwen3Config {
  /** `qwen3` (dense) or `qwen3_moe`. */
  readonly modelType: "qwen3" | "qwen3_moe";
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
  /** `num_key_value_heads`. */
  readonly kvHeads: number;
  /** `head_dim` (default hidden / heads, as HF). */
  readonly headDim: number;
  /** `rms_norm_eps` as the decimal text of the Python float (e.g. `"1e-06"`). */
  readonly rmsNormEps: string;
  /** `rope_theta` as the decimal text of the Python number. */
  readonly ropeTheta: string;
  /** `tie_word_embeddings`: the LM head is `embed_tokens`. */
  readonly tieWordEmbeddings: boolean;
  /** MoE section (`qwen3_moe` only). */
  readonly moe?: Qwen3MoeConfig;
}

const _ARCH = { qwen3: "Qwen3ForCausalLM", qwen3_moe: "Qwen3MoeForCausalLM" } as const;

/**
 * Validates a parsed `config.json`.
 *
 * @param json the parsed document
 * @returns the config
 * @throws {InputError} `CONFIG_MODEL_TYPE` (not qwen3/qwen3_moe, or an architecture list naming
 *   another class), `CONFIG_UNSUPPORTED` (rope_scaling, attention_bias, sliding window, activation
 *   other than silu, dtype other than bfloat16), `CONFIG_FIELD` (missing or out-of-range field)
 * @example
 * ```ts
 * import { parseQwen3Config } from "./qwen3_config.ts";
 * const c = parseQwen3Config({
 *   model_type: "qwen3", vocab_size: 16, hidden_size: 256, intermediate_size: 768,
 *   num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 128,
 *   rms_norm_eps: 1e-6, rope_theta: 1000000, tie_word_embeddings: true,
 * });
 * if (c.rmsNormEps !== "0.000001" || c.moe !== undefined) throw new Error(c.rmsNormEps);
 * let code = "";
 * try { parseQwen3Config({ model_type: "llama" }); } catch (e) { code = (e as { code: string }).code; }
 * if (code !== "CONFIG_MODEL_TYPE") throw new Error();
 * ```
 */
export function parseQwen3Config(json: unknown): Qwen3Config {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw _bad("CONFIG_FIELD", "config.json is not a JSON object");
  }
  const c = json as Record<string, unknown>;
  const type = c.model_type;
  if (type !== "qwen3" && type !== "qwen3_moe") {
    throw _bad(
      "CONFIG_MODEL_TYPE",
      `model_type ${_show(type)} is not supported (only 'qwen3' and 'qwen3_moe')`,
    );
  }
  _checkArchitectures(c.architectures, _ARCH[type]);
  _refuse(c);
  const hidden = _int(c, "hidden_size", 1 << 16);
  const heads = _int(c, "num_attention_heads", 1024);
  const kvHeads = _int(c, "num_key_value_heads", 1024);
  if (heads % kvHeads !== 0) {
    throw _bad("CONFIG_FIELD", `num_key_value_heads ${kvHeads} does not divide ${heads} heads`);
  }
  const headDim = c.head_dim === undefined || c.head_dim === null
    ? hidden / heads
    : _int(c, "head_dim", 1024);
  if (!Number.isInteger(headDim) || headDim % 2 !== 0) {
    throw _bad("CONFIG_FIELD", `head_dim ${headDim} must be an even integer`);
  }
  const layers = _int(c, "num_hidden_layers", 1024);
  const eps = _positive(c, "rms_norm_eps", 1e-6);
  const theta = _positive(c, "rope_theta", 10000);
  if (!(Number(theta) > 1)) throw _bad("CONFIG_FIELD", `rope_theta ${theta} must exceed 1`);
  const tie = c.tie_word_embeddings ?? false;
  if (typeof tie !== "boolean") throw _bad("CONFIG_FIELD", "tie_word_embeddings must be a boolean");
  return Object.freeze({
    modelType: type,
    vocab: _int(c, "vocab_size", 1 << 22),
    hidden,
    intermediate: _int(c, "intermediate_size", 1 << 18),
    layers,
    heads,
    kvHeads,
    headDim,
    rmsNormEps: eps,
    ropeTheta: theta,
    tieWordEmbeddings: tie,
    ...(type === "qwen3_moe" ? { moe: _moe(c, layers) } : {}),
  });
}

/**
 * Tells whether decoder layer `layer` of a config has a sparse MoE block.
 *
 * @param config the config
 * @param layer layer index
 * @returns true for a MoE layer
 * @example
 * ```ts
 * import { isMoeLayer } from "./qwen3_config.ts";
 * const moe = { experts: 4, topK: 2, intermediate: 8, normTopkProb: true, decoderSparseStep: 2, mlpOnlyLayers: [3] };
 * const c = { moe } as unknown as Parameters<typeof isMoeLayer>[0];
 * if (isMoeLayer(c, 0) || !isMoeLayer(c, 1) || isMoeLayer(c, 3)) throw new Error();
 * ```
 */
export function isMoeLayer(config: Qwen3Config, layer: number): boolean {
  const m = config.moe;
  return m !== undefined && m.experts > 0 && !m.mlpOnlyLayers.includes(layer) &&
    (layer + 1) % m.decoderSparseStep === 0;
}

function _moe(c: Record<string, unknown>, layers: number): Qwen3MoeConfig {
  const experts = _int(c, "num_experts", 1 << 12);
  const topK = _int(c, "num_experts_per_tok", experts);
  const norm = c.norm_topk_prob ?? false;
  if (typeof norm !== "boolean") throw _bad("CONFIG_FIELD", "norm_topk_prob must be a boolean");
  const only = c.mlp_only_layers ?? [];
  if (
    !Array.isArray(only) ||
    !only.every((i) => Number.isSafeInteger(i) && (i as number) >= 0 && (i as number) < layers)
  ) {
    throw _bad("CONFIG_FIELD", `mlp_only_layers must list layer indices below ${layers}`);
  }
  return Object.freeze({
    experts,
    topK,
    intermediate: _int(c, "moe_intermediate_size", 1 << 18),
    normTopkProb: norm,
    decoderSparseStep: c.decoder_sparse_step === undefined
      ? 1
      : _int(c, "decoder_sparse_step", layers),
    mlpOnlyLayers: Object.freeze([...only as number[]].sort((a, b) => a - b)),
  });
}

function _checkArchitectures(v: unknown, expected: string): void {
  if (v === undefined || v === null) return;
  if (!Array.isArray(v) || v.length !== 1 || v[0] !== expected) {
    throw _bad("CONFIG_MODEL_TYPE", `architectures ${_show(v)} is not ['${expected}']`);
  }
}

function _refuse(c: Record<string, unknown>): void {
  if (c.rope_scaling !== undefined && c.rope_scaling !== null) {
    throw _bad("CONFIG_UNSUPPORTED", `rope_scaling ${_show(c.rope_scaling)} is not modelled`);
  }
  const rp = c.rope_parameters;
  if (rp !== undefined && rp !== null) {
    const t = (rp as Record<string, unknown>).rope_type;
    if (typeof rp !== "object" || (t !== undefined && t !== "default")) {
      throw _bad("CONFIG_UNSUPPORTED", `rope_parameters ${_show(rp)} is not modelled`);
    }
  }
  for (const key of ["attention_bias", "mlp_bias", "use_sliding_window"]) {
    if (c[key] !== undefined && c[key] !== false) {
      throw _bad("CONFIG_UNSUPPORTED", `${key} ${_show(c[key])} is not modelled`);
    }
  }
  const layerTypes = c.layer_types;
  if (Array.isArray(layerTypes) && layerTypes.some((t) => t !== "full_attention")) {
    throw _bad("CONFIG_UNSUPPORTED", "layer_types other than 'full_attention' are not modelled");
  }
  if ((c.hidden_act ?? "silu") !== "silu") {
    throw _bad("CONFIG_UNSUPPORTED", `hidden_act ${_show(c.hidden_act)} is not modelled`);
  }
  const dtype = c.torch_dtype ?? c.dtype ?? "bfloat16";
  if (dtype !== "bfloat16") {
    throw _bad("CONFIG_UNSUPPORTED", `dtype ${_show(dtype)} is not modelled (bfloat16 only)`);
  }
}

function _int(c: Record<string, unknown>, key: string, max: number): number {
  const v = c[key];
  if (!Number.isSafeInteger(v) || (v as number) < 1 || (v as number) > max) {
    throw _bad("CONFIG_FIELD", `${key} must be an integer in 1..${max}, got ${_show(v)}`);
  }
  return v as number;
}

/** A positive finite number as JavaScript's shortest round-trip decimal text. */
function _positive(c: Record<string, unknown>, key: string, fallback: number): string {
  const v = c[key] ?? fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
    throw _bad("CONFIG_FIELD", `${key} must be a positive number, got ${_show(v)}`);
  }
  return String(v);
}

function _show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return `'${s.length > 60 ? s.slice(0, 57) + "..." : s}'`.replace(/[^\x20-\x7e]/g, "?");
}

function _bad(code: ModelCode, why: string): InputError {
  return new InputError(code, `Cannot use config: ${why}`);
}
