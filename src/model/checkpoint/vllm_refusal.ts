/**
 * Configs vLLM 0.11 refuses to build a model of, though they parse: one naming no
 * `architectures`, a Qwen3-MoE one with a pipeline stage that holds no sparse MoE layer, one
 * whose `rope_scaling` is of a type it builds no RoPE of, and any split into more pipeline stages
 * than layers. A record of any on a vLLM stack is no run that stack made.
 *
 * @module
 */
import { type DecoderConfig, isMoeLayer } from "./decoder_config.ts";
import { _ropeTypeRead, transformers4RopeRefusal } from "./hf_refusal.ts";
import { _show } from "./_config_values.ts";

/**
 * The decoder layers each pipeline stage of vLLM 0.11 builds, as `make_layers` takes them from
 * `get_pp_indices` (`vllm/distributed/utils.py:89-134` at commit c3124680) when
 * `VLLM_PP_LAYER_PARTITION` is not set: `layers // pp` layers a stage, and the remainder one more
 * each on the stages before the last, from the second-to-last back.
 *
 * @param layers the decoder layer count
 * @param pp the pipeline stages
 * @returns each stage's layers, `[first, end)` in stage order
 * @throws {RangeError} when either is not a positive safe integer
 * @example
 * ```ts
 * import { vllmPipelineStages } from "./vllm_refusal.ts";
 * if (JSON.stringify(vllmPipelineStages(5, 3)) !== "[[0,2],[2,4],[4,5]]") throw new Error();
 * if (JSON.stringify(vllmPipelineStages(2, 2)) !== "[[0,1],[1,2]]") throw new Error();
 * ```
 */
export function vllmPipelineStages(layers: number, pp: number): [number, number][] {
  for (const [v, what] of [[layers, "layers"], [pp, "pp"]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) {
      throw new RangeError(`Cannot split layers: ${what} must be a positive integer, got ${v}`);
    }
  }
  const sizes = Array.from({ length: pp }, () => Math.floor(layers / pp));
  for (let i = 2; i < (layers % pp) + 2; i++) sizes[pp - i]! += 1;
  let first = 0;
  return sizes.map((n) => [first, first += n]);
}

/**
 * Why vLLM 0.11 refuses to load `config` at `pp` pipeline stages, or null:
 * - it builds the class `architectures` names and raises for a config that names none
 *   (`ModelRegistry.inspect_model_cls`: "No model architectures are specified"; only GGUF configs
 *   get one from `model_type`);
 * - `Qwen3MoeForCausalLM.__init__` looks for a sparse MoE block among the layers its stage holds
 *   (`qwen3_moe.py:609-620` at commit c3124680; the others are `PPMissingLayer`) and raises "No
 *   Qwen3MoE layer found in the model.layers." when there is none: a Qwen3-MoE config whose
 *   layers are all dense (`mlp_only_layers` naming every layer, a `decoder_sparse_step` past the
 *   last, `num_experts` 0 or below), or one with a stage of dense layers only
 *   (`vllmPipelineStages`), such as a stage of no layer;
 * - a split into more stages than layers (get_pp_indices gives the surplus stages no layer)
 *   leaves a worker without attention layers, and vLLM cannot size its KV cache
 *   (`_emptyStage`);
 * - it loads the config through Transformers 4.5x, which refuses a `rope_scaling` missing keys
 *   its RoPE validation requires (`transformers4RopeRefusal`);
 * - `get_rope` builds no RoPE of a type outside llama3, mllama4, default, linear, ntk, dynamic,
 *   yarn, deepseek_yarn and longrope ("Unknown RoPE scaling type",
 *   `vllm/model_executor/layers/rotary_embedding/__init__.py:202` at commit c3124680), after
 *   `patch_rope_scaling_dict` has read `su` as longrope and `mrope` as default (asserting that
 *   an `mrope` one gives an `mrope_section`: `vllm/transformers_utils/config.py:376-399`), and `patch_rope_scaling_dict` refuses a
 *   `rope_type` and a `type` that differ ("Found conflicts between ..."), as the config class
 *   left them: the Llama and Qwen classes copy `type` over `rope_type` first, Mistral's copies
 *   nothing (`DecoderConfig.ropeTypeKeys`, `_vllmRopeTypeRefusal`);
 * - its dense MLPs accept silu alone (`_activationRefusal`).
 *
 * Settings beyond the stack's (`--hf-overrides`, `VLLM_PP_LAYER_PARTITION`) may change either;
 * the caller reads the record's.
 *
 * @param config the parsed config
 * @param o `pp`: the record's pipeline stages
 * @returns the reason, or null
 * @example
 * ```ts
 * import { vllmRefusal } from "./vllm_refusal.ts";
 * const moe = { experts: 8, topK: 2, intermediate: 8, normTopkProb: true, decoderSparseStep: 1,
 *   mlpOnlyLayers: [0] };
 * const c = { layers: 2, moe };
 * if (vllmRefusal({ ...c, noArchitectures: true }, { pp: 1 }) === null) throw new Error();
 * if (vllmRefusal(c, { pp: 1 }) !== null) throw new Error();
 * if (!/stage 0 of pp=2 holds layer 0/.test(vllmRefusal(c, { pp: 2 }) ?? "")) throw new Error();
 * const bogus = { ...c, ropeTypeKeys: { rope_type: "bogus" } };
 * if (!vllmRefusal(bogus, { pp: 1 })?.includes("Unknown RoPE")) throw new Error();
 * const ntk = { ...c, ropeTypeKeys: { rope_type: "ntk" } };
 * if (vllmRefusal(ntk, { pp: 1 }) !== null) throw new Error();
 * const mrope = { ...c, ropeTypeKeys: { rope_type: "mrope" } };
 * if (!vllmRefusal(mrope, { pp: 1 })?.includes("mrope_section")) throw new Error();
 * const pair = { ...c, ropeTypeKeys: { rope_type: "bogus", type: "default" } };
 * if (vllmRefusal({ ...pair, modelType: "qwen3" }, { pp: 1 }) !== null) throw new Error();
 * if (!vllmRefusal({ ...pair, modelType: "mistral" }, { pp: 1 })?.includes("conflicts")) {
 *   throw new Error();
 * }
 * ```
 */
