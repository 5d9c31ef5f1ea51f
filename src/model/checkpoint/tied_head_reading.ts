/**
 * Which stacks may run another LM head (or embedding) than the one this forward reads for a tied
 * checkpoint that also stores `lm_head.weight`: the forward reads the embedding for both, as
 * Transformers 4.5x and vLLM 0.11's dense loaders do (they skip `lm_head.` names of a tied config).
 *
 * - Transformers 5 keeps the stored tensor untied wherever it differs from the embedding.
 * - vLLM 0.11's Qwen3-MoE (`qwen3_moe.py` at c3124680) ties by sharing one parameter
 *   (`self.lm_head.weight = self.model.embed_tokens.weight`) and loads through
 *   `AutoWeightsLoader(self)` with no skip, so the stored head is copied into that parameter
 *   too: whichever of `model.embed_tokens.weight` and `lm_head.weight` the weight iterator yields
 *   last (files in order, names in each file's order) is then both the embedding and the head.
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "../../kernels/mod.ts";
import type { DecoderCheckpoint } from "./open_checkpoint.ts";
import { _isTransformers5 } from "./_transformers_5.ts";

/**
 * Why the stack may have run another LM head or embedding than the one `tensor` reads for a tied
 * checkpoint that also stores `lm_head.weight`, or null.
 *
 * @param ckpt the opened checkpoint (whether it stores a tied head, and its family)
 * @param stack the record's stack (its `transformers` and `vllm` components)
 * @returns the reason, or null
 * @example
 * ```ts
 * import { tiedHeadReadingGap } from "./tied_head_reading.ts";
 * const dense = { storedTiedHead: true, config: { modelType: "qwen3" } } as const;
 * const moe = { storedTiedHead: true, config: { modelType: "qwen3_moe" } } as const;
 * const vllm = { components: { vllm: "0.11.0" } };
 * if (tiedHeadReadingGap(dense, { components: { transformers: "5.x" } }) === null) {
 *   throw new Error();
 * }
 * if (tiedHeadReadingGap(dense, { components: { transformers: "4.5x" } }) !== null) {
 *   throw new Error();
 * }
 * if (tiedHeadReadingGap(dense, vllm) !== null || tiedHeadReadingGap(moe, vllm) === null) {
 *   throw new Error();
 * }
 * ```
 */
export function tiedHeadReadingGap(
  ckpt: {
    readonly storedTiedHead: DecoderCheckpoint["storedTiedHead"];
    readonly config: Pick<DecoderCheckpoint["config"], "modelType">;
  },
  stack: Pick<StackProfile, "components">,
): string | null {
  if (!ckpt.storedTiedHead) return null;
  if (isVllmStack(stack)) {
    if (ckpt.config.modelType !== "qwen3_moe") return null;
    return "the config ties the LM head to the embedding and the weights also store " +
      "lm_head.weight, which vLLM's Qwen3-MoE loader copies into the parameter the head shares " +
      "with the embedding: whichever of the two it loads last runs as both, a reading not modelled";
  }
  if (!_isTransformers5(stack.components.transformers)) return null;
  return "the config ties the LM head to the embedding and the weights also store " +
    "lm_head.weight, which Transformers 5 keeps untied where the two differ: that reading is not " +
    "modelled";
}
