/**
 * The MoE section of a `qwen3_moe` config, read as HF Transformers and vLLM build the layers
 * (`Qwen3MoeDecoderLayer`, 4.57.6 and 5.18 alike, vLLM 0.11's `qwen3_moe.py:324-330` at commit
 * c3124680): layer i is sparse iff `i not in mlp_only_layers`, `num_experts > 0` and
 * `(i + 1) % decoder_sparse_step == 0`.
 *
 * Some values those classes build a model of are configs nobody deploys and are not modelled
 * (`unmodelled`, named): a negative `decoder_sparse_step` (Python's modulo), `num_experts` 0 or
 * below (every layer dense), `num_experts_per_tok` 0 (no expert routed), and an
 * `mlp_only_layers` entry that is no index JavaScript holds exactly (a fraction, or an integer past
 * 2^53 - 1), which HF compares with each layer index and never meets. The section read from them
 * still says which layers are sparse, so that a stack that refuses to load such a config can be
 * told apart from one that runs it. What no release builds stays malformed (`CONFIG_FIELD`): a
 * step of 0 (`ZeroDivisionError`), a top-k below 0 or above the experts (`torch.topk` raises), a
 * value that is no number. `decoder_sparse_step` and a false `num_experts` given as booleans are
 * read as Python computes with them (`False` 0, `True` 1).
 *
 * @module
 */
import { _bad, _bool, _given, _int, type _Json, _show, _writtenAsFloat } from "./_config_values.ts";

/** MoE facts of a `qwen3_moe` config. */
export interface MoeConfig {
  /**
   * `num_experts` E (`num_local_experts` in Transformers 5); 0 or below (every layer dense) only
   * in a config read with its unmodelled values.
   */
  readonly experts: number;
  /** `num_experts_per_tok` (top-k). */
  readonly topK: number;
  /** `moe_intermediate_size` (each expert's gate/up width). */
  readonly intermediate: number;
  /** `norm_topk_prob`: renormalise the top-k weights to sum 1. */
  readonly normTopkProb: boolean;
  /** `decoder_sparse_step` (below 0 only in a config read with its unmodelled values). */
  readonly decoderSparseStep: number;
  /**
   * `mlp_only_layers` (dense layers by index): its entries JavaScript holds as exact integers
   * (`1.0` is 1, as Python's `1 in [1.0]` holds), sorted; the others name no layer.
   */
  readonly mlpOnlyLayers: readonly number[];
}

/** The section as read, with what is not modelled of it. */
export interface _MoeReading {
  readonly moe: MoeConfig;
  /** The values HF builds a model of that are not modelled, named; empty when none. */
  readonly unmodelled: readonly string[];
  /**
   * True when `mlp_only_layers` holds a number written as a fraction or with an exponent (a
   * Python float), which Transformers 5's typed config (`list[int]`) refuses.
   */
  readonly floatLayerIndex: boolean;
}

/**
 * Reads the MoE section.
 *
 * @param c the config
 * @returns the section, its unmodelled values and whether a layer index is written as a float
 * @throws {InputError} `CONFIG_FIELD` for a malformed value, `CONFIG_UNSUPPORTED` for one left to
 *   the config class's default
 */
export function _moe(c: _Json): _MoeReading {
  const unmodelled: string[] = [];
  const experts = _experts(c, unmodelled);
  // With no sparse layer, HF never reads the top-k.
  const topK = _int(c, "num_experts_per_tok", { min: 0, max: experts > 0 ? experts : 1 << 12 });
  if (topK === 0) unmodelled.push("num_experts_per_tok 0 (HF routes each token to no expert)");
  const only = _onlyLayers(c, unmodelled);
  const moe: MoeConfig = Object.freeze({
    experts,
    topK,
    intermediate: _int(c, "moe_intermediate_size", { max: 1 << 18 }),
    // HF's default: no renormalisation (`norm_topk_prob=False` in 4.5x and 5.x).
    normTopkProb: _bool(c, "norm_topk_prob", false),
    decoderSparseStep: _step(c, unmodelled),
    mlpOnlyLayers: Object.freeze(only.layers),
  });
  return { moe, unmodelled, floatLayerIndex: only.floatIndex };
}