export function vllmRefusal(
  config:
    & Pick<
      DecoderConfig,
      | "noArchitectures"
      | "layers"
      | "moe"
      | "ropeTransformers4Missing"
      | "ropeTypeKeys"
      | "unmodelledActivation"
      | "headDimZero"
    >
    & { readonly modelType?: DecoderConfig["modelType"] },
  o: { readonly pp: number },
): string | null {
  if (config.noArchitectures === true) {
    return "the config names no architectures, and vLLM 0.11 builds the class that list names " +
      "(it refuses a config without one: 'No model architectures are specified')";
  }
  const rope = transformers4RopeRefusal(config);
  if (rope !== null) return `vLLM 0.11 reads the config through Transformers 4.5x, and ${rope}`;
  const ropeType = _vllmRopeTypeRefusal(config);
  if (ropeType !== null) return ropeType;
  // vLLM's LlamaAttention (which also runs MistralForCausalLM) keeps a head_dim of 0 and
  // computes `self.scaling = self.head_dim**-0.5` (vllm/model_executor/models/llama.py at
  // c3124680, registry.py maps MistralForCausalLM to it): ZeroDivisionError. Its Qwen2 and
  // Qwen3 classes build the default width.
  if (
    config.headDimZero === true && (config.modelType === "llama" || config.modelType === "mistral")
  ) {
    return "the config's head_dim is 0, and vLLM 0.11's Llama attention (which runs Llama and " +
      "Mistral) computes its scaling as head_dim**-0.5, which Python refuses (ZeroDivisionError)";
  }
  return _activationRefusal(config) ?? _stageWithoutMoe(config, o.pp) ??
    _emptyStage(config.layers, o.pp);
}

/**
 * A split into more pipeline stages than decoder layers, as a reason: `get_pp_indices` gives
 * the surplus stages no layer (it raises for none), and the engine then fails while sizing the
 * KV cache: `get_kv_cache_configs` hands each worker the groups of the whole model's layers
 * filtered to its own, an empty list for such a stage, and `get_kv_cache_config_from_groups`
 * takes the page size of that worker's layers (`get_uniform_page_size` asserts exactly one:
 * `vllm/v1/core/kv_cache_utils.py:835, 1056, 1278` at commit c3124680; without assertions the
 * `pop` of the empty set raises). That holds for every family here, whose layers share one
 * attention spec; a stated `VLLM_PP_LAYER_PARTITION` is read by the caller.
 */
function _emptyStage(layers: number, pp: number): string | null {
  if (pp <= layers) return null;
  const at = vllmPipelineStages(layers, pp).findIndex(([first, end]) => first === end);
  return `pp=${pp} pipeline stages for ${layers} layer(s) leave stage ${at} without a layer ` +
    "(vLLM's get_pp_indices), and vLLM 0.11 cannot size that worker's KV cache (" +
    "get_kv_cache_config_from_groups asserts one page size over its attention layers, and it " +
    "has none)";
}

/**
 * Why vLLM 0.11 refuses the config's `hidden_act` (`DecoderConfig.unmodelledActivation`), or
 * null: its dense MLPs (`Qwen2MLP`, which `qwen3.py` reuses, `Qwen3MoeMLP`, `LlamaMLP`, which
 * Mistral's architectures map to; `qwen2.py:87`, `qwen3_moe.py:89`, `llama.py:91` at commit
 * c3124680) raise "Unsupported activation: ... Only silu is supported for now." for any value
 * other than "silu". Qwen3-MoE's sparse blocks (`FusedMoE`, silu) never read it: a config of
 * sparse layers only is built, not refused.
 */
