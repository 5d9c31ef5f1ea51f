/**
 * RoPE inverse frequencies in float64, written from HF Transformers `modeling_rope_utils.py`
 * (`_compute_default_rope_parameters`, `_compute_linear_scaling_rope_parameters`,
 * `_compute_llama3_parameters`), and the reading of a config's RoPE fields in both layouts:
 *
 * - Transformers 4.5x: top-level `rope_theta` (default 10000) and an optional `rope_scaling`
 *   dict `{rope_type | type, factor, ...}`;
 * - Transformers 5.x: `rope_parameters` `{rope_type, rope_theta, ...}` (possibly nested under
 *   the layer type `full_attention`).
 *
 * Precedence, as 5.x `convert_rope_params_to_dict` / `standardize_rope_params` apply it: the dict
 * is `rope_scaling or rope_parameters` (a non-empty legacy `rope_scaling` wins); `rope_theta`
 * inside the dict wins over the top-level `rope_theta`, which wins over the default 10000;
 * `rope_type` falls back to the legacy key `type`, then to `"default"`; for llama3 a top-level
 * `original_max_position_embeddings` wins over the dict's (the Phi-3 exception), then the dict's,
 * then `max_position_embeddings`.
 *
 * HF computes `inv_freq` in float32; this file computes it in float64 (the reference's point is
 * wiring, and the float32 rounding is far below the forward's tolerance).
 *
 * @module
 */

/** The RoPE variants the reference models. */
export type RopeType = "default" | "linear" | "llama3";

/** A config's RoPE, normalised. */
export interface RopeSpec {
  /** The variant (HF `rope_type`). */
  readonly ropeType: RopeType;
  /** The base period `rope_theta`. */
  readonly theta: number;
  /** Rotated dimensions (the head dimension; `partial_rotary_factor` is refused). */
  readonly dim: number;
  /** `factor` (linear, llama3), else 1. */
  readonly factor: number;
  /** llama3 `low_freq_factor`, else 0. */
  readonly lowFreqFactor: number;
  /** llama3 `high_freq_factor`, else 0. */
  readonly highFreqFactor: number;
  /** llama3 `original_max_position_embeddings` (the pre-training context), else 0. */
  readonly originalMaxPositionEmbeddings: number;
}

/** Default RoPE theta of the modelled families' config classes (Llama, Mistral, Qwen2/3). */
export const DEFAULT_ROPE_THETA = 10000;

/**
 * Default RoPE: `inv_freq[i] = 1 / theta^(2i / dim)` for `i < dim / 2`.
 *
 * @param o `theta` (base period) and `dim` (rotated dimensions, even)
 * @returns `dim / 2` inverse frequencies, radians per position
 * @throws {RangeError} on a non-positive theta or an odd or non-positive dim
 * @example
 * ```ts
 * import { defaultInvFreq } from "./rope_f64.ts";
 * if (defaultInvFreq({ theta: 10000, dim: 4 })[1] !== 0.01) throw new Error();
 * ```
 */
export function defaultInvFreq(o: { theta: number; dim: number }): Float64Array {
  if (!(o.theta > 0)) throw new RangeError(`Cannot compute RoPE: theta ${o.theta} is not > 0`);
  if (!Number.isInteger(o.dim) || o.dim <= 0 || o.dim % 2 !== 0) {
    throw new RangeError(`Cannot compute RoPE: dim ${o.dim} is not a positive even integer`);
  }
  const out = new Float64Array(o.dim / 2);
  for (let i = 0; i < out.length; i++) out[i] = 1 / o.theta ** ((2 * i) / o.dim);
  return out;
}

/**
 * Linear scaling (`rope_type: "linear"`): the default frequencies divided by `factor`.
 *
 * @param o `theta`, `dim` and `factor` (> 0)
 * @returns `dim / 2` inverse frequencies
 * @throws {RangeError} as {@link defaultInvFreq}, or on a non-positive factor
 * @example
 * ```ts
 * import { linearInvFreq } from "./rope_f64.ts";
 * if (linearInvFreq({ theta: 10000, dim: 4, factor: 4 })[0] !== 0.25) throw new Error();
 * ```
 */
export function linearInvFreq(o: { theta: number; dim: number; factor: number }): Float64Array {
  if (!(o.factor > 0)) throw new RangeError(`Cannot compute RoPE: factor ${o.factor} is not > 0`);
  return defaultInvFreq(o).map((f) => f / o.factor);
}

/**
 * Llama 3.1 scaling (`rope_type: "llama3"`), per `_compute_llama3_parameters`: with
 * `wavelen = 2 pi / inv_freq`, wavelengths above `old / low_freq_factor` are divided by `factor`,
 * those below `old / high_freq_factor` kept, and those between (bounds included) interpolated:
 * `s = (old / wavelen - low) / (high - low)`, `(1 - s) * inv_freq / factor + s * inv_freq`.
 *
 * @param o `theta`, `dim`, `factor`, `lowFreqFactor`, `highFreqFactor` and
 *   `originalMaxPositionEmbeddings` (`old`, tokens)
 * @returns `dim / 2` inverse frequencies
 * @throws {RangeError} as {@link defaultInvFreq}, or when `highFreqFactor <= lowFreqFactor`
 * @example
 * ```ts
 * import { llama3InvFreq } from "./rope_f64.ts";
 * const f = llama3InvFreq({ theta: 500000, dim: 128, factor: 8, lowFreqFactor: 1,
 *   highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 });
 * if (f[0] !== 1) throw new Error();
 * ```
 */
