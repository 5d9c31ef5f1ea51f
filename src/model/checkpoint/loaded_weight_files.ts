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
import { quoteShort } from "../../escape_text.ts";
import { _isTransformers5 } from "./_transformers_5.ts";
import type { WeightFormats } from "./weight_formats.ts";

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

/** What a weight file's safetensors metadata says of a record on a stack. */
export interface WeightMetadataFinding {
  /**
   * `contradiction`: the stack's loader refuses the file, so no run loaded these weights;
   * `unmodelled`: the loader reads it another way (a conversion) this version does not model.
   */
  readonly kind: "contradiction" | "unmodelled";
  /** One line. */
  readonly reason: string;
}

/** The formats HF Transformers 4.5x's `load_state_dict` accepts in a file's metadata. */
const HF4_FORMATS = ["pt", "tf", "flax", "mlx"];

/**
 * What the weight files' safetensors `__metadata__` says of a record on its stack, or null.
 *
 * HF Transformers 4.5x (`modeling_utils.load_state_dict`, every weight file, single or shard)
 * raises `OSError` for a file whose metadata is present and whose `format` is not `pt`, `tf`,
 * `flax` or `mlx` (an empty map included): no run on such a stack loaded it. `from_pretrained`
 * loads `tf` and `flax` files through a conversion and takes `mlx` as compatible; only `pt` and
 * no metadata are read here as they are loaded, the rest is not modelled. Transformers 5's
 * reading of a format other than `pt` is not modelled either. vLLM's loader reads no metadata.
 *
 * @param stack the record's stack
 * @param formats each weight file's metadata (`DecoderCheckpoint.weightFormats`)
 * @returns the finding, or null
 * @example
 * ```ts
 * import { weightMetadataFinding } from "./loaded_weight_files.ts";
 * const hf = { components: { transformers: "4.57.1" } };
 * if (weightMetadataFinding(hf, { "model.safetensors": { format: "pt" } }) !== null) throw new Error();
 * if (weightMetadataFinding(hf, { "model.safetensors": null }) !== null) throw new Error();
 * if (weightMetadataFinding(hf, { "model.safetensors": { format: "np" } })?.kind !== "contradiction") {
 *   throw new Error();
 * }
 * if (weightMetadataFinding(hf, { "model.safetensors": { format: "tf" } })?.kind !== "unmodelled") {
 *   throw new Error();
 * }
 * const vllm = { components: { vllm: "0.11.0" } };
 * if (weightMetadataFinding(vllm, { "model.safetensors": { format: "np" } }) !== null) throw new Error();
 * ```
 */
export function weightMetadataFinding(
  stack: Pick<StackProfile, "components">,
  formats: WeightFormats,
): WeightMetadataFinding | null {
  if (isVllmStack(stack)) return null;
  const v5 = _isTransformers5(stack.components.transformers);
  let gap: WeightMetadataFinding | null = null;
  for (const name of Object.keys(formats).sort()) {
    const m = formats[name];
    if (m === null || m === undefined || m.format === "pt") continue;
    const said = m.format === null
      ? "safetensors metadata without a 'format' entry"
      : `safetensors metadata format ${quoteShort(m.format, 40)}`;
    if (!v5 && (m.format === null || !HF4_FORMATS.includes(m.format))) {
      return {
        kind: "contradiction",
        reason:
          `HF Transformers refuses to load weight file ${
            quoteShort(name, 80)
          }: its ${said} is not ` +
          "one load_state_dict accepts (pt, tf, flax, mlx)",
      };
    }
    gap ??= {
      kind: "unmodelled",
      reason: `weight file ${quoteShort(name, 80)} has ${said}, which HF Transformers ${
        v5 ? "5" : "4.5x"
      } loads otherwise than a 'pt' file (a conversion, or a reading not modelled here)`,
    };
  }
  return gap;
}