function _activationRefusal(
  config: Pick<DecoderConfig, "layers" | "moe" | "unmodelledActivation">,
): string | null {
  const act = config.unmodelledActivation;
  if (act === undefined) return null;
  let dense = config.moe === undefined ? 0 : -1;
  for (let l = 0; dense < 0 && l < config.layers; l++) if (!isMoeLayer(config, l)) dense = l;
  if (dense < 0) return null;
  return `the config's hidden_act ${act} is not silu, and vLLM 0.11's dense MLP (layer ${dense}) ` +
    "refuses it ('Unsupported activation: ... Only silu is supported for now.')";
}

/**
 * Why vLLM 0.11 refuses the config's `rope_scaling` type keys (`DecoderConfig.ropeTypeKeys`), or
 * null: after the config class (Transformers 4.5x: the Llama and Qwen classes copy `type` over
 * `rope_type`, Mistral's copies nothing), `patch_rope_scaling_dict` refuses a `rope_type` and a
 * `type` that differ (Python `!=`, a None included: "Found conflicts between 'rope_type=...'
 * (modern field) and 'type=...' (legacy field)", `vllm/transformers_utils/config.py:377-384` at
 * c3124680) and takes a lone `type` as `rope_type`, asserts an `mrope_section` for the legacy
 * type `mrope` (`config.py:396-399`); `get_rope` then raises "Unknown RoPE scaling type" for a
 * type outside its set (None included).
 */
function _vllmRopeTypeRefusal(
  config: Pick<DecoderConfig, "ropeTypeKeys"> & { readonly modelType?: DecoderConfig["modelType"] },
): string | null {
  const keys = config.ropeTypeKeys;
  if (keys === undefined) return null;
  const copied = config.modelType !== "mistral" && Object.hasOwn(keys, "type");
  if (!copied && Object.hasOwn(keys, "rope_type") && Object.hasOwn(keys, "type")) {
    if (keys.rope_type !== keys.type) {
      return `the config's rope_scaling rope_type ${_show(keys.rope_type)} and type ` +
        `${_show(keys.type)} differ, and vLLM 0.11 refuses the pair ('Found conflicts between ` +
        "'rope_type' (modern field) and 'type' (legacy field)')";
    }
  }
  // No conflict is left: the one type read is the one vLLM reads.
  const type = _ropeTypeRead(keys, config.modelType);
  if (type === "mrope" && keys.mropeSection !== true) {
    return "the config's rope_scaling type 'mrope' gives no mrope_section, which vLLM 0.11 " +
      "asserts before reading it as default (patch_rope_scaling_dict: AssertionError)";
  }
  if (type !== null && _VLLM_ROPE_TYPES.has(type)) return null;
  return `the config's rope_scaling type ${_show(type)} is none vLLM 0.11 builds ` +
    `(${[..._VLLM_ROPE_TYPES].join(", ")}): get_rope raises 'Unknown RoPE scaling type'`;
}

/**
 * The RoPE types vLLM 0.11's `get_rope` builds, and the legacy ones `patch_rope_scaling_dict`
 * renames to one of them (`su`: longrope, `mrope`: default).
 */
const _VLLM_ROPE_TYPES: ReadonlySet<string> = new Set([
  "llama3",
  "mllama4",
  "default",
  "linear",
  "ntk",
  "dynamic",
  "yarn",
  "deepseek_yarn",
  "longrope",
  "su",
  "mrope",
]);

/** The first pipeline stage of a Qwen3-MoE config that holds no sparse layer, as a reason. */
function _stageWithoutMoe(
  config: Pick<DecoderConfig, "layers" | "moe">,
  pp: number,
): string | null {
  const m = config.moe;
  if (m === undefined) return null;
  const stages = vllmPipelineStages(config.layers, pp);
  const at = stages.findIndex(([first, end]) => {
    for (let l = first; l < end; l++) if (isMoeLayer(config, l)) return false;
    return true;
  });
  if (at < 0) return null;
  const only = m.mlpOnlyLayers.length > 8
    ? `[${m.mlpOnlyLayers.slice(0, 8).join(", ")}, ...]`
    : `[${m.mlpOnlyLayers.join(", ")}]`;
  const fields = `mlp_only_layers ${only}, decoder_sparse_step ${m.decoderSparseStep}, ` +
    `num_experts ${m.experts}`;
  const refuses = "vLLM 0.11's Qwen3MoeForCausalLM refuses to build it ('No Qwen3MoE layer " +
    "found in the model.layers.')";
  if (pp === 1) {
    return `no decoder layer of the config has a sparse MoE block (${fields}), and ${refuses}`;
  }
  const [first, end] = stages[at]!;
  const held = end === first
    ? "no layer (vLLM's get_pp_indices), so no"
    : `${end - first === 1 ? `layer ${first}` : `layers ${first}..${end - 1}`} (vLLM's ` +
      "get_pp_indices), none with a";
  return `pipeline stage ${at} of pp=${pp} holds ${held} sparse MoE block (${fields}), and ` +
    `${refuses} on that stage`;
}
