/**
 * Model-level code: tensors, safetensors files, configs and forward passes. Pure: no I/O, no
 * `Deno.*`; files reach this layer as `ByteSource`s built in `src/assets`.
 *
 * @example
 * ```ts
 * import { bytesByteSource, encodeSafetensors, openSafetensors } from "./mod.ts";
 * const bytes = encodeSafetensors([
 *   { name: "b", dtype: "BF16", shape: [], data: new Uint16Array([0x3f80]) },
 * ]);
 * const file = await openSafetensors(bytesByteSource(bytes));
 * if (file.header.tensors[0]?.shape.length !== 0) throw new Error();
 * ```
 * @module
 */
export {
  type AttentionBlockOptions,
  type AttentionBlockPlan,
  type AttentionBlockResult,
  type AttentionBlockWeights,
  type BlockPlanBase,
  type BlockRuntime,
  type BlockSupport,
  catalogDispatch,
  checkDenseLayerShape,
  type DenseLayerShape,
  type FfnBlockPlan,
  type FfnBlockResult,
  type FfnBlockWeights,
  fixedRecipeDispatch,
  type GemmCall,
  type GemmDispatch,
  type GemmDispatchResult,
  planAttentionBlock,
  planFfnBlock,
  type ProjectionName,
  QWEN3_4B_LAYER,
  type RopeSource,
  runAttentionBlock,
  runFfnBlock,
  runProjection,
  type SfuUsageCheck,
  type SfuUse,
} from "./blocks/mod.ts";
export {
  bytesByteSource,
  type ByteSource,
  DEFAULT_MAX_HEADER_BYTES,
  dtypeByteSize,
  encodeSafetensors,
  encodeSafetensorsChunks,
  type EncodeSafetensorsOptions,
  isSafetensorsDtype,
  METADATA_KEY,
  openSafetensors,
  type OpenSafetensorsOptions,
  parseSafetensorsHeader,
  readExactly,
  SAFETENSORS_DTYPE_BYTES,
  SAFETENSORS_DTYPES,
  type SafetensorsChunks,
  type SafetensorsDtype,
  type SafetensorsEntry,
  type SafetensorsFile,
  type SafetensorsHeader,
  type SafetensorsTensorInput,
  type SafetensorsView,
  type SafetensorsViewTypes,
  viewTensorBytes,
} from "./safetensors/mod.ts";
