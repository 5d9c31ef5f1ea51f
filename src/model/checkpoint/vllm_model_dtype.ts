/**
 * The dtype vLLM runs a model in when the config names none.
 *
 * vLLM 0.11's `--dtype auto` (the stacks pin no `--dtype`) takes the config's `dtype` /
 * `torch_dtype`. Without one, `_find_dtype` (`vllm/config/model.py`) asks the Hugging Face Hub
 * for the repository's safetensors metadata (`try_get_safetensors_metadata`, which returns None
 * on any error: a local folder, an offline run) and takes the common dtype of the stored tensors
 * (`common_broadcastable_dtype` of every dtype the files hold); failing that it takes float32,
 * which `_resolve_auto_dtype` turns into the platform's first supported dtype, bfloat16 on sm_80
 * and later (`CudaPlatformBase.supported_dtypes`). So F32 and BF16 weights resolve to bfloat16
 * either way, the model this emulator runs, but a file holding an F16 tensor makes a model named
 * by its Hub id run in float16 throughout (or, beside BF16 tensors, in whichever of the two
 * `max` meets first), while the same files named by a local path run in bfloat16. How the model
 * was named is no part of a record: such a record is not modelled. (Read in stored copies of the
 * 0.11-line `vllm/config/model.py` and `vllm/transformers_utils/config.py`.)
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "../../kernels/mod.ts";
import type { DecoderConfig } from "./decoder_config.ts";

/**
 * Why a vLLM stack may have run the checkpoint in another dtype than BF16, or null: the config
 * names no dtype and the weight files store an F16 tensor (see the module doc). Other stacks, a
 * config naming its dtype (only bfloat16 parses) and weights without F16 give null.
 *
 * @param stack the record's stack
 * @param ckpt the checkpoint's config and the dtypes its weight files store
 * @returns the reason, or null
 * @example
 * ```ts
 * import { vllmDtypeGap } from "./vllm_model_dtype.ts";
 * const vllm = { components: { vllm: "0.11.0" } };
 * const f16 = { config: { noDtype: true as const }, storedDtypes: ["BF16", "F16"] };
 * if (vllmDtypeGap(vllm, f16) === null) throw new Error();
 * if (vllmDtypeGap(vllm, { ...f16, storedDtypes: ["F32"] }) !== null) throw new Error();
 * if (vllmDtypeGap(vllm, { ...f16, config: {} }) !== null) throw new Error();
 * if (vllmDtypeGap({ components: { transformers: "4.5x" } }, f16) !== null) throw new Error();
 * ```
 */
export function vllmDtypeGap(
  stack: Pick<StackProfile, "components">,
  ckpt: {
    readonly config: Pick<DecoderConfig, "noDtype">;
    readonly storedDtypes: readonly string[];
  },
): string | null {
  if (!isVllmStack(stack) || ckpt.config.noDtype !== true) return null;
  if (!ckpt.storedDtypes.includes("F16")) return null;
  return "the config names no dtype (torch_dtype or dtype) and the weight files store F16 " +
    "tensors: vLLM's --dtype auto then takes the weights' dtype from the Hub's metadata when the " +
    "model was named by its Hub id (float16, the whole model) and bfloat16 when it was named by " +
    "a local path, which the record does not say";
}
