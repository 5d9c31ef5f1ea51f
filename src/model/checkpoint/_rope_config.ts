/**
 * The RoPE of a decoder `config.json`, in the layout of either Transformers generation:
 * - 4.5x writes a top-level `rope_theta` and `rope_scaling` (null, or `{rope_type, ...}`);
 * - 5.x writes `rope_parameters: {"rope_type": ..., "rope_theta": ..., ...}` (its
 *   `RotaryEmbeddingConfigMixin` moves a top-level `rope_theta` into it with `setdefault`, so the
 *   nested value wins there, while 4.5x ignores `rope_parameters` altogether). A non-empty
 *   `rope_scaling` replaces `rope_parameters` whole in 5.x too (`rope_scaling or
 *   rope_parameters`), so a file with both is read from `rope_scaling` and the top-level theta by
 *   either generation.
 *
 * Modelled RoPE types (`modeling_rope_utils.py`): `default` (`theta^(-2i/d)` over the whole
 * head), `linear` (`factor`) and `llama3` (`factor`, `low_freq_factor`, `high_freq_factor`,
 * `original_max_position_embeddings`, which 5.x fills in from `max_position_embeddings` where
 * absent, while 4.5x cannot load such a file); any other type (dynamic, yarn, longrope, ...), any
 * other key (`partial_rotary_factor`, `attention_factor`, a map per layer type) is refused by
 * name. Where the two generations read one file differently (a top-level theta and another
 * nested one; a missing llama3 `original_max_position_embeddings`) the RoPE is 5.x's, marked
 * `transformers5Only`; a `type` and a `rope_type` that differ (4.5x takes `type`, 5.x
 * `rope_type`) are refused as not modelled. A `rope_scaling` 4.5x refuses to load (an empty
 * one, a llama3 one without `original_max_position_embeddings`) names the keys it misses
 * (`transformers4Missing`), and one of a type not modelled keeps its type keys as written
 * (`typeKeys`), for the stacks that resolve them to a type they build no RoPE of, or refuse the pair.
 *
 * @module
 */
import { InputError } from "../../errors.ts";
import type { RopeScaling } from "../../kernels/mod.ts";
import {
  _bad,
  _given,
  _int,
  type _Json,
  _positive,
  _show,
  _writtenAsFloat,
} from "./_config_values.ts";

/** The RoPE a config asks for. */
export interface _Rope {
  /** Theta as JavaScript's shortest round-trip decimal text. */
  readonly theta: string;
  /** The frequency scaling (absent: default RoPE). */
  readonly scaling?: RopeScaling;
  /**
   * True when this RoPE (Transformers 5's reading) differs from what Transformers 4.5x reads in
   * the same file: the RoPE is given in `rope_parameters` alone, which 4.5x ignores (it takes the
   * top-level `rope_theta`, else 10000, and `rope_scaling`).
   */
  readonly transformers5Only: boolean;
  /**
   * The keys Transformers 4.5x finds missing in `rope_scaling`, refusing the config, or absent.
   * Its config classes (`LlamaConfig`, `Qwen2Config`, `Qwen3Config`, `Qwen3MoeConfig.__init__`)
   * call `rope_config_validation` on a `rope_scaling` that is not None, which validates it by
   * its `rope_type` (else `type`, else `"default"`) and raises `KeyError("Missing required keys
   * in rope_scaling for 'rope_type'=...")` from `_check_received_keys` where a required key is
   * absent (`"type"` counts as `rope_type`): `{"rope_type"}` for default,
   * `{"rope_type", "factor"}` for linear, those and `low_freq_factor`, `high_freq_factor`,
   * `original_max_position_embeddings` for llama3 (huggingface/transformers v4.57
   * `src/transformers/modeling_rope_utils.py`, `_validate_default_rope_parameters`,
   * `_validate_linear_scaling_rope_parameters`, `_validate_llama3_parameters`). A config class
   * that skips the validation builds the rotary embedding with `ROPE_INIT_FUNCTIONS[None]` for
   * an empty one, and `_compute_llama3_parameters` reads
   * `rope_scaling["original_max_position_embeddings"]`: a `KeyError` as well. vLLM 0.11 loads the
   * config through 4.5x (`AutoConfig`), so it refuses the same files.
   *
   * Otherwise, where `transformers5Only` holds, 4.5x reads no `rope_scaling` (None): the RoPE is
   * given in `rope_parameters` alone (a non-empty `rope_scaling` is read by both generations).
   */
  readonly transformers4Missing?: readonly string[];
  /**
   * The type keys of a `rope_scaling` not modelled for its type, as written (`rope_type`, `type`:
   * each present key, a string or null), where some engine may resolve them to a type it builds
   * no RoPE of, or refuse them as a pair: a type not modelled (`yarn`, `bogus`), a null, or two
   * that differ. Each engine resolves them its own way (`hfRefusal`, `vllmRefusal`: 4.5x's Llama
   * and Qwen config classes copy `type` over `rope_type`, its Mistral embedding takes
   * `rope_type` where the key is present, vLLM refuses a pair that differs after the config
   * class), so both are kept; absent otherwise.
   */
  readonly typeKeys?: RopeTypeKeys;
  /**
   * Why the `rope_scaling` is not modelled, where 4.5x refuses it all the same
   * (`transformers4Missing`) or a stack may build no RoPE of its type (`typeKeys`): nothing
   * may be computed from this RoPE.
   */
  readonly unmodelled?: string;
}