/**
 * `decoder_sparse_step`. A step past the layer count leaves every layer dense; written as a float
 * (`1.0`), HF 4.5x's modulo reads it alike, Transformers 5's typed config refuses it (the caller
 * marks it). 0 fails (`ZeroDivisionError`); below 0, Python's modulo reads `-s` as `s`: not
 * modelled.
 */
function _step(c: _Json, unmodelled: string[]): number {
  if (c.decoder_sparse_step === undefined) return 1;
  const max = 2 ** 31 - 1;
  // HF and vLLM only compute `(i + 1) % step`: `False` is 0, `True` is 1.
  const step = _int(c, "decoder_sparse_step", {
    min: -max,
    max,
    floatForm: "integer",
    booleans: "integer",
  });
  if (step === 0) {
    const zero = c.decoder_sparse_step === false ? "false (0)" : "0";
    throw _bad(
      "CONFIG_FIELD",
      `decoder_sparse_step ${zero}: HF divides the layer number by it (ZeroDivisionError)`,
    );
  }
  if (step < 0) {
    unmodelled.push(
      `decoder_sparse_step ${step} (Python's modulo reads it as ${-step})`,
    );
  }
  return step;
}

/**
 * `num_experts`, or `num_local_experts` (Transformers 5's `attribute_map`); both must agree.
 * `false` is 0 (every layer dense; vLLM refuses it), `true` is not modelled.
 */
function _experts(c: _Json, unmodelled: string[]): number {
  // `False` is 0 as the layers read it (`num_experts > 0`: every layer dense); `True` would size
  // the router `nn.Linear(hidden, True)`, not modelled.
  const range = (key: string) => ({
    min: Number.MIN_SAFE_INTEGER,
    max: 1 << 12,
    booleans: c[key] === false ? "integer" as const : "unsupported" as const,
  });
  const local = _given(c, "num_local_experts")
    ? _int(c, "num_local_experts", range("num_local_experts"))
    : undefined;
  const named = local === undefined || _given(c, "num_experts")
    ? _int(c, "num_experts", range("num_experts"))
    : undefined;
  // What 4.5x (and vLLM on it) reads: `num_experts`; 5.x reads `num_local_experts` alone too.
  const experts = named ?? local!;
  const dense = named !== undefined && named <= 0
    ? `num_experts ${named}`
    : local !== undefined && local <= 0
    ? `num_local_experts ${local}`
    : null;
  if (dense !== null) {
    unmodelled.push(`${dense} (HF builds every layer dense)`);
    return experts;
  }
  if (named !== undefined && local !== undefined && named !== local) {
    throw _bad(
      "CONFIG_FIELD",
      `num_experts ${_show(c.num_experts)} contradicts num_local_experts ${local}`,
    );
  }
  return experts;
}

/**
 * `mlp_only_layers` (null or absent: none). Indices outside 0..layers - 1 (negative ones
 * included: Python's `in` reads no index from the end) name no layer: HF's rule never meets them.
 */
function _onlyLayers(
  c: _Json,
  unmodelled: string[],
): { layers: number[]; floatIndex: boolean } {
  const only = c.mlp_only_layers ?? [];
  if (!Array.isArray(only) || !only.every((i) => typeof i === "number")) {
    throw _bad("CONFIG_FIELD", "mlp_only_layers must list layer indices");
  }
  const layers = only.filter((i: number) => Number.isSafeInteger(i)) as number[];
  const odd = only.findIndex((i: number) => !Number.isSafeInteger(i));
  if (odd >= 0) {
    unmodelled.push(
      `mlp_only_layers[${odd}] ${_show(only[odd])} (no index held exactly here; HF compares ` +
        "it with each layer index and never meets it)",
    );
  }
  return {
    layers: layers.sort((a, b) => a - b),
    floatIndex: only.some((_, at) => _writtenAsFloat(only, String(at))),
  };
}
