/**
 * Hugging Face decoder checkpoints (Qwen3, Qwen3-MoE, Llama 3.x, Qwen2 / Qwen2.5, Mistral):
 * config parsing into the model description (refusing what is not modelled),
 * strict opening of `config.json` + `model.safetensors` or an index with shards, streamed tensor
 * reads, the weights digest, and synthetic checkpoints of any config.
 *
 * @example
 * ```ts
 * import { openDecoderCheckpoint, parseDecoderConfig, synthDecoderCheckpoint } from "./mod.ts";
 * import { bytesByteSource } from "../safetensors/mod.ts";
 * const json = { model_type: "qwen3", vocab_size: 8, hidden_size: 256, intermediate_size: 64,
 *   num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 128,
 *   tie_word_embeddings: true };
 * const files = new Map<string, Uint8Array>([["config.json", new TextEncoder().encode(JSON.stringify(json))]]);
 * for (const f of synthDecoderCheckpoint(parseDecoderConfig(json), { seed: "x", shards: 1 })) {
 *   const b = f.bytes();
 *   files.set(f.name, b instanceof Uint8Array ? b : new Uint8Array([...b].flatMap((c) => [...c])));
 * }
 * const ckpt = await openDecoderCheckpoint({
 *   open: (name) => Promise.resolve(files.has(name) ? bytesByteSource(files.get(name)!) : null),
 * });
 * if ((await ckpt.rows("model.embed_tokens.weight", [3])).length !== 256) throw new Error();
 * ```
 * @module
 */
export {
  configReadingGap,
  type DecoderConfig,
  type DecoderFamily,
  isMoeLayer,
  type LinearBiases,
  MAX_DECODER_LAYERS,
  type MoeConfig,
  parseDecoderConfig,
  type RopeTypeKeys,
  vllmReadingGap,
} from "./decoder_config.ts";
export { vllmPipelineStages, vllmRefusal } from "./vllm_refusal.ts";
export { vllmRefusedTensor, vllmRenamedOnto } from "./vllm_unexpected_tensor.ts";
export { decoderTensorShapes, layerPrefix, layerTensorShapes } from "./decoder_tensors.ts";
export { hfRefusal } from "./hf_refusal.ts";
export { stackLoadRefusal } from "./stack_load_refusal.ts";
export { keptWindowGap } from "./kept_window.ts";
export { vllmDtypeGap } from "./vllm_model_dtype.ts";
export { parseCheckpointJson } from "./parse_checkpoint_json.ts";
export { castToBf16, isLoadCastDtype, type LoadCastDtype } from "./cast_to_bf16.ts";
export { portableSha256, sha256OfSource, type Sha256Stream } from "./sha256_of_source.ts";
export {
  type CheckpointFiles,
  type DecoderCheckpoint,
  MAX_CONFIG_JSON_BYTES,
  MAX_INDEX_JSON_BYTES,
  openDecoderCheckpoint,
  type StoredTiedHeadProblem,
} from "./open_checkpoint.ts";
export { tiedHeadReadingGap } from "./tied_head_reading.ts";
export {
  CHECKPOINT_DIGEST_SCHEMA,
  type CheckpointDigest,
  checkpointDigest,
  digestOfFiles,
} from "./checkpoint_digest.ts";
export { synthDecoderCheckpoint, type SynthFile, synthWeight } from "./synth_checkpoint.ts";
export {
  SAFETENSORS_SUFFIX,
  weightFilesContradiction,
  type WeightMetadataFinding,
  weightMetadataFinding,
} from "./loaded_weight_files.ts";
export { readWeightFormats, weightFormatOf, type WeightFormats } from "./weight_formats.ts";
export {
  type LengthFinding,
  lengthFinding,
  type VllmMaxModelLen,
  vllmMaxModelLen,
  vllmStackMaxModelLen,
} from "./vllm_max_model_len.ts";