/** The type keys of a `rope_scaling` as written: each present key, a string or null. */
export interface RopeTypeKeys {
  /** `rope_type`, where the key is present. */
  readonly rope_type?: string | null;
  /** `type` (the legacy name), where the key is present. */
  readonly type?: string | null;
  /**
   * Present when the `rope_scaling` also gives `mrope_section`, which vLLM 0.11 asserts for the
   * legacy type `mrope` (`patch_rope_scaling_dict`).
   */
  readonly mropeSection?: true;
}

/**
 * The keys Transformers 4.5x requires in `rope_scaling`, by type (`rope_type` or `type`): the
 * `required_keys` of each `_validate_*` function of 4.57.6's `modeling_rope_utils.py`
 * (`_check_received_keys` raises KeyError for any missing).
 */
const _REQUIRED_4: Readonly<Record<string, readonly string[]>> = {
  default: ["rope_type"],
  linear: ["rope_type", "factor"],
  dynamic: ["rope_type", "factor"],
  yarn: ["rope_type", "factor"],
  longrope: ["rope_type", "short_factor", "long_factor"],
  llama3: [
    "rope_type",
    "factor",
    "original_max_position_embeddings",
    "low_freq_factor",
    "high_freq_factor",
  ],
};

/** Keys each modelled type reads besides `rope_type` / `type` and (5.x) `rope_theta`. */
const _TYPE_KEYS: Readonly<Record<string, readonly string[]>> = {
  default: [],
  linear: ["factor"],
  llama3: ["factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"],
};

/** HF's theta when a config gives none (every supported config class, 4.5x and 5.x). */
const _DEFAULT_THETA = 10000;

/**
 * Reads RoPE theta and scaling.
 *
 * @param c the config
 * @returns theta (`1000000` and `1000000.0` give `"1000000"`) and the scaling as Transformers 5
 *   reads them, and whether Transformers 4.5x reads the file otherwise
 * @throws {InputError} `CONFIG_UNSUPPORTED` (another rope_type, another key), `CONFIG_FIELD`
 *   (malformed, theta not above 1, or two values that differ)
 */
export function _rope(c: _Json): _Rope {
  // An explicit null theta is None to HF, which fails computing the frequencies: refused (by
  // `_theta`), where an absent one is the default.
  const top = c.rope_theta !== undefined ? _theta(c, "rope_theta", "rope_theta") : undefined;
  const maxPositions = c.max_position_embeddings;
  let legacy;
  try {
    legacy = _given(c, "rope_scaling")
      ? _section(c.rope_scaling, { name: "rope_scaling", theta: false, maxPositions })
      : undefined;
  } catch (e) {
    // A rope_scaling not modelled that 4.5x refuses all the same (a required key missing, e.g.
    // `{"Rope_Type": "default"}` or `{"factor": 2}`, refused like `{}`), or a type not modelled
    // (`yarn`, `bogus`) that the stacks building no RoPE of that type refuse.
    return _refusedAnyway(e, c, top, { types: true });
  }
  // 5.x: `rope_scaling or rope_parameters` (an empty dict is false in Python): a non-empty
  // rope_scaling is the RoPE, with the top-level theta, and rope_parameters is not read.
  const scalingWins = legacy !== undefined && Object.keys(c.rope_scaling as object).length > 0;
  let nested;
  try {
    nested = _given(c, "rope_parameters") && !scalingWins
      ? _section(c.rope_parameters, { name: "rope_parameters", theta: true, maxPositions })
      : undefined;
  } catch (e) {
    // A rope_parameters not modelled beside an empty rope_scaling: 4.5x never reads the former
    // and refuses the latter.
    if (legacy === undefined) throw e;
    return _refusedAnyway(e, c, top);
  }
  const scaling = nested?.scaling ?? legacy?.scaling;
  const theta = String(nested?.theta ?? top ?? _DEFAULT_THETA);
  // An empty rope_scaling is refused by 4.5x (required keys missing), the default RoPE to 5.x.
  const emptyScaling = legacy !== undefined && !scalingWins;
  const transformers5Only = emptyScaling || theta !== String(top ?? _DEFAULT_THETA) ||
    JSON.stringify(scaling ?? null) !== JSON.stringify(legacy?.scaling ?? null) ||
    (nested ?? legacy)?.filled === true;
  const missing = legacy === undefined ? [] : _missing4(c.rope_scaling as _Json);
  return {
    theta,
    ...(scaling === undefined ? {} : { scaling }),
    transformers5Only,
    ...(missing.length === 0 ? {} : { transformers4Missing: missing }),
  };
}

