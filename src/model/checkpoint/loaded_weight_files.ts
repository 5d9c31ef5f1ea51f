/**
 * Which of a checkpoint's weight files a stack's loader reads as safetensors, so that a record
 * naming weight files its stack would not have read that way is held to it.
 *
 * - Both engines read a file as safetensors only by its `.safetensors` suffix: HF Transformers
 *   4.57 `modeling_utils.load_state_dict` opens `*.safetensors` with `safe_open` and unpickles
 *   anything else with `torch.load`; vLLM 0.11's default loader
 *   (`DefaultModelLoader._prepare_weights`, load format `auto`) globs `*.safetensors` and reads
 *   `*.bin` / `*.pt` only when there is none, as pickles. A safetensors file under another name
 *   is never these weights.
 * - HF Transformers (`_get_resolved_checkpoint_files`) loads `model.safetensors` alone when the
 *   checkpoint holds it: it reads neither an index nor other weight files beside it. Without
 *   it, the index names the shards, under any names. vLLM reads every `*.safetensors` (or those
 *   its index names), so any set of them.
 *
 * The verifier applies this once the files are open (each is then known to be a safetensors
 * file); the checkpoint reader holds a folder on disk to the same names.
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "../../kernels/mod.ts";

/** The suffix both engines read as safetensors. */
export const SAFETENSORS_SUFFIX = ".safetensors";

/** The single weight file HF Transformers loads first. */
const SINGLE = "model.safetensors";

/**
 * Why a stack would not have read these safetensors weight files as the checkpoint, or null.
 *
 * @param stack the record's stack (vLLM's loader when it names vLLM, else HF Transformers')
 * @param names the weight files the record names, each a safetensors file
 * @returns the reason (one line; names are plain file names), or null
 * @example
 * ```ts
 * import { weightFilesContradiction } from "./loaded_weight_files.ts";
 * const hf = { components: { transformers: "4.57.1" } };
 * if (weightFilesContradiction(hf, ["model.safetensors"]) !== null) throw new Error();
 * if (weightFilesContradiction(hf, ["pytorch_model.bin"]) === null) throw new Error();
 * if (weightFilesContradiction(hf, ["model.safetensors", "extra.safetensors"]) === null) {
 *   throw new Error("HF reads model.safetensors alone");
 * }
 * const vllm = { components: { vllm: "0.11.0" } };
 * if (weightFilesContradiction(vllm, ["model.safetensors", "extra.safetensors"]) !== null) {
 *   throw new Error("vLLM reads every *.safetensors");
 * }
 * ```
 */
export function weightFilesContradiction(
  stack: Pick<StackProfile, "components">,
  names: readonly string[],
): string | null {
  const vllm = isVllmStack(stack);
  const engine = vllm ? "vLLM" : "HF Transformers";
  const other = [...names].sort().find((n) => !n.endsWith(SAFETENSORS_SUFFIX));
  if (other !== undefined) {
    return `weight file '${other}' holds safetensors under a name ${engine} does not read as ` +
      `safetensors (only '*${SAFETENSORS_SUFFIX}': ` +
      (vllm
        ? "it reads a '.bin' or '.pt' as a PyTorch pickle, and only where no " +
          `'*${SAFETENSORS_SUFFIX}' is there)`
        : "it reads any other as a PyTorch pickle)");
  }
  if (!vllm && names.length > 1 && names.includes(SINGLE)) {
    return `${engine} loads '${SINGLE}' alone when a checkpoint holds it, and the record names ` +
      `${names.length - 1} other weight file(s) beside it`;
  }
  return null;
}