export function llama3InvFreq(
  o: {
    theta: number;
    dim: number;
    factor: number;
    lowFreqFactor: number;
    highFreqFactor: number;
    originalMaxPositionEmbeddings: number;
  },
): Float64Array {
  if (!(o.highFreqFactor > o.lowFreqFactor)) {
    throw new RangeError(
      `Cannot compute llama3 RoPE: high_freq_factor ${o.highFreqFactor} is not above low_freq_factor ${o.lowFreqFactor}`,
    );
  }
  const old = o.originalMaxPositionEmbeddings;
  const lowWavelen = old / o.lowFreqFactor;
  const highWavelen = old / o.highFreqFactor;
  return defaultInvFreq(o).map((f) => {
    const wavelen = (2 * Math.PI) / f;
    if (wavelen < highWavelen) return f;
    if (wavelen > lowWavelen) return f / o.factor;
    const s = (old / wavelen - o.lowFreqFactor) / (o.highFreqFactor - o.lowFreqFactor);
    return ((1 - s) * f) / o.factor + s * f;
  });
}

/**
 * Reads a config's RoPE fields (either layout, see the module doc).
 *
 * @param config the parsed `config.json`
 * @param headDim the attention head dimension (HF: `head_dim`, or hidden / heads)
 * @returns the normalised spec
 * @throws {RangeError} on a RoPE type other than default, linear or llama3, a missing field,
 *   or a `partial_rotary_factor` other than 1
 * @example
 * ```ts
 * import { ropeSpec } from "./rope_f64.ts";
 * const s = ropeSpec({ rope_parameters: { rope_type: "default", rope_theta: 1e6 } }, 128);
 * if (s.theta !== 1e6 || s.ropeType !== "default") throw new Error();
 * ```
 */
export function ropeSpec(config: Readonly<Record<string, unknown>>, headDim: number): RopeSpec {
  const legacy = _dict(config.rope_scaling);
  let dict = legacy !== null && Object.keys(legacy).length > 0
    ? legacy
    : _dict(config.rope_parameters) ?? {};
  const nested = _dict(dict.full_attention);
  if (nested !== null && dict.rope_type === undefined && dict.type === undefined) dict = nested;
  const theta = _num(dict.rope_theta ?? config.rope_theta ?? DEFAULT_ROPE_THETA, "rope_theta");
  const partial = dict.partial_rotary_factor ?? config.partial_rotary_factor ?? 1;
  if (partial !== 1) {
    throw new RangeError(`Cannot read RoPE: partial_rotary_factor ${partial} is not modelled`);
  }
  const type = dict.rope_type ?? dict.type ?? "default";
  const base = { theta, dim: headDim, factor: 1, lowFreqFactor: 0, highFreqFactor: 0 };
  if (type === "default") return { ropeType: type, ...base, originalMaxPositionEmbeddings: 0 };
  const factor = _num(dict.factor, "factor");
  if (type === "linear") {
    return { ropeType: type, ...base, factor, originalMaxPositionEmbeddings: 0 };
  }
  if (type !== "llama3") {
    throw new RangeError(`Cannot read RoPE: rope_type "${type}" is not modelled`);
  }
  return {
    ropeType: type,
    ...base,
    factor,
    lowFreqFactor: _num(dict.low_freq_factor, "low_freq_factor"),
    highFreqFactor: _num(dict.high_freq_factor, "high_freq_factor"),
    originalMaxPositionEmbeddings: _num(
      config.original_max_position_embeddings ?? dict.original_max_position_embeddings ??
        config.max_position_embeddings,
      "original_max_position_embeddings",
    ),
  };
}

/**
 * The inverse frequencies of a spec.
 *
 * @param spec from {@link ropeSpec}
 * @returns `spec.dim / 2` inverse frequencies
 * @throws {RangeError} as the variant's function
 * @example
 * ```ts
 * import { ropeInvFreq, ropeSpec } from "./rope_f64.ts";
 * const cfg = { rope_theta: 10000, rope_scaling: { type: "linear", factor: 2 } };
 * if (ropeInvFreq(ropeSpec(cfg, 8))[0] !== 0.5) throw new Error();
 * ```
 */
export function ropeInvFreq(spec: RopeSpec): Float64Array {
  if (spec.ropeType === "default") return defaultInvFreq(spec);
  if (spec.ropeType === "linear") return linearInvFreq(spec);
  return llama3InvFreq(spec);
}

function _dict(v: unknown): Readonly<Record<string, unknown>> | null {
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? v as Record<string, unknown>
    : null;
}

function _num(v: unknown, field: string): number {
  if (typeof v !== "number" || !Number.isFinite(v)) {
    throw new RangeError(`Cannot read RoPE: ${field} is ${JSON.stringify(v)}, not a number`);
  }
  return v;
}