/**
 * A RoPE not modelled (`e`, CONFIG_UNSUPPORTED) in a config whose `rope_scaling` Transformers 4.5x
 * refuses all the same (required keys missing), or (`types`) whose `rope_scaling` names a type not
 * modelled, a null or two types that differ (`typeKeys`: stacks that resolve them to a type they
 * build no RoPE of, or refuse the pair, refuse it): the
 * refusal is kept, so that those stacks FAIL the config as they FAIL `{}` (`unmodelled: "read"`),
 * not NOT_VERIFIED; otherwise `e` is thrown.
 */
function _refusedAnyway(
  e: unknown,
  c: _Json,
  top: number | undefined,
  o: { readonly types?: boolean } = {},
): _Rope {
  if (!(e instanceof InputError) || e.code !== "CONFIG_UNSUPPORTED") throw e;
  const missing = _missing4(c.rope_scaling as _Json);
  const unmodelled = e.message.replace(/^Cannot use config: /, "");
  const theta = String(top ?? _DEFAULT_THETA);
  if (missing.length > 0) {
    return { theta, transformers5Only: true, transformers4Missing: missing, unmodelled };
  }
  const typeKeys = o.types === true ? _typeKeys(c.rope_scaling as _Json) : undefined;
  if (typeKeys === undefined) throw e;
  return { theta, transformers5Only: false, typeKeys, unmodelled };
}

/** The keys Transformers 4.5x requires of a parsed `rope_scaling` (a modelled type) and misses. */
function _missing4(p: _Json): string[] {
  // The config classes copy a `type` over `rope_type` before validating (BC), so `type` wins.
  const type = typeof p.type === "string"
    ? p.type
    : typeof p.rope_type === "string"
    ? p.rope_type
    : "default";
  const given = new Set(Object.keys(p));
  if (given.has("type")) given.add("rope_type");
  const required = Object.hasOwn(_REQUIRED_4, type) ? _REQUIRED_4[type]! : [];
  return required.filter((k) => !given.has(k));
}

/**
 * The type keys of a parsed `rope_scaling` as written, where some engine may refuse them: a type
 * not modelled, a null, or two that differ; else undefined (none named: the default; one not a
 * string or null; the modelled type, once or twice).
 */
function _typeKeys(p: _Json): RopeTypeKeys | undefined {
  const keys: { rope_type?: string | null; type?: string | null } = {};
  for (const k of ["rope_type", "type"] as const) {
    if (!Object.hasOwn(p, k)) continue;
    const t = p[k];
    if (typeof t !== "string" && t !== null) return undefined;
    keys[k] = t;
  }
  const named = Object.values(keys);
  if (named.length === 0) return undefined;
  const modelled = (t: string | null) => t !== null && Object.hasOwn(_TYPE_KEYS, t);
  if (named.every(modelled) && new Set(named).size === 1) return undefined;
  return Object.freeze(Object.hasOwn(p, "mrope_section") ? { ...keys, mropeSection: true } : keys);
}

