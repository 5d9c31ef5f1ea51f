/**
 * Serving: what a decode pass's bits depend on when a server batches sequences, and the
 * batch-size equivalence classes that follow (neighbouring batch sizes that dispatch the same
 * kernels give each sequence identical bits).
 *
 * @example
 * ```ts
 * import { decodeClasses } from "./mod.ts";
 * import { fixedRecipeDispatch, parseDecoderConfig } from "../mod.ts";
 * import { REDUCE_STACK_CUDA_RECENT as reduceStack } from "../../kernels/mod.ts";
 * const config = parseDecoderConfig({
 *   model_type: "qwen3", vocab_size: 151936, hidden_size: 2560, intermediate_size: 9728,
 *   num_hidden_layers: 36, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128,
 * });
 * const r = decodeClasses(config, {
 *   dispatch: fixedRecipeDispatch({ family: "single_walk" }), reduceStack,
 *   multiProcessorCount: 108, context: 4095,
 * });
 * if (r.classes[0]!.signature.attention.splits < 2 || r.classes.at(-1)!.to !== 256) throw new Error();
 * ```
 * @module
 */
export {
  type DecodeAttention,
  type DecodeGemm,
  type DecodeNorm,
  type DecodeNormName,
  type DecodeSignature,
  decodeSignature,
  type DecodeSignatureOptions,
  recipeSummary,
} from "./decode_signature.ts";
export {
  type DecodeClass,
  type DecodeClasses,
  decodeClasses,
  type DecodeClassesOptions,
  DEFAULT_MAX_BATCH,
} from "./decode_classes.ts";
export { normTree, signatureEntries, type SignatureEntry } from "./signature_entries.ts";