function _section(
  v: unknown,
  o: { name: string; theta: boolean; maxPositions: unknown },
): { theta?: number; scaling?: RopeScaling; filled?: true } {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw _bad("CONFIG_FIELD", `${o.name} must be an object, got ${_show(v)}`);
  }
  const p = v as _Json;
  const type = _ropeType(p, o.name);
  const keys = Object.hasOwn(_TYPE_KEYS, type) ? _TYPE_KEYS[type] : undefined;
  if (keys === undefined) {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `${o.name}.rope_type ${_show(type)} is not modelled (default, linear or llama3)`,
    );
  }
  const allowed = new Set(["rope_type", "type", ...keys, ...(o.theta ? ["rope_theta"] : [])]);
  for (const key of Object.keys(p)) {
    if (!allowed.has(key)) {
      throw _bad(
        "CONFIG_UNSUPPORTED",
        `${o.name} key ${_show(key)} is not modelled for rope_type '${type}'`,
      );
    }
  }
  const theta = o.theta && p.rope_theta !== undefined
    ? _theta(p, "rope_theta", `${o.name}.rope_theta`)
    : undefined;
  const factor = () => _positive(p.factor, `${o.name}.factor`);
  // llama3 without `original_max_position_embeddings`: 5.x takes `max_position_embeddings`
  // (4.5x refuses the file).
  const filled = type === "llama3" && p.original_max_position_embeddings === undefined &&
    o.maxPositions !== undefined;
  const original = filled
    ? _int({ max_position_embeddings: o.maxPositions }, "max_position_embeddings", {
      max: 1 << 30,
    })
    : undefined;
  const scaling: RopeScaling | undefined = type === "linear"
    ? { kind: "linear", factor: factor() }
    : type === "llama3"
    ? {
      kind: "llama3",
      factor: factor(),
      lowFreqFactor: _positive(p.low_freq_factor, `${o.name}.low_freq_factor`),
      highFreqFactor: _positive(p.high_freq_factor, `${o.name}.high_freq_factor`),
      originalMaxPositions: original ??
        // HF (4.5x and 5.x, whose typed config holds the RoPE as a plain dict) and vLLM only divide
        // by it after a warning about a float: 8192.0 computes 8192's bits (integers to 2^30 are
        // exact doubles and round alike to float32).
        // Another number (8192.5, 0, 2^31) HF still only divides by: computed, not modelled.
        _int(p, "original_max_position_embeddings", {
          max: 1 << 30,
          floatForm: "integer",
          otherNumbers: "unsupported",
        }),
    }
    : undefined;
  if (scaling?.kind === "llama3" && !(scaling.highFreqFactor > scaling.lowFreqFactor)) {
    // HF only warns, then divides by their difference: that arithmetic is not modelled.
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `${o.name}.high_freq_factor not above low_freq_factor is not modelled`,
    );
  }
  return {
    ...(theta === undefined ? {} : { theta }),
    ...(scaling === undefined ? {} : { scaling }),
    ...(filled ? { filled: true as const } : {}),
  };
}

function _ropeType(p: _Json, name: string): string {
  const nulls = ["rope_type", "type"].filter((k) => Object.hasOwn(p, k) && p[k] === null);
  if (nulls.length > 0) {
    // A null type names no RoPE: every engine fails on it (HF looks it up at model build, vLLM
    // refuses it), except that 4.5x copies a string `type` over a null `rope_type`.
    const other = ["rope_type", "type"].find((k) => typeof p[k] === "string");
    throw other === undefined
      ? _bad("CONFIG_FIELD", `${name}.${nulls[0]} is null: no RoPE has that type`)
      : _bad(
        "CONFIG_UNSUPPORTED",
        `${name}.${nulls[0]} null beside ${other} ${_show(p[other])} (Transformers 4.5x reads ` +
          "'type', 5.x and vLLM refuse the null): not modelled",
      );
  }
  const named = ["rope_type", "type"].filter((k) => _given(p, k));
  for (const k of named) {
    if (typeof p[k] !== "string") {
      throw _bad("CONFIG_FIELD", `${name}.${k} must be a string, got ${_show(p[k])}`);
    }
  }
  if (named.length === 2 && p.rope_type !== p.type) {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `${name}.rope_type ${_show(p.rope_type)} and its type ${_show(p.type)} differ ` +
        "(Transformers 4.5x reads 'type', 5.x 'rope_type'): not modelled",
    );
  }
  return named.length === 0 ? "default" : p[named[0]!] as string;
}

/**
 * Theta, refused where it is not modelled. An integer written without a fraction or exponent is a
 * Python `int`, which PyTorch turns into float32 in one rounding (`base ** exponent` with an int
 * base, 4.5x and 5.x `_compute_default_rope_parameters`); read here it is rounded to a double
 * first, and above 2^53 - 1 that double may differ from the integer, so the float32 theta could
 * differ from PyTorch's (two roundings where it makes one): not modelled. A float-written theta is
 * a Python float, a double either way.
 */
function _theta(holder: _Json, key: string, name: string): number {
  const theta = _positive(holder[key], name);
  // 1 gives every frequency 1 (HF builds it); below it the frequencies grow, not modelled.
  if (!(theta >= 1)) {
    throw _bad("CONFIG_UNSUPPORTED", `${name} ${_show(theta)} below 1 is not modelled`);
  }
  if (theta > Number.MAX_SAFE_INTEGER && !_writtenAsFloat(holder, key)) {
    throw _bad(
      "CONFIG_UNSUPPORTED",
      `${name} ${_show(theta)} is written as an integer above 2^53 - 1 (Python reads an int, ` +
        "which PyTorch rounds to float32 once, where a double read rounds twice): not modelled",
    );
  }
  return theta;
}
